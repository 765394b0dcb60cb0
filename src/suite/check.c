/*
 * Typed reading of YAML nodes for the suite loader: see check.h.
 */
#include "suite/check.h"

#include "common/alloc.h"
#include "suite/units.h"
#include "suite/vars.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* ---- diagnostics ---- */

void check_add_diag(struct loader *l, unsigned line, unsigned column, const struct yalias *via,
		    const char *path, const char *hint, const char *msg)
{
	struct suite_diags *d = l->diags;
	struct suite_diag *g;

	l->problems++;
	if (l->problems > SUITE_MAX_DIAGS + 1)
		return;
	d->v = xgrow(d->v, &d->alloc, d->count + 1, sizeof(*d->v));
	g = &d->v[d->count++];
	g->file = arena_strdup(&d->arena, l->file);
	g->line = line;
	g->column = column;
	g->path = arena_strdup(&d->arena, path ? path : "");
	g->hint = hint ? arena_strdup(&d->arena, hint) : NULL;
	if (l->problems > SUITE_MAX_DIAGS) {
		g->line = g->column = 0;
		g->path = "";
		g->hint = NULL;
		g->message = arena_printf(&d->arena, "more than %d problems; stopping here",
					  SUITE_MAX_DIAGS);
		return;
	}
	if (via)
		g->message =
			arena_printf(&d->arena, "%s (via alias *%s at %u:%u, anchor &%s at %u:%u)",
				     msg, via->anchor, via->alias_line, via->alias_column,
				     via->anchor, via->anchor_line, via->anchor_column);
	else
		g->message = arena_strdup(&d->arena, msg);
}

void check_problem(struct loader *l, const struct ynode *n, const char *path, const char *hint,
		   const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (n && n->invalid)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check_add_diag(l, n ? n->line : 0, n ? n->column : 0, n ? n->via : NULL, path, hint, msg);
}

/* How a value looks in "got ...": strings quoted, other scalars as written. */
static bool utf8_lead(char c)
{
	return ((unsigned char)c & 0xC0) != 0x80;
}

/* The column of byte `off` of a scalar's text: exact for plain and quoted
 * scalars whose text up to there is their source (no escapes, one line). */
static unsigned text_column(const struct loader *l, const struct ynode *n, size_t off)
{
	const char *p, *end;
	unsigned line = 1, col = 1, extra = 0;
	size_t i;

	if (!l->src || (n->style != 'p' && n->style != '"' && n->style != '\'') || off > n->len)
		return n->column;
	p = l->src;
	end = l->src + l->src_len;
	for (; p < end && line < n->line; p++)
		if (*p == '\n')
			line++;
	for (; p < end && col < n->column; p++)
		if (p + 1 == end || utf8_lead(p[1])) /* the character ends here */
			col++;
	if (n->style != 'p') {
		p++;
		extra = 1;
	}
	if ((size_t)(end - p) < off || memcmp(p, n->text, off))
		return n->column;
	for (i = 0; i < off; i++)
		if (n->text[i] == '\n')
			return n->column;
		else if (utf8_lead(n->text[i]))
			extra++;
	return n->column + extra;
}

void check_problem_in(struct loader *l, const struct ynode *n, size_t off, const char *path,
		      const char *hint, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (n->invalid)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check_add_diag(l, n->line, text_column(l, n, off), n->via, path, hint, msg);
}

const char *check_found(struct loader *l, const struct ynode *n)
{
	char buf[64];

	switch (n->kind) {
	case YNODE_MAP:
		return "a map";
	case YNODE_SEQ:
		return "a list";
	case YNODE_SCALAR:
		break;
	}
	if (ynode_type(n) != YSCALAR_STR)
		return n->text[0] ? n->text : "null";
	if (n->len > 40) {
		snprintf(buf, sizeof(buf), "%.37s...", n->text);
		return arena_printf(l->a, "\"%s\"", buf);
	}
	return arena_printf(l->a, "\"%s\"", n->text);
}

const char *check_child(struct loader *l, const char *path, const char *key)
{
	return *path ? arena_printf(l->a, "%s.%s", path, key) : arena_strdup(l->a, key);
}

