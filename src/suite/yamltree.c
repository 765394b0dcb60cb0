/*
 * The YAML event builder: see yamltree.h.
 *
 * One pass over libyaml's events with an explicit stack of open
 * collections. Anchored nodes are remembered when they close; an alias
 * becomes a deep copy of its anchor's node whose nodes point at a `struct
 * yalias` (so messages can name both places), charged against the node
 * budget before anything is copied. An alias to an anchor that is still open
 * is a cycle. When a mapping closes, its explicit keys are checked for
 * duplicates and its merge keys are applied in one sort: explicit keys come
 * first, then merged maps in order, and the first of equal keys wins.
 */
#include "suite/yamltree.h"

#include "common/alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/banned.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

struct frame {
	struct ynode *node;
	struct ynode **items, **keys;
	size_t count, alloc;
	struct ynode *pending_key; /* maps: a key waiting for its value */
	const char *anchor;
};

struct anchor {
	const char *name;
	struct ynode *node; /* NULL while the anchored collection is open */
	unsigned line, column;
	size_t nodes;
};

struct builder {
	struct ytree *tree;
	struct arena *arena;
	struct frame *stack;
	size_t depth, stack_alloc;
	struct anchor *anchors;
	size_t anchor_count, anchor_alloc;
	size_t nodes;
	unsigned documents;
};

