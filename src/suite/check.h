/*
 * Reading YAML nodes as typed values for the suite loader (loader.h): the
 * problem list with key paths and alias notes, unknown keys with "did you
 * mean", strings, booleans, ranged numbers, durations, sizes, percentages,
 * name patterns, variable templates and paths. Each check_<type> either
 * returns the value or records one problem saying what was expected and what
 * was found, so that loading goes on and every problem is listed. Internal
 * to src/suite/.
 */
#ifndef HIMORIME_SUITE_CHECK_H
#define HIMORIME_SUITE_CHECK_H

#include "suite/suite.h"
#include "suite/vars.h"
#include "suite/yamltree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct case_ctx;

/* The state of loading one file. */
struct loader {
	struct arena *a; /* the suite's arena */
	struct suite_diags *diags;
	const char *file;
	const char *src; /* the file's text, for columns inside scalars */
	size_t src_len;
	size_t problems;
	int project_depth; /* directories between the project root and the suite's */
	bool has_build;
	size_t total_commands;
	const struct vars_params *params; /* of the case being read, or NULL */
	const struct case_ctx *case_ctx;  /* the same, with its overrides (loader.h) */
	size_t total_cases;
};

enum path_mode {
	PATH_PROJECT, /* cwd, stdin, file_size: relative to ${root}, inside the project */
	PATH_WORKDIR, /* stdout, stderr: relative to ${workdir}, inside it */
	PATH_SUITE,   /* report outputs: relative to the suite file, no variables, no .. */
};

void check_add_diag(struct loader *l, unsigned line, unsigned column, const struct yalias *via,
		    const char *path, const char *hint, const char *msg);
/* Records a problem at node n (NULL: no place); a node standing in for a
 * broken alias is skipped, its problem is already recorded. */
void check_problem(struct loader *l, const struct ynode *n, const char *path, const char *hint,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same at the character `off` bytes into n's text, when the text maps
 * one to one onto its source line; else at n. */
void check_problem_in(struct loader *l, const struct ynode *n, size_t off, const char *path,
		      const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* How a value looks in "got ...": strings quoted, other scalars as written. */
const char *check_found(struct loader *l, const struct ynode *n);
const char *check_child(struct loader *l, const char *path, const char *key);
const char *check_index(struct loader *l, const char *path, size_t i);
/* Reports every key of map not in keys (NULL-terminated). */
void check_keys(struct loader *l, const struct ynode *map, const char *path,
		const char *const *keys, const char *where);
/* The same, but keys starting with free_prefix (NULL: none) are accepted
 * and left to the caller to ignore. */
void check_keys_but(struct loader *l, const struct ynode *map, const char *path,
		    const char *const *keys, const char *free_prefix, const char *where);

bool check_map(struct loader *l, const struct ynode *n, const char *path, const char *what);
bool check_seq(struct loader *l, const struct ynode *n, const char *path, const char *what);
/* A string scalar's text, or NULL (problem recorded). */
const char *check_str(struct loader *l, const struct ynode *n, const char *path);
const char *check_name(struct loader *l, const struct ynode *n, const char *path);
bool check_bool(struct loader *l, const struct ynode *n, const char *path, bool *out);
bool check_int(struct loader *l, const struct ynode *n, const char *path, int64_t min, int64_t max,
	       int64_t *out);
bool check_uint(struct loader *l, const struct ynode *n, const char *path, unsigned min,
		unsigned max, unsigned *out);
/* A finite number in [min, max]. */
bool check_number(struct loader *l, const struct ynode *n, const char *path, double min, double max,
		  double *out);
bool check_duration(struct loader *l, const struct ynode *n, const char *path, bool positive,
		    uint64_t *out);
bool check_size(struct loader *l, const struct ynode *n, const char *path, uint64_t *out);
/* A percentage from 0 to max_pct percent, as a fraction. */
bool check_percent(struct loader *l, const struct ynode *n, const char *path, double max_pct,
		   double *out);

bool check_blank(const char *s);
bool check_is_name(const char *s);     /* ^[A-Za-z0-9][A-Za-z0-9_.-]*$ */
bool check_is_env_name(const char *s); /* ^[A-Za-z_][A-Za-z0-9_]*$ */
bool check_is_section(const char *s);  /* ^[a-z0-9][a-z0-9-]*$ */

/* Variables in a template: known, closed, allowed here (${workdir} not in
 * build, ${artifact} only with build), and with shell, none inside the
 * command's own quotes. Returns the template with the case's parameters
 * substituted (tpl itself when it names none), or NULL (problem recorded). */
const char *check_template(struct loader *l, const struct ynode *n, const char *path,
			   const char *tpl, bool in_build, bool shell);
/* A path's form for its mode: relative, no ~, ".." not leaving the project
 * or ${workdir}. */
bool check_path(struct loader *l, const struct ynode *n, const char *path, const char *p,
		enum path_mode mode);

#endif
