/*
 * A YAML document as a tree that remembers where every node came from.
 * Built from libyaml's event API (the document API loses the position of an
 * alias, turns `&x [1, *x]` into a cycle and reports no duplicate keys):
 * aliases are expanded into copies under a node budget, merge keys (`<<`)
 * are applied, duplicate keys are reported with both positions, and hostile
 * input stops at clear limits. Scalars keep their text and style; their YAML
 * 1.2 core-schema type is resolved on request. Only src/suite/ uses this.
 */
#ifndef HIMORIME_SUITE_YAMLTREE_H
#define HIMORIME_SUITE_YAMLTREE_H

#include "suite/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on untrusted input (docs/configuration.md lists them). */
#define YTREE_MAX_DEPTH	       64
#define YTREE_MAX_NODES	       100000 /* nodes after alias and merge expansion */
#define YTREE_MAX_SCALAR_BYTES 65536

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

/* A scalar's type under the YAML 1.2 core schema. */
enum yscalar_type { YSCALAR_NULL, YSCALAR_BOOL, YSCALAR_INT, YSCALAR_FLOAT, YSCALAR_STR };

/* Where an expanded alias came from, for messages: "(via alias *x at 9:12,
 * anchor &x at 3:5)". */
struct yalias {
	const char *anchor;
	unsigned alias_line, alias_column;
	unsigned anchor_line, anchor_column;
};

struct ynode {
	enum ynode_kind kind;
	unsigned line, column;	  /* 1-based, columns in characters */
	const struct yalias *via; /* non-NULL inside an expanded alias */
	/* Scalars: the text (NUL-terminated, may contain NUL: see len) and
	 * whether it was plain (unquoted) and untagged, which decides its type. */
	const char *text;
	size_t len;
	bool plain;
	char style;	 /* scalars: 'p' plain, '\'' or '"' quoted, '|' literal, '>' folded */
	bool invalid;	 /* stands in for a broken alias, already reported */
	const char *tag; /* explicit tag as written, or NULL */
	/* Sequences: items[0..count). Maps: keys[i] → items[i]. */
	struct ynode **items;
	struct ynode **keys;
	size_t count;
};

struct ydiag {
	unsigned line, column;
	const struct yalias *via;
	const char *path; /* key path of the node, "" for the document */
	char *message;
};

struct ytree {
	struct ynode *root; /* NULL for an empty document or a fatal error */
	struct ydiag *diags;
	size_t diag_count, diag_alloc;
	bool fatal; /* parsing stopped: the tree is partial or absent */
};

/* Parses `len` bytes of `text`. Everything is allocated in `arena`. Problems
 * (syntax, limits, duplicates, aliases) are appended to tree->diags; the
 * return value is 0 even then (-1 never: problems are data). */
void ytree_parse(struct ytree *tree, const char *text, size_t len, struct arena *arena);

enum yscalar_type ynode_type(const struct ynode *n);
/* YAML 1.2 core values; each returns false when the scalar is not of that
 * type (or the integer does not fit in int64). */
bool ynode_bool(const struct ynode *n, bool *out);
bool ynode_int(const struct ynode *n, int64_t *out);
bool ynode_float(const struct ynode *n, double *out); /* ints too; inf/nan as such */
/* A map's value for a key, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

#endif