static void diag_at(struct builder *b, unsigned line, unsigned column, const struct yalias *via,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void path_of_top(struct builder *b, char *out, size_t size);

static void diag_at(struct builder *b, unsigned line, unsigned column, const struct yalias *via,
		    const char *fmt, ...)
{
	struct ytree *t = b->tree;
	struct ydiag *d;
	char *tmp;
	va_list ap;

	t->diags = xgrow(t->diags, &t->diag_alloc, t->diag_count + 1, sizeof(*t->diags));
	d = &t->diags[t->diag_count++];
	d->line = line;
	d->column = column;
	d->via = via;
	va_start(ap, fmt);
	if (vasprintf(&tmp, fmt, ap) < 0)
		tmp = NULL;
	va_end(ap);
	d->message = arena_strdup(b->arena, tmp ? tmp : "out of memory");
	free(tmp);
	{
		char path[512];
		path_of_top(b, path, sizeof(path));
		d->path = arena_strdup(b->arena, path);
	}
}

/* The key path of the node being built, "benchmarks[0].commands.fast". */
static void path_of_top(struct builder *b, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < b->depth && len < size; i++) {
		struct frame *f = &b->stack[i];
		int n = 0;
		if (f->node->kind == YNODE_SEQ)
			n = snprintf(out + len, size - len, "[%zu]", f->count);
		else if (f->pending_key)
			n = snprintf(out + len, size - len, "%s%s", len ? "." : "",
				     f->pending_key->text);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static struct ynode *new_node(struct builder *b, enum ynode_kind kind, const yaml_mark_t *mark)
{
	struct ynode *n = arena_alloc(b->arena, sizeof(*n));

	n->kind = kind;
	n->line = (unsigned)mark->line + 1;
	n->column = (unsigned)mark->column + 1;
	b->nodes++;
	return n;
}

static size_t count_nodes(const struct ynode *n)
{
	size_t total = 1, i;

	for (i = 0; i < n->count; i++) {
		total += count_nodes(n->items[i]);
		if (n->keys)
			total += count_nodes(n->keys[i]);
	}
	return total;
}

static struct ynode *copy_node(struct builder *b, const struct ynode *src, const struct yalias *via)
{
	struct ynode *n = arena_alloc(b->arena, sizeof(*n));
	size_t i;

	*n = *src;
	n->via = via;
	b->nodes++;
	if (!src->count)
		return n;
	n->items = arena_array(b->arena, src->count, sizeof(*n->items));
	for (i = 0; i < src->count; i++)
		n->items[i] = copy_node(b, src->items[i], via);
	if (src->keys) {
		n->keys = arena_array(b->arena, src->count, sizeof(*n->keys));
		for (i = 0; i < src->count; i++)
			n->keys[i] = copy_node(b, src->keys[i], via);
	}
	return n;
}

static bool over_budget(struct builder *b, size_t more, const yaml_mark_t *mark)
{
	if (b->nodes + more <= YTREE_MAX_NODES)
		return false;
	diag_at(b, (unsigned)mark->line + 1, (unsigned)mark->column + 1, NULL,
		"the document has more than %d nodes, counting every expanded alias "
		"(a limit)",
		YTREE_MAX_NODES);
	b->tree->fatal = true;
	return true;
}

static void remember_anchor(struct builder *b, const char *name, struct ynode *node)
{
	struct anchor *a;

	b->anchors = xgrow(b->anchors, &b->anchor_alloc, b->anchor_count + 1, sizeof(*b->anchors));
	a = &b->anchors[b->anchor_count++];
	a->name = arena_strdup(b->arena, name);
	a->node = node;
	a->line = node->line;
	a->column = node->column;
	a->nodes = node->kind == YNODE_SCALAR ? 1 : 0;
}

static struct anchor *find_anchor(struct builder *b, const char *name)
{
	size_t i = b->anchor_count;

	while (i--)
		if (!strcmp(b->anchors[i].name, name))
			return &b->anchors[i];
	return NULL;
}

/* Adds a finished node to the collection on top of the stack, or makes it
 * the document's root. */
static void attach(struct builder *b, struct ynode *n)
{
	struct frame *f;

	if (!b->depth) {
		b->tree->root = n;
		return;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->kind == YNODE_MAP && !f->pending_key) {
		f->pending_key = n;
		return;
	}
	f->items = xgrow(f->items, &f->alloc, f->count + 1, sizeof(*f->items));
	if (f->node->kind == YNODE_MAP) {
		f->keys = xrealloc(f->keys, f->alloc * sizeof(*f->keys));
		f->keys[f->count] = f->pending_key;
		f->pending_key = NULL;
	}
	f->items[f->count++] = n;
}

static bool is_merge_key(const struct ynode *k)
{
	return k->kind == YNODE_SCALAR && k->plain && !k->tag && !strcmp(k->text, "<<");
}

struct entry {
	struct ynode *key, *value;
	size_t order;
	bool explicit_key;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	size_t n = a->key->len < b->key->len ? a->key->len : b->key->len;
	int c = memcmp(a->key->text, b->key->text, n);

	if (c)
		return c;
	if (a->key->len != b->key->len)
		return a->key->len < b->key->len ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int order_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return a->order < b->order ? -1 : a->order > b->order;
}

static void push_entry(struct entry **v, size_t *n, size_t *alloc, struct ynode *k,
		       struct ynode *val, bool explicit_key)
{
	*v = xgrow(*v, alloc, *n + 1, sizeof(**v));
	(*v)[*n].key = k;
	(*v)[*n].value = val;
	(*v)[*n].order = *n;
	(*v)[*n].explicit_key = explicit_key;
	(*n)++;
}

static void merge_from(struct builder *b, struct entry **v, size_t *n, size_t *alloc,
		       const struct ynode *src, const struct ynode *at)
{
	size_t i;

	if (src->kind != YNODE_MAP) {
		diag_at(b, at->line, at->column, at->via,
			"a merge key (<<) takes a map or a list of maps");
		return;
	}
	for (i = 0; i < src->count; i++)
		push_entry(v, n, alloc, src->keys[i], src->items[i], false);
}

static bool same_key(const struct entry *a, const struct entry *b)
{
	return a->key->len == b->key->len && !memcmp(a->key->text, b->key->text, a->key->len);
}

/* Duplicate keys and merge keys of a mapping that just closed. */
static void finish_map(struct builder *b, struct frame *f)
{
	struct entry *v = NULL;
	size_t n = 0, alloc = 0, i, j, kept = 0;
	struct ynode *map = f->node;

	for (i = 0; i < f->count; i++) {
		if (f->keys[i]->kind != YNODE_SCALAR) {
			diag_at(b, f->keys[i]->line, f->keys[i]->column, f->keys[i]->via,
				"a key must be a scalar, found a %s",
				f->keys[i]->kind == YNODE_MAP ? "map" : "list");
			continue;
		}
		push_entry(&v, &n, &alloc, f->keys[i], f->items[i], true);
	}
	for (i = 0; i < f->count; i++) {
		const struct ynode *m = f->items[i];
		if (f->keys[i]->kind != YNODE_SCALAR || !is_merge_key(f->keys[i]))
			continue;
		if (m->kind == YNODE_SEQ)
			for (j = 0; j < m->count; j++)
				merge_from(b, &v, &n, &alloc, m->items[j], m->items[j]);
		else
			merge_from(b, &v, &n, &alloc, m, m);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n; i = j) {
		v[kept++] = v[i];
		for (j = i + 1; j < n && same_key(&v[i], &v[j]); j++) {
			if (!v[j].explicit_key || !v[i].explicit_key)
				continue;
			diag_at(b, v[j].key->line, v[j].key->column, v[j].key->via,
				"duplicate key \"%s\" (first at %u:%u)", v[j].key->text,
				v[i].key->line, v[i].key->column);
			{
				struct ydiag *d = &b->tree->diags[b->tree->diag_count - 1];
				d->path = *d->path ? arena_printf(b->arena, "%s.%s", d->path,
								  v[j].key->text)
						   : v[j].key->text;
			}
		}
	}
	if (kept > 1)
		qsort(v, kept, sizeof(*v), order_cmp);
	map->count = 0;
	map->keys = arena_array(b->arena, kept ? kept : 1, sizeof(*map->keys));
	map->items = arena_array(b->arena, kept ? kept : 1, sizeof(*map->items));
	for (i = 0; i < kept; i++) {
		if (v[i].explicit_key && is_merge_key(v[i].key))
			continue;
		map->keys[map->count] = v[i].key;
		map->items[map->count++] = v[i].value;
	}
	free(v);
}

static void finish_seq(struct builder *b, struct frame *f)
{
	struct ynode *seq = f->node;

	seq->count = f->count;
	seq->items = arena_array(b->arena, f->count ? f->count : 1, sizeof(*seq->items));
	if (f->count)
		memcpy(seq->items, f->items, f->count * sizeof(*seq->items));
}

static const char *copy_tag(struct builder *b, const yaml_char_t *tag)
{
	return tag ? arena_strdup(b->arena, (const char *)tag) : NULL;
}

static void push_frame(struct builder *b, struct ynode *n, const yaml_char_t *anchor)
{
	struct frame *f;

	b->stack = xgrow(b->stack, &b->stack_alloc, b->depth + 1, sizeof(*b->stack));
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	if (anchor) {
		remember_anchor(b, (const char *)anchor, n);
		b->anchors[b->anchor_count - 1].node = NULL; /* open: aliases to it are cycles */
		f->anchor = b->anchors[b->anchor_count - 1].name;
	}
}

static void pop_frame(struct builder *b)
{
	struct frame *f = &b->stack[b->depth - 1];
	struct ynode *n = f->node;

	if (n->kind == YNODE_MAP)
		finish_map(b, f);
	else
		finish_seq(b, f);
	free(f->items);
	free(f->keys);
	b->depth--;
	if (f->anchor) {
		size_t i = b->anchor_count;
		while (i--)
			if (b->anchors[i].name == f->anchor) {
				b->anchors[i].node = n;
				b->anchors[i].nodes = count_nodes(n);
				break;
			}
	}
	attach(b, n);
}

static void on_scalar(struct builder *b, const yaml_event_t *e)
{
	struct ynode *n = new_node(b, YNODE_SCALAR, &e->start_mark);
	size_t len = e->data.scalar.length;

	n->tag = copy_tag(b, e->data.scalar.tag);
	n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	switch (e->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		n->style = '\'';
		break;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		n->style = '"';
		break;
	case YAML_LITERAL_SCALAR_STYLE:
		n->style = '|';
		break;
	case YAML_FOLDED_SCALAR_STYLE:
		n->style = '>';
		break;
	case YAML_ANY_SCALAR_STYLE:
	case YAML_PLAIN_SCALAR_STYLE:
		n->style = 'p';
		break;
	}
	if (len > YTREE_MAX_SCALAR_BYTES) {
		diag_at(b, n->line, n->column, NULL,
			"a scalar of %zu bytes is longer than the limit of %d bytes", len,
			YTREE_MAX_SCALAR_BYTES);
		len = 0;
		n->invalid = true;
	} else if (memchr(e->data.scalar.value, '\0', len)) {
		/* libyaml decodes "\0" (and "\x00", "\u0000"); every string
		 * downstream is NUL-terminated and would end there: "/bin/tr\0ue"
		 * would run /bin/tr. */
		diag_at(b, n->line, n->column, NULL,
			"a string may not hold a NUL character (\\0): it would end there");
		len = 0;
		n->invalid = true;
	}
	n->text = arena_strndup(b->arena, (const char *)e->data.scalar.value, len);
	n->len = len;
	if (e->data.scalar.anchor)
		remember_anchor(b, (const char *)e->data.scalar.anchor, n);
	attach(b, n);
}

static void on_alias(struct builder *b, const yaml_event_t *e)
{
	const char *name = (const char *)e->data.alias.anchor;
	struct anchor *a = find_anchor(b, name);
	unsigned line = (unsigned)e->start_mark.line + 1,
		 column = (unsigned)e->start_mark.column + 1;
	struct yalias *via;
	struct ynode *n;

	if (!a || !a->node) {
		if (a)
			diag_at(b, line, column, NULL,
				"alias *%s refers to its own anchor &%s at %u:%u (a cycle)", name,
				name, a->line, a->column);
		else
			diag_at(b, line, column, NULL, "alias *%s has no anchor &%s before it",
				name, name);
		n = new_node(b, YNODE_SCALAR, &e->start_mark);
		n->text = "";
		n->invalid = true;
		attach(b, n);
		return;
	}
	if (over_budget(b, a->nodes, &e->start_mark))
		return;
	via = arena_alloc(b->arena, sizeof(*via));
	via->anchor = a->name;
	via->alias_line = line;
	via->alias_column = column;
	via->anchor_line = a->line;
	via->anchor_column = a->column;
	n = copy_node(b, a->node, via);
	attach(b, n);
}

static void on_start(struct builder *b, const yaml_event_t *e, enum ynode_kind kind)
{
	struct ynode *n = new_node(b, kind, &e->start_mark);
	const yaml_char_t *anchor, *tag;

	if (kind == YNODE_MAP) {
		anchor = e->data.mapping_start.anchor;
		tag = e->data.mapping_start.tag;
	} else {
		anchor = e->data.sequence_start.anchor;
		tag = e->data.sequence_start.tag;
	}
	n->tag = copy_tag(b, tag);
	if (b->depth >= YTREE_MAX_DEPTH) {
		diag_at(b, n->line, n->column, NULL, "nesting deeper than %d levels",
			YTREE_MAX_DEPTH);
		b->tree->fatal = true;
		return;
	}
	push_frame(b, n, anchor);
}

static void syntax_error(struct builder *b, const yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;
	const char *problem = p->problem ? p->problem : "invalid YAML";

	if (p->error == YAML_MEMORY_ERROR) {
		diag_at(b, 1, 1, NULL, "out of memory while parsing");
	} else if (p->context) {
		diag_at(b, (unsigned)m->line + 1, (unsigned)m->column + 1, NULL,
			"invalid YAML: %s %s at %u:%u", problem, p->context,
			(unsigned)p->context_mark.line + 1, (unsigned)p->context_mark.column + 1);
	} else {
		diag_at(b, (unsigned)m->line + 1, (unsigned)m->column + 1, NULL, "invalid YAML: %s",
			problem);
	}
	b->tree->diags[b->tree->diag_count - 1].path = "";
	b->tree->fatal = true;
}

/* Handles one event; returns false to stop. */
static bool on_event(struct builder *b, const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return true;
	case YAML_STREAM_END_EVENT:
		return false;
	case YAML_DOCUMENT_START_EVENT:
		if (b->documents++) {
			diag_at(b, (unsigned)e->start_mark.line + 1,
				(unsigned)e->start_mark.column + 1, NULL,
				"a second YAML document; a suite file holds exactly one");
			return false;
		}
		return true;
	case YAML_ALIAS_EVENT:
		on_alias(b, e);
		break;
	case YAML_SCALAR_EVENT:
		on_scalar(b, e);
		break;
	case YAML_SEQUENCE_START_EVENT:
		on_start(b, e, YNODE_SEQ);
		break;
	case YAML_MAPPING_START_EVENT:
		on_start(b, e, YNODE_MAP);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		pop_frame(b);
		break;
	}
	if (!b->tree->fatal && b->nodes > YTREE_MAX_NODES)
		over_budget(b, 0, &e->start_mark);
	return !b->tree->fatal;
}

void ytree_parse(struct ytree *tree, const char *text, size_t len, struct arena *arena)
{
	struct builder b;
	yaml_parser_t parser;
	size_t i;

	memset(tree, 0, sizeof(*tree));
	memset(&b, 0, sizeof(b));
	b.tree = tree;
	b.arena = arena;
	if (!yaml_parser_initialize(&parser)) {
		diag_at(&b, 1, 1, NULL, "out of memory while parsing");
		tree->fatal = true;
		return;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_t e;
		bool go_on;
		if (!yaml_parser_parse(&parser, &e)) {
			syntax_error(&b, &parser);
			break;
		}
		go_on = on_event(&b, &e);
		yaml_event_delete(&e);
		if (!go_on)
			break;
	}
	yaml_parser_delete(&parser);
	for (i = 0; i < b.depth; i++) {
		free(b.stack[i].items);
		free(b.stack[i].keys);
	}
	free(b.stack);
	free(b.anchors);
	if (tree->fatal)
		tree->root = NULL;
}

/* The core-schema tag a node resolves to: a short name ("str", "int"...). */
static const char *core_tag(const struct ynode *n)
{
	if (n->tag) {
		if (!strncmp(n->tag, TAG_PREFIX, strlen(TAG_PREFIX)))
			return n->tag + strlen(TAG_PREFIX);
		return n->tag;
	}
	return NULL;
}

static bool match_any(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static bool all_in(const char *s, const char *chars)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(chars, *s))
			return false;
	return true;
}

