/*
 * Cases of a benchmark (docs/configuration.md, "Parameters"): `parameters:`
 * and `exclude:` are read with their positions, expanded by params.c, and
 * the benchmark is read once per case with the case's values bound to
 * ${name} (check_template substitutes them), its label as its name, and the
 * `cases:` entries that select it laid over its regression settings and its
 * commands' budgets. Part of the suite loader: see loader.h.
 */
#include "suite/loader.h"

#include "common/alloc.h"
#include "suite/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The names a parameter may not take: himorime's own variables. */
static bool reserved_name(struct loader *l, const struct ynode *k, const char *path)
{
	if (!vars_is_builtin(k->text))
		return false;
	check_problem(l, k, path, "choose another name",
		      "a parameter cannot be named \"%s\": ${%s} is himorime's own", k->text,
		      k->text);
	return true;
}

/* A value as its label shows it: a string or a number, as written. */
static const char *value_text(struct loader *l, const struct ynode *v, const char *path)
{
	struct err e = ERR_INIT;
	enum yscalar_type t;

	if (v->kind != YNODE_SCALAR ||
	    ((t = ynode_type(v)) != YSCALAR_STR && t != YSCALAR_INT && t != YSCALAR_FLOAT)) {
		check_problem(l, v, path, NULL, "expected a string or a number, got %s",
			      check_found(l, v));
		return NULL;
	}
	if (params_check_value(v->text, &e) < 0) {
		check_problem(l, v, path, NULL, "%s, got %s", e.msg, check_found(l, v));
		return NULL;
	}
	return v->text;
}

/* One parameter's list of values, each once. */
static bool read_values(struct loader *l, const struct ynode *k, const struct ynode *v,
			const char *path, struct param *p)
{
	const char **vals;
	size_t i, j;

	if (!check_seq(l, v, path, "a list of values"))
		return false;
	if (!v->count) {
		check_problem(l, v, path, NULL, "parameter \"%s\" has no values", k->text);
		return false;
	}
	vals = arena_array(l->a, v->count, sizeof(*vals));
	for (i = 0; i < v->count; i++) {
		const char *ip = check_index(l, path, i);
		if (!(vals[i] = value_text(l, v->items[i], ip)))
			return false;
		for (j = 0; j < i; j++)
			if (!strcmp(vals[i], vals[j])) {
				check_problem(l, v->items[i], ip, NULL,
					      "parameter \"%s\" has the value \"%s\" twice (first "
					      "at %u:%u)",
					      k->text, vals[i], v->items[j]->line,
					      v->items[j]->column);
				return false;
			}
	}
	p->name = k->text;
	p->values = vals;
	p->n = v->count;
	return true;
}

/* `parameters:`: a map of name to a list of values. */
static bool read_parameters(struct loader *l, const struct ynode *v, const char *path,
			    struct case_spec *spec)
{
	bool ok = true;
	size_t i;

	if (!check_map(l, v, path, "a map of name: [values]"))
		return false;
	if (!v->count) {
		check_problem(l, v, path, NULL, "expected at least one parameter, got none");
		return false;
	}
	for (i = 0; i < v->count; i++) {
		const struct ynode *k = v->keys[i];
		const char *p = check_child(l, path, k->text);
		struct err e = ERR_INIT;
		if (params_check_name(k->text, &e) < 0) {
			check_problem(l, k, p, NULL, "%s", e.msg);
			ok = false;
			continue;
		}
		if (reserved_name(l, k, p)) {
			ok = false;
			continue;
		}
		if (!strcmp(k->text, "size")) {
			check_problem(l, k, p, "list the sizes under sizes: [1k, 10k, ...]",
				      "a parameter cannot be named \"size\": sizes: declares it");
			ok = false;
			continue;
		}
		if (!read_values(l, k, v->items[i], p, &spec->params[spec->n])) {
			/* still a name ${...} may use; the benchmark is read once */
			static const char *const placeholder[] = { "0" };
			spec->params[spec->n].name = k->text;
			spec->params[spec->n].values = placeholder;
			spec->params[spec->n].n = 1;
			ok = false;
		}
		spec->n++;
	}
	return ok;
}