const char *check_index(struct loader *l, const char *path, size_t i)
{
	return arena_printf(l->a, "%s[%zu]", path, i);
}

/* ---- keys ---- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(*prev));
	}
	return prev[lb];
}

static bool in_list(const char *s, const char *const *keys)
{
	for (; *keys; keys++)
		if (!strcmp(s, *keys))
			return true;
	return false;
}

/* A hint for a key that is valid, only not at this level. */
static const char *level_hint(struct loader *l, const char *key, const char *where)
{
	/* metrics is not here: a command may set its counts. */
	static const char *const benchmark_settings[] = { "warmup",   "runs",	  "min_runs",
							  "max_runs", "min_time", "regression",
							  "schedule", NULL };
	static const char *const benchmark_only[] = { "name",	      "description", "tags",
						      "stdin",	      "terminal",    "setup",
						      "prepare_each", "cleanup",     "baseline",
						      "commands",     NULL };

	if (strstr(where, ".commands.") && in_list(key, benchmark_settings))
		return arena_printf(l->a, "%s is set per benchmark or in defaults, not per command",
				    key);
	if (!strcmp(where, "defaults") && in_list(key, benchmark_only))
		return arena_printf(l->a, "%s is set in each benchmark, not in defaults", key);
	return NULL;
}

/* Reports every key of map not in keys, with a "did you mean" hint. */
void check_keys(struct loader *l, const struct ynode *map, const char *path,
		const char *const *keys, const char *where)
{
	check_keys_but(l, map, path, keys, NULL, where);
}

void check_keys_but(struct loader *l, const struct ynode *map, const char *path,
		    const char *const *keys, const char *free_prefix, const char *where)
{
	size_t i;

	for (i = 0; i < map->count; i++) {
		const struct ynode *k = map->keys[i];
		const char *const *c;
		const char *best = NULL;
		size_t best_d = 3;
		if (in_list(k->text, keys) ||
		    (free_prefix && !strncmp(k->text, free_prefix, strlen(free_prefix))))
			continue;
		for (c = keys; *c; c++) {
			size_t d = edit_distance(k->text, *c);
			if (d < best_d && d < strlen(*c)) {
				best = *c;
				best_d = d;
			}
		}
		check_problem(l, k, check_child(l, path, k->text),
			      best ? arena_printf(l->a, "did you mean \"%s\"?", best)
				   : level_hint(l, k->text, where),
			      "unknown key \"%s\" in %s", k->text, where);
	}
}

/* ---- typed scalars ---- */

bool check_map(struct loader *l, const struct ynode *n, const char *path, const char *what)
{
	if (n->kind == YNODE_MAP)
		return true;
	check_problem(l, n, path, NULL, "expected %s, got %s", what, check_found(l, n));
	return false;
}

bool check_seq(struct loader *l, const struct ynode *n, const char *path, const char *what)
{
	if (n->kind == YNODE_SEQ)
		return true;
	check_problem(l, n, path, NULL, "expected %s, got %s", what, check_found(l, n));
	return false;
}

const char *check_str(struct loader *l, const struct ynode *n, const char *path)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_STR)
		return n->text;
	check_problem(l, n, path,
		      n->kind == YNODE_SCALAR ? "quote the value to make it a string" : NULL,
		      "expected a string, got %s", check_found(l, n));
	return NULL;
}

bool check_blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

const char *check_name(struct loader *l, const struct ynode *n, const char *path)
{
	const char *s = check_str(l, n, path);

	if (s && check_blank(s)) {
		check_problem(l, n, path, NULL, "expected a non-blank string, got %s",
			      check_found(l, n));
		return NULL;
	}
	return s;
}

bool check_bool(struct loader *l, const struct ynode *n, const char *path, bool *out)
{
	if (ynode_bool(n, out))
		return true;
	check_problem(l, n, path,
		      n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_STR
			      ? "booleans are true or false (yes, no, on and off are strings)"
			      : NULL,
		      "expected true or false, got %s", check_found(l, n));
	return false;
}