static bool looks_int(const char *s)
{
	if (!strncmp(s, "0o", 2))
		return all_in(s + 2, "01234567");
	if (!strncmp(s, "0x", 2))
		return all_in(s + 2, "0123456789abcdefABCDEF");
	if (*s == '-' || *s == '+')
		s++;
	return all_in(s, "0123456789");
}

static bool looks_float(const char *s)
{
	static const char *const special[] = {
		".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", NULL
	};
	bool digits = false;

	if (*s == '-' || *s == '+')
		s++;
	if (match_any(s, special))
		return true;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		return all_in(s, "0123456789");
	}
	return !*s;
}

enum yscalar_type ynode_type(const struct ynode *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const bools[] = {
		"true", "True", "TRUE", "false", "False", "FALSE", NULL
	};
	const char *tag = core_tag(n);

	if (n->kind != YNODE_SCALAR)
		return YSCALAR_STR;
	if (tag) {
		if (!strcmp(tag, "null"))
			return YSCALAR_NULL;
		if (!strcmp(tag, "bool"))
			return YSCALAR_BOOL;
		if (!strcmp(tag, "int"))
			return YSCALAR_INT;
		if (!strcmp(tag, "float"))
			return YSCALAR_FLOAT;
		return YSCALAR_STR;
	}
	if (!n->plain)
		return YSCALAR_STR;
	if (match_any(n->text, nulls))
		return YSCALAR_NULL;
	if (match_any(n->text, bools))
		return YSCALAR_BOOL;
	if (looks_int(n->text))
		return YSCALAR_INT;
	if (looks_float(n->text))
		return YSCALAR_FLOAT;
	return YSCALAR_STR;
}