/* A size: a count such as 64k (units_count), greater than 0. */
static bool read_count(struct loader *l, const struct ynode *v, const char *path, const char **text,
		       double *count)
{
	struct err e = ERR_INIT;

	if (v->kind != YNODE_SCALAR ||
	    (ynode_type(v) != YSCALAR_STR && ynode_type(v) != YSCALAR_INT &&
	     ynode_type(v) != YSCALAR_FLOAT)) {
		check_problem(
			l, v, path, NULL,
			"expected a size such as 1k, 64k or 1M, or {value: 1M, compare: false}, "
			"got %s",
			check_found(l, v));
		return false;
	}
	if (units_count(v->text, count, &e) < 0 || !(*count > 0)) {
		check_problem(l, v, path, "sizes are counts: 100, 64k, 1.5M, 2G (10^3, 10^6, 10^9)",
			      "expected a size greater than 0 such as 1k, 64k or 1M, got %s%s%s%s",
			      check_found(l, v), *e.msg ? " (" : "", e.msg, *e.msg ? ")" : "");
		return false;
	}
	*text = v->text;
	return true;
}

/* A size, or {value: size, compare: false} for one that run and sweep
 * measure and comparisons leave out (docs/configuration.md, "Sizes"). */
static bool read_size(struct loader *l, const struct ynode *v, const char *path, const char **text,
		      double *count, bool *no_compare)
{
	const struct ynode *value, *cmp;
	bool compare = true;

	*no_compare = false;
	if (v->kind != YNODE_MAP)
		return read_count(l, v, path, text, count);
	check_keys(l, v, path, (const char *const[]){ "value", "compare", NULL }, path);
	if (!(value = ynode_get(v, "value"))) {
		check_problem(l, v, path, NULL, "expected a map with value, got no value");
		return false;
	}
	if ((cmp = ynode_get(v, "compare")) &&
	    !check_bool(l, cmp, check_child(l, path, "compare"), &compare))
		return false;
	*no_compare = !compare;
	return read_count(l, value, check_child(l, path, "value"), text, count);
}

/* `sizes:`: the parameter "size", last; ${size} is the count in digits. */
static bool read_size_list(struct loader *l, const struct ynode *v, const char *path,
			   struct case_spec *spec)
{
	struct param *p = &spec->params[spec->n];
	const char **text, **digits;
	double *counts;
	bool *no_compare;
	size_t i, j;

	if (!check_seq(l, v, path, "a list of sizes such as [1k, 10k, 100k]"))
		return false;
	if (!v->count) {
		check_problem(l, v, path, NULL, "expected at least one size, got []");
		return false;
	}
	text = arena_array(l->a, v->count, sizeof(*text));
	digits = arena_array(l->a, v->count, sizeof(*digits));
	counts = arena_array(l->a, v->count, sizeof(*counts));
	no_compare = arena_array(l->a, v->count, sizeof(*no_compare));
	for (i = 0; i < v->count; i++) {
		const char *ip = check_index(l, path, i);
		if (!read_size(l, v->items[i], ip, &text[i], &counts[i], &no_compare[i]))
			return false;
		for (j = 0; j < i; j++)
			if (counts[j] == counts[i]) {
				check_problem(l, v->items[i], ip, NULL,
					      "the size %s twice (first at %u:%u)", text[i],
					      v->items[j]->line, v->items[j]->column);
				return false;
			}
		digits[i] = arena_printf(l->a, "%.15g", counts[i]);
	}
	p->name = "size";
	p->values = text;
	p->n = v->count;
	spec->size_param = spec->n++;
	spec->size_counts = counts;
	spec->size_digits = digits;
	spec->size_no_compare = no_compare;
	return true;
}

static bool read_sizes(struct loader *l, const struct ynode *v, const char *path,
		       struct case_spec *spec)
{
	static const char *const placeholder[] = { "1" };