bool check_int(struct loader *l, const struct ynode *n, const char *path, int64_t min, int64_t max,
	       int64_t *out)
{
	int64_t v;

	if (!ynode_int(n, &v) || v < min || v > max) {
		check_problem(l, n, path, NULL, "expected an integer from %lld to %lld, got %s",
			      (long long)min, (long long)max, check_found(l, n));
		return false;
	}
	*out = v;
	return true;
}

bool check_uint(struct loader *l, const struct ynode *n, const char *path, unsigned min,
		unsigned max, unsigned *out)
{
	int64_t v;

	if (!check_int(l, n, path, min, max, &v))
		return false;
	*out = (unsigned)v;
	return true;
}

bool check_number(struct loader *l, const struct ynode *n, const char *path, double min, double max,
		  double *out)
{
	double v;

	if (!ynode_float(n, &v) || !isfinite(v) || v < min || v > max) {
		check_problem(l, n, path, NULL, "expected a number from %g to %g, got %s", min, max,
			      check_found(l, n));
		return false;
	}
	*out = v;
	return true;
}

bool check_duration(struct loader *l, const struct ynode *n, const char *path, bool positive,
		    uint64_t *out)
{
	struct err e = ERR_INIT;
	const char *s;

	if (n->kind != YNODE_SCALAR || ynode_type(n) == YSCALAR_NULL ||
	    ynode_type(n) == YSCALAR_BOOL) {
		check_problem(l, n, path, NULL,
			      "expected a duration such as \"250ms\" or \"1m30s\", got %s",
			      check_found(l, n));
		return false;
	}
	s = n->text;
	if (units_duration(s, out, &e) < 0) {
		check_problem(l, n, path,
			      strcmp(e.msg, "missing unit") ? NULL
							    : "add a unit: ns, us, ms, s, m or h",
			      "expected a duration such as \"250ms\" or \"1m30s\", got %s (%s)",
			      check_found(l, n), e.msg);
		return false;
	}
	if (positive && !*out) {
		check_problem(l, n, path, NULL, "expected a positive duration, got %s",
			      check_found(l, n));
		return false;
	}
	return true;
}

bool check_size(struct loader *l, const struct ynode *n, const char *path, uint64_t *out)
{
	struct err e = ERR_INIT;

	if (n->kind != YNODE_SCALAR || units_size(n->text, out, &e) < 0) {
		check_problem(l, n, path, "units: B, bytes, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
			      "expected a byte size such as \"64MiB\", got %s%s%s%s",
			      check_found(l, n), *e.msg ? " (" : "", e.msg, *e.msg ? ")" : "");
		return false;
	}
	return true;
}

/* A percentage as a number (percent) or "N%" string, as a fraction. */
bool check_percent(struct loader *l, const struct ynode *n, const char *path, double max_pct,
		   double *out)
{
	struct err e = ERR_INIT;
	double f;

	if (n->kind != YNODE_SCALAR || ynode_type(n) == YSCALAR_NULL ||
	    ynode_type(n) == YSCALAR_BOOL || units_percent(n->text, &f, &e) < 0 || f < 0 ||
	    f > max_pct / 100.0) {
		check_problem(l, n, path, NULL,
			      "expected a percentage from 0 to %g (a number or \"N%%\"), got %s",
			      max_pct, check_found(l, n));
		return false;
	}
	*out = f;
	return true;
}