bool ynode_bool(const struct ynode *n, bool *out)
{
	if (n->kind != YNODE_SCALAR || ynode_type(n) != YSCALAR_BOOL)
		return false;
	if (!strcmp(n->text, "true") || !strcmp(n->text, "True") || !strcmp(n->text, "TRUE")) {
		*out = true;
		return true;
	}
	if (!strcmp(n->text, "false") || !strcmp(n->text, "False") || !strcmp(n->text, "FALSE")) {
		*out = false;
		return true;
	}
	return false;
}

bool ynode_int(const struct ynode *n, int64_t *out)
{
	const char *s = n->text;
	bool neg = false;
	unsigned long long v;
	char *end;
	int base = 10;

	if (n->kind != YNODE_SCALAR || ynode_type(n) != YSCALAR_INT)
		return false;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strncmp(s, "0o", 2) || !strncmp(s, "0x", 2)) {
		base = s[1] == 'x' ? 16 : 8;
		s += 2;
	}
	if (!*s)
		return false;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v > (unsigned long long)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

bool ynode_float(const struct ynode *n, double *out)
{
	const char *s = n->text;
	int64_t i;
	char *end;
	bool neg;

	if (n->kind != YNODE_SCALAR)
		return false;
	if (ynode_int(n, &i)) {
		*out = (double)i;
		return true;
	}
	if (ynode_type(n) != YSCALAR_FLOAT)
		return false;
	neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s + 1, "inf") || !strcmp(s + 1, "Inf") || !strcmp(s + 1, "INF")) {
		*out = neg ? -INFINITY : INFINITY;
		return true;
	}
	if (*s == '.' && (s[1] == 'n' || s[1] == 'N')) {
		*out = NAN;
		return true;
	}
	errno = 0;
	*out = strtod(n->text, &end);
	return !*end;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	size_t i;

	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (i = 0; i < map->count; i++)
		if (!strcmp(map->keys[i]->text, key))
			return map->items[i];
	return NULL;
}