	if (read_size_list(l, v, path, spec))
		return true;
	/* still a name ${size} may use; the benchmark is read once */
	spec->params[spec->n].name = "size";
	spec->params[spec->n].values = placeholder;
	spec->params[spec->n++].n = 1;
	return false;
}

/* `long_run:`: one of the sizes, written in any way that gives its count
 * ("64k" or 64000). */
static bool read_long_run(struct loader *l, const struct ynode *v, const char *path,
			  struct case_spec *spec)
{
	const struct param *p = &spec->params[spec->size_param];
	const char *text;
	double count;
	size_t i;

	if (!read_count(l, v, path, &text, &count))
		return false;
	for (i = 0; i < p->n; i++)
		if (spec->size_counts[i] == count) {
			spec->long_run = i;
			return true;
		}
	{
		struct strbuf sb = STRBUF_INIT;
		for (i = 0; i < p->n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", p->values[i]);
		check_problem(l, v, path, arena_printf(l->a, "the sizes are %s", sb.buf),
			      "expected one of the benchmark's sizes, got %s", check_found(l, v));
		strbuf_release(&sb);
	}
	return false;
}

/* The index of parameter `name`, or spec->n. */
static size_t find_param(const struct case_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < spec->n; i++)
		if (!strcmp(spec->params[i].name, name))
			break;
	return i;
}

/* The names of the parameters, for hints. */
static const char *param_names(struct loader *l, const struct case_spec *spec)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s;
	size_t i;

	strbuf_adds(&sb, "the parameters are ");
	for (i = 0; i < spec->n; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", spec->params[i].name);
	s = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return s;
}

/* A name=value pair of an exclusion or a `cases:` selector: the index of
 * the value among the parameter's, or PARAMS_ANY (problem recorded at n). */
static size_t find_pair(struct loader *l, const struct ynode *n, const char *path,
			const struct case_spec *spec, const char *name, const char *value,
			size_t *param)
{
	size_t v;

	*param = find_param(spec, name);
	if (*param == spec->n) {
		check_problem(l, n, path, param_names(l, spec), "unknown parameter \"%s\"", name);
		return PARAMS_ANY;
	}
	v = params_find_value(&spec->params[*param], value);
	if (v == PARAMS_ANY)
		check_problem(l, n, path, NULL, "parameter \"%s\" has no value \"%s\"", name,
			      value);
	return v;
}

/* One exclusion: a map of some parameters to one of their values. */
static size_t *read_exclusion(struct loader *l, const struct ynode *x, const char *path,
			      const struct case_spec *spec)
{
	size_t *idx, i, p;

	if (!check_map(l, x, path, "a map of name: value"))
		return NULL;
	if (!x->count) {
		check_problem(l, x, path, NULL, "expected at least one name: value, got {}");
		return NULL;
	}
	idx = arena_array(l->a, spec->n ? spec->n : 1, sizeof(*idx));
	for (i = 0; i < spec->n; i++)
		idx[i] = PARAMS_ANY;
	for (i = 0; i < x->count; i++) {
		const char *kp = check_child(l, path, x->keys[i]->text), *vt;
		size_t v;
		if (find_param(spec, x->keys[i]->text) == spec->n) {
			check_problem(l, x->keys[i], kp, param_names(l, spec),
				      "unknown parameter \"%s\"", x->keys[i]->text);
			return NULL;
		}
		if (!(vt = value_text(l, x->items[i], kp)))
			return NULL;
		v = find_pair(l, x->items[i], kp, spec, x->keys[i]->text, vt, &p);
		if (v == PARAMS_ANY)
			return NULL;
		idx[p] = v;
	}
	return idx;
}

static bool read_exclude(struct loader *l, const struct ynode *v, const char *path,
			 struct case_spec *spec)
{
	size_t i;
	bool ok = true;