bool check_is_name(const char *s)
{
	size_t i;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	      (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 1; s[i]; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

bool check_is_env_name(const char *s)
{
	size_t i;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (i = 1; s[i]; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

bool check_is_section(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* ---- templates and paths ---- */

static unsigned allowed_vars(const struct loader *l, bool in_build)
{
	unsigned v = VARS_ALL;

	if (in_build)
		v &= ~(unsigned)VAR_WORKDIR;
	if (!l->has_build)
		v &= ~(unsigned)VAR_ARTIFACT;
	return v;
}

/* The variables a template may name here, for a hint. */
static const char *template_hint(struct loader *l)
{
	struct strbuf sb;
	const char *hint;
	size_t i;

	if (!l->params || !l->params->n)
		return "variables are ${artifact} ${root} ${head_root} ${workdir} ${exe} "
		       "${env:NAME}; write $${ for a literal ${";
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "variables are ${artifact} ${root} ${head_root} ${workdir} ${exe} "
			 "${env:NAME} and the benchmark's parameters");
	for (i = 0; i < l->params->n; i++)
		strbuf_addf(&sb, " ${%s}", l->params->names[i]);
	hint = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return hint;
}

const char *check_template(struct loader *l, const struct ynode *n, const char *path,
			   const char *tpl, bool in_build, bool shell)
{
	struct err e = ERR_INIT;
	struct strbuf sb;
	size_t off = 0;
	unsigned u = 0;
	const char *hint, *out;

	if (vars_check_params(tpl, allowed_vars(l, in_build), l->params, &u, &off, &e) < 0) {
		hint = template_hint(l);
		if (strstr(e.msg, "${workdir}") && in_build)
			hint = "the build runs once per revision, before any benchmark has a "
			       "workdir";
		else if (strstr(e.msg, "${artifact}"))
			hint = "${artifact} is the output of `build:`; add a build step or drop "
			       "the variable";
		check_problem_in(l, n, off, path, hint, "%s", e.msg);
		return NULL;
	}
	if (shell && vars_check_shell(tpl, &off, &e) < 0) {
		check_problem_in(l, n, off, path,
				 "himorime quotes substituted values itself; remove the quotes "
				 "around the variable",
				 "%s", e.msg);
		return NULL;
	}
	if (!(u & VAR_PARAM))
		return tpl;
	strbuf_init(&sb, 0);
	vars_substitute(tpl, l->params, shell, &sb);
	out = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return out;
}

/* Lexically resolves `rel`; returns false when ".." climbs above `limit`
 * levels over its start. */
static bool stays_within(const char *rel, int limit)
{
	int depth = 0;
	const char *p = rel;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (--depth < -limit)
				return false;
		} else if (n && !(n == 1 && *p == '.')) {
			depth++;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

bool check_path(struct loader *l, const struct ynode *n, const char *path, const char *p,
		enum path_mode mode)
{
	bool in_workdir = mode == PATH_WORKDIR;
	const char *rest = p;

	if (!*p) {
		check_problem(l, n, path, NULL, "expected a path, got \"\"");
		return false;
	}
	if (p[0] == '/' || p[0] == '~') {
		check_problem(l, n, path,
			      mode == PATH_WORKDIR ? "the path is relative to ${workdir}"
			      : mode == PATH_SUITE
				      ? "the path is relative to the suite file"
				      : "use a path relative to ${root}, the suite's directory",
			      "expected a relative path, got %s", check_found(l, n));
		return false;
	}
	if (mode == PATH_SUITE && strstr(p, "${")) {
		check_problem(l, n, path, NULL, "expected a path without variables, got %s",
			      check_found(l, n));
		return false;
	}
	if (!strncmp(p, "${root}", 7)) {
		rest = p + 7;
	} else if (!strncmp(p, "${head_root}", 12)) {
		rest = p + 12;
	} else if (!strncmp(p, "${workdir}", 10)) {
		rest = p + 10;
		in_workdir = true;
	} else if (!strncmp(p, "${", 2)) {
		return true; /* ${env:...}, ${artifact}: checked when expanded */
	}
	while (*rest == '/')
		rest++;
	if (mode == PATH_SUITE && !stays_within(rest, 0)) {
		check_problem(l, n, path, NULL,
			      "expected a path inside the suite's directory, got %s",
			      check_found(l, n));
		return false;
	}
	if (in_workdir && !stays_within(rest, 0)) {
		check_problem(l, n, path, "\"..\" may not leave ${workdir}",
			      "expected a path inside ${workdir}, got %s", check_found(l, n));
		return false;
	}
	if (!in_workdir && !stays_within(rest, l->project_depth)) {
		check_problem(
			l, n, path,
			"\"..\" may not leave the project (the nearest folder with .git above the "
			"suite, else the suite's folder)",
			"expected a path inside the project, got %s", check_found(l, n));
		return false;
	}
	return true;
}