	if (!check_seq(l, v, path, "a list of maps of name: value"))
		return false;
	spec->exclusions = arena_array(l->a, v->count ? v->count : 1, sizeof(*spec->exclusions));
	for (i = 0; i < v->count; i++) {
		size_t *x = read_exclusion(l, v->items[i], check_index(l, path, i), spec);
		if (x)
			spec->exclusions[spec->n_exclusions++] = x;
		else
			ok = false;
	}
	return ok;
}

/* One `cases:` entry: its selector checked against the parameters. */
static bool read_override(struct loader *l, const struct ynode *k, const struct ynode *v,
			  const char *path, const struct case_spec *spec, struct case_override *o)
{
	struct err e = ERR_INIT;
	size_t i, p;
	bool ok = true;

	if (params_selector_parse(k->text, &o->sel, &e) < 0 || *o->sel.base) {
		check_problem(l, k, path, "a case's selector is [name=value,...]",
			      "expected a case selector such as \"[%s=%s]\", got \"%s\"%s%s%s",
			      spec->params[0].name, spec->params[0].values[0], k->text,
			      *e.msg ? " (" : "", e.msg, *e.msg ? ")" : "");
		params_selector_release(&o->sel);
		return false;
	}
	for (i = 0; i < o->sel.n && ok; i++)
		ok = find_pair(l, k, path, spec, o->sel.pairs[i].name, o->sel.pairs[i].value, &p) !=
		     PARAMS_ANY;
	if (ok && check_map(l, v, path, "a map of regression, budget")) {
		check_keys(l, v, path, (const char *const[]){ "regression", "budget", NULL }, path);
		o->node = v;
		o->path = path;
		return true;
	}
	params_selector_release(&o->sel);
	return false;
}

static void read_overrides(struct loader *l, const struct ynode *v, const char *path,
			   struct case_spec *spec)
{
	size_t i;

	if (!check_map(l, v, path, "a map of \"[name=value]\": settings"))
		return;
	spec->overrides = xcalloc(v->count ? v->count : 1, sizeof(*spec->overrides));
	for (i = 0; i < v->count; i++)
		if (read_override(l, v->keys[i], v->items[i],
				  check_child(l, path, v->keys[i]->text), spec,
				  &spec->overrides[spec->n_overrides]))
			spec->n_overrides++;
}

/* The product, within the limits of one benchmark and of the suite. */
static bool expand(struct loader *l, const struct ynode *pn, const struct ynode *xn,
		   const char *path, struct case_spec *spec)
{
	struct err e = ERR_INIT;

	if (params_expand(spec->params, spec->n, (const size_t *const *)spec->exclusions,
			  spec->n_exclusions, PARAMS_MAX_CASES, &spec->e, &e) < 0) {
		bool on_exclude = xn && !strstr(e.msg, "more than");
		check_problem(l, on_exclude ? xn : pn,
			      on_exclude ? check_child(l, path, "exclude")
					 : check_child(l, path, "parameters"),
			      NULL, "%s", e.msg);
		return false;
	}
	l->total_cases += spec->e.count;
	if (l->total_cases > SUITE_MAX_CASES) {
		check_problem(l, pn, check_child(l, path, "parameters"), NULL,
			      "more than %d cases in one suite file (a limit)", SUITE_MAX_CASES);
		return false;
	}
	return true;
}

size_t cases_read(struct loader *l, const struct ynode *n, const char *path, struct case_spec *spec)
{
	const struct ynode *pn = NULL, *sn = NULL, *xn = NULL, *cn = NULL, *ln = NULL;
	bool ok = true;

	memset(spec, 0, sizeof(*spec));
	spec->size_param = SIZE_MAX;
	spec->long_run = SIZE_MAX;
	if (n->kind == YNODE_MAP) {
		pn = ynode_get(n, "parameters");
		sn = ynode_get(n, "sizes");
		xn = ynode_get(n, "exclude");
		cn = ynode_get(n, "cases");
		ln = ynode_get(n, "long_run");
	}
	if (ln && !sn)
		check_problem(l, ln, check_child(l, path, "long_run"), "declare sizes: first",
			      "long_run without sizes");
	if (!pn && !sn) {
		if (xn)
			check_problem(l, xn, check_child(l, path, "exclude"),
				      "declare parameters: or sizes: first",
				      "exclude without parameters");
		if (cn)
			check_problem(l, cn, check_child(l, path, "cases"),
				      "declare parameters: or sizes: first",
				      "cases without parameters");
		l->total_cases++;
		return 1;
	}
	spec->params = arena_array(l->a, (pn && pn->kind == YNODE_MAP ? pn->count : 0) + 2,
				   sizeof(*spec->params));
	if (pn)
		ok = read_parameters(l, pn, check_child(l, path, "parameters"), spec);
	if (sn)
		ok = read_sizes(l, sn, check_child(l, path, "sizes"), spec) && ok;
	if (ln && spec->size_param != SIZE_MAX && spec->size_counts)
		read_long_run(l, ln, check_child(l, path, "long_run"), spec);
	if (ok && xn)
		ok = read_exclude(l, xn, check_child(l, path, "exclude"), spec);
	else
		xn = NULL;
	if (spec->n && cn)
		read_overrides(l, cn, check_child(l, path, "cases"), spec);
	if (ok && expand(l, pn ? pn : sn, xn, path, spec))
		return spec->e.count;
	spec->failed = true;
	return 1;
}

void cases_release(struct case_spec *spec)
{
	size_t i;

	for (i = 0; i < spec->n_overrides; i++)
		params_selector_release(&spec->overrides[i].sel);
	free(spec->overrides);
	params_expansion_release(&spec->e);
	memset(spec, 0, sizeof(*spec));
}

/* Binds case c's values (or, when the parameters could not be expanded,
 * each parameter's first value, so that the rest of the benchmark is still
 * checked) and picks the `cases:` entries that select it. */
static void bind(struct loader *l, const struct case_spec *spec, size_t c, struct case_ctx *cx)
{
	const char **names = arena_array(l->a, spec->n + 1, sizeof(*names));
	const char **values = arena_array(l->a, spec->n + 1, sizeof(*values));
	struct params_value *pv = arena_array(l->a, spec->n + 1, sizeof(*pv));
	const struct case_override **over;
	size_t p, i;

	for (p = 0; p < spec->n; p++) {
		size_t v = spec->failed ? 0 : spec->e.index[c * spec->n + p];
		names[p] = pv[p].name = spec->params[p].name;
		values[p] = pv[p].value = spec->params[p].values[v];
		if (p == spec->size_param && !spec->failed)
			values[p] = spec->size_digits[v];
	}
	cx->vp.names = names;
	cx->vp.values = values;
	cx->vp.n = spec->n;
	cx->values = pv;
	cx->repeat = c > 0;
	over = arena_array(l->a, spec->n_overrides + 1, sizeof(*over));
	cx->n_over = 0;
	for (i = 0; i < spec->n_overrides; i++)
		if (!spec->failed &&
		    params_selector_matches(&spec->overrides[i].sel, "", pv, spec->n))
			over[cx->n_over++] = &spec->overrides[i];
	cx->over = over;
}

bool cases_parse(struct loader *l, const struct ynode *n, const char *path,
		 const struct layer *defaults, const struct case_spec *spec, size_t c,
		 struct benchmark *b)
{
	struct case_ctx cx;
	struct strbuf sb = STRBUF_INIT;
	size_t before = l->problems;

	memset(&cx, 0, sizeof(cx));
	if (spec->n)
		bind(l, spec, c, &cx);
	l->params = spec->n ? &cx.vp : NULL;
	l->case_ctx = spec->n ? &cx : NULL;
	parse_benchmark(l, n, path, defaults, b);
	l->params = NULL;
	l->case_ctx = NULL;
	b->base_name = b->name;
	if (!spec->n || !b->name || spec->failed)
		return l->problems == before;
	params_label(b->name, spec->params, &spec->e, c, &sb);
	b->name = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	b->params = cx.values;
	b->param_count = spec->n;
	if (spec->size_param != SIZE_MAX) {
		size_t v = spec->e.index[c * spec->n + spec->size_param];
		b->has_size = true;
		b->size = spec->size_counts[v];
		b->no_compare = spec->size_no_compare[v];
		b->long_run = v == spec->long_run;
	}
	return l->problems == before;
}

/* ---- the overrides, applied by parse_benchmark ---- */

void cases_apply_regression(struct loader *l, struct benchmark *b)
{
	size_t i;

	for (i = 0; l->case_ctx && i < l->case_ctx->n_over; i++) {
		const struct case_override *o = l->case_ctx->over[i];
		const struct ynode *v = ynode_get(o->node, "regression");
		struct layer ly;
		if (!v)
			continue;
		memset(&ly, 0, sizeof(ly));
		parse_setting(l, "regression", v, check_child(l, o->path, "regression"), false,
			      &ly);
		layer_regression(&b->regression, &ly.reg);
	}
}

static void merge_growth_budgets(struct loader *l, struct command *c, const struct command *add)
{
	struct growth_budget *v;
	size_t i, j, n = 0;

	if (!add->growth_budget_count)
		return;
	v = arena_array(l->a, c->growth_budget_count + add->growth_budget_count, sizeof(*v));
	for (i = 0; i < c->growth_budget_count; i++) {
		for (j = 0; j < add->growth_budget_count; j++)
			if (add->growth_budgets[j].metric == c->growth_budgets[i].metric)
				break;
		if (j == add->growth_budget_count)
			v[n++] = c->growth_budgets[i];
	}
	for (j = 0; j < add->growth_budget_count; j++)
		v[n++] = add->growth_budgets[j];
	c->growth_budgets = v;
	c->growth_budget_count = n;
}

/* c's budgets with those of `add` in place of c's on the same metrics. */
static void merge_budgets(struct loader *l, struct command *c, const struct command *add)
{
	struct budget *v = arena_array(l->a, c->budget_count + add->budget_count + 1, sizeof(*v));
	size_t i, j, n = 0;

	for (i = 0; i < c->budget_count; i++) {
		for (j = 0; j < add->budget_count; j++)
			if (add->budgets[j].metric == c->budgets[i].metric)
				break;
		if (j == add->budget_count)
			v[n++] = c->budgets[i];
	}
	for (j = 0; j < add->budget_count; j++)
		v[n++] = add->budgets[j];
	c->budgets = v;
	c->budget_count = n;
	merge_growth_budgets(l, c, add);
}

/* One entry's `budget:`, a map of command name to the command's budgets. */
static void apply_budget(struct loader *l, const struct ynode *v, const char *path,
			 struct benchmark *b)
{
	size_t i, k;

	if (!check_map(l, v, path, "a map of COMMAND: budgets"))
		return;
	for (i = 0; i < v->count; i++) {
		const char *p = check_child(l, path, v->keys[i]->text);
		struct command add;
		for (k = 0; k < b->command_count; k++)
			if (!strcmp(b->commands[k].name, v->keys[i]->text))
				break;
		if (k == b->command_count) {
			if (b->commands)
				check_problem(l, v->keys[i], p, NULL,
					      "expected the name of one of the benchmark's "
					      "commands, got \"%s\"",
					      v->keys[i]->text);
			continue;
		}
		memset(&add, 0, sizeof(add));
		add.metrics = b->commands[k].metrics; /* what the command measures */
		parse_budgets(l, v->items[i], p, b, &add);
		/* the loader owns the commands it made */
		merge_budgets(l, (struct command *)&b->commands[k], &add);
	}
}

void cases_apply_budgets(struct loader *l, struct benchmark *b)
{
	size_t i;

	for (i = 0; l->case_ctx && i < l->case_ctx->n_over; i++) {
		const struct case_override *o = l->case_ctx->over[i];
		const struct ynode *v = ynode_get(o->node, "budget");
		if (v)
			apply_budget(l, v, check_child(l, o->path, "budget"), b);
	}
}
