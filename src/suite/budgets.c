/*
 * Budgets (docs/configuration.md, "Budgets"): `metric: {aggregation: bound}`
 * under a command, each bound an operator and a limit in the metric's unit.
 * Part of the suite loader: see loader.h.
 */
#include "suite/loader.h"

#include "suite/units.h"

#include <string.h>

#include "common/banned.h"

static bool parse_aggregation(struct loader *l, const struct ynode *k, const char *path,
			      struct aggregation *a)
{
	struct err e = ERR_INIT;

	/* min, max, mean, median; percentiles have the suite's own rules */
	if (!aggregation_from_name(k->text, a) && a->kind != AGG_PERCENTILE)
		return true;
	if (units_percentile(k->text, &a->percentile, &e) < 0) {
		check_problem(l, k, path, "aggregations are min, max, mean, median and p1 to p99.9",
			      "expected an aggregation, got \"%s\"%s%s%s", k->text,
			      k->text[0] == 'p' ? " (" : "", k->text[0] == 'p' ? e.msg : "",
			      k->text[0] == 'p' ? ")" : "");
		return false;
	}
	a->kind = AGG_PERCENTILE;
	return true;
}

/* Past the bound operator that starts s (the longest: "<=" before "<"), with
 * *op set; NULL when s starts with none. */
static const char *skip_bound_op(const char *s, enum bound_op *op)
{
	size_t n, i, best = 0;
	const char *const *names = vocab_names(VOCAB_BOUND_OP, &n);

	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (len > best && !strncmp(s, names[i], len)) {
			best = len;
			*op = (enum bound_op)i;
		}
	}
	return best ? s + best : NULL;
}

/* The operator at the start of v's text, which must suit the metric's better
 * direction (an upper bound where lower is better, a floor for throughput).
 * Returns the text after it, or NULL (problem recorded). */
static const char *parse_bound_op(struct loader *l, const struct ynode *v, const char *path,
				  const struct metric_info *mi, enum bound_op *op)
{
	const char *s = v->text, *rest;

	while (*s == ' ')
		s++;
	rest = skip_bound_op(s, op);
	if (!rest) {
		check_problem(l, v, path, "a bound starts with <, <=, > or >=",
			      "expected a bound such as \"<= 50ms\", got %s", check_found(l, v));
		return NULL;
	}
	while (*rest == ' ')
		rest++;
	if (mi->better == BETTER_LOWER && (*op == BOUND_GT || *op == BOUND_GE)) {
		check_problem(l, v, path, "lower is better for this metric: use < or <=",
			      "expected an upper bound (< or <=) for %s, got %s", mi->name,
			      check_found(l, v));
		return NULL;
	}
	if (mi->better == BETTER_HIGHER && (*op == BOUND_LT || *op == BOUND_LE)) {
		check_problem(l, v, path, "throughput budgets are floors: use > or >=",
			      "expected a lower bound (> or >=) for %s, got %s", mi->name,
			      check_found(l, v));
		return NULL;
	}
	return rest;
}

/* A throughput limit: a rate, converted to the unit of the declared work
 * (*limit stays as it was when there is none). */
static bool parse_rate_limit(struct loader *l, const struct ynode *v, const char *path,
			     const char *text, const struct work *w, double *limit)
{
	struct err e = ERR_INIT;
	struct rate r;

	if (units_rate(text, &r, &e) < 0) {
		check_problem(l, v, path, NULL,
			      "expected a rate such as \">= 50MiB/s\", got %s (%s)",
			      check_found(l, v), e.msg);
		return false;
	}
	if (w->kind != WORK_NONE && units_rate_in(&r, w->unit, limit, &e) < 0) {
		check_problem(l, v, path, "write the rate in the unit of metrics.throughput.work",
			      "%s", e.msg);
		return false;
	}
	return true;
}

/* The limit after the operator, in the metric's canonical unit. */
static bool parse_limit(struct loader *l, const struct ynode *v, const char *path,
			enum metric_unit unit, const char *text, const struct work *w,
			double *limit)
{
	struct err e = ERR_INIT;
	uint64_t u;
	double f;

	switch (unit) {
	case UNIT_NS:
		if (units_duration(text, &u, &e) < 0) {
			check_problem(l, v, path, NULL,
				      "expected a duration after the operator, got %s (%s)",
				      check_found(l, v), e.msg);
			return false;
		}
		*limit = (double)u;
		return true;
	case UNIT_BYTES:
		if (units_size(text, &u, &e) < 0) {
			check_problem(l, v, path,
				      "units: B, bytes, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
				      "expected a byte size after the operator, got %s (%s)",
				      check_found(l, v), e.msg);
			return false;
		}
		*limit = (double)u;
		return true;
	case UNIT_PERCENT:
		if (units_percent(text, &f, &e) < 0) {
			check_problem(l, v, path, NULL,
				      "expected a percentage after the operator, got %s",
				      check_found(l, v));
			return false;
		}
		*limit = f * 100.0;
		return true;
	case UNIT_WORK_PER_S:
		return parse_rate_limit(l, v, path, text, w, limit);
	case UNIT_COUNT: /* counts: parse_count_limit() */
		break;
	}
	return false;
}

/* A count's limit: "2M", "64k", "1500" (k, M, G: 10^3, 10^6, 10^9) or, for
 * a size, also a byte size ("1.5MiB"). */
static bool parse_count_limit(struct loader *l, const struct ynode *v, const char *path,
			      enum metric_unit unit, const char *text, double *limit)
{
	struct err e = ERR_INIT;
	uint64_t u;

	if (unit == UNIT_BYTES && units_size(text, &u, &e) == 0) {
		*limit = (double)u;
		return true;
	}
	err_clear(&e);
	if (units_count(text, limit, &e) < 0) {
		check_problem(l, v, path,
			      unit == UNIT_BYTES
				      ? "write a count with k, M or G (10^3, 10^6, 10^9) "
					"or a byte size such as 1.5MiB"
				      : "write a count with k, M or G (10^3, 10^6, 10^9)",
			      "expected a count after the operator, got %s (%s)", check_found(l, v),
			      e.msg);
		return false;
	}
	return true;
}

/* A bound such as "<= 50ms": operator, then a limit greater than 0. */
static bool parse_bound(struct loader *l, const struct ynode *v, const char *path, enum metric m,
			const struct work *w, struct budget *b)
{
	const struct metric_info *mi = metric_info(m);
	const char *rest;
	double limit = 0;

	if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR) {
		check_problem(l, v, path, "quote the bound: \"<= 50ms\"",
			      "expected a bound such as \"<= 50ms\", got %s", check_found(l, v));
		return false;
	}
	rest = parse_bound_op(l, v, path, mi, &b->op);
	if (!rest || !(mi->counted ? parse_count_limit(l, v, path, mi->unit, rest, &limit)
				   : parse_limit(l, v, path, mi->unit, rest, w, &limit)))
		return false;
	if (!(limit > 0)) {
		check_problem(l, v, path, NULL, "expected a limit greater than 0, got %s",
			      check_found(l, v));
		return false;
	}
	b->limit = limit;
	b->text = v->text;
	b->pos.line = v->line;
	b->pos.column = v->column;
	return true;
}

/* Whether the case being read has sizes. */
static bool has_sizes(const struct loader *l)
{
	size_t i;

	for (i = 0; l->params && i < l->params->n; i++)
		if (!strcmp(l->params->names[i], "size"))
			return true;
	return false;
}

/* `exponent: "<= 1.2"`: a bound on the growth exponent (docs/configuration.md,
 * "Sizes"). Returns false with a problem recorded. */
static bool parse_exponent_budget(struct loader *l, const struct ynode *k, const struct ynode *v,
				  const char *path, enum metric m, struct growth_budget *g)
{
	struct err e = ERR_INIT;
	const char *rest;

	if (m != METRIC_LATENCY && m != METRIC_CPU_TOTAL && m != METRIC_PEAK_RSS) {
		check_problem(l, k, path, NULL,
			      "an exponent budget is on latency, cpu_total or peak_rss, not %s",
			      metric_info(m)->name);
		return false;
	}
	if (!has_sizes(l)) {
		check_problem(l, k, path, "declare sizes: [1k, 10k, ...] in the benchmark",
			      "an exponent budget needs the benchmark's sizes");
		return false;
	}
	if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR) {
		check_problem(l, v, path, "quote the bound: \"<= 1.2\"",
			      "expected a bound such as \"<= 1.2\", got %s", check_found(l, v));
		return false;
	}
	rest = parse_bound_op(l, v, path, metric_info(m), &g->op);
	if (!rest)
		return false;
	if (units_number(rest, &g->limit, &e) < 0) {
		check_problem(l, v, path, NULL, "expected a number after the operator, got %s (%s)",
			      check_found(l, v), e.msg);
		return false;
	}
	g->metric = m;
	g->text = v->text;
	g->pos.line = v->line;
	g->pos.column = v->column;
	return true;
}

/* A budget on a metric the command does not measure: a count can be asked
 * for by the command itself, a timed metric only by its benchmark
 * (docs/configuration.md, "Metrics"). */
static void unmeasured(struct loader *l, const struct ynode *mk, const char *mp, enum metric m)
{
	const char *hint = metric_switch_hint(m);

	/* a count may be asked by one command; the timed metrics are the
	 * benchmark's */
	check_problem(l, mk, mp, hint ? hint : "set metrics.cpu: true",
		      metric_info(m)->counted
			      ? "a budget on %s, which the command does not measure"
			      : "a budget on %s, which the benchmark does not measure",
		      mk->text);
}

/* A bound with the case's parameters substituted: "<= ${limit}" in the case
 * limit=20ms reads as "<= 20ms" (docs/configuration.md, "Parameters"), at
 * the bound's place; only parameters (and ${size}) may appear. Returns v
 * itself when it names none, `copy` holding the substituted text otherwise,
 * or NULL with a problem recorded. */
static const struct ynode *substitute(struct loader *l, const struct ynode *v, const char *path,
				      struct ynode *copy)
{
	struct err e = ERR_INIT;
	struct strbuf sb;
	unsigned used = 0;
	size_t off = 0;

	if (v->kind != YNODE_SCALAR || !v->text || !strstr(v->text, "${"))
		return v;
	if (vars_check_params(v->text, 0, l->params, &used, &off, &e) < 0) {
		check_problem_in(l, v, off, path,
				 l->params ? "a bound may name the benchmark's parameters (${size} "
					     "with sizes:)"
					   : "a bound may name parameters only in a benchmark with "
					     "parameters: or sizes:",
				 "%s", e.msg);
		return NULL;
	}
	if (!(used & VAR_PARAM))
		return v;
	strbuf_init(&sb, 0);
	vars_substitute(v->text, l->params, false, &sb);
	*copy = *v;
	copy->text = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return copy;
}

void parse_budgets(struct loader *l, const struct ynode *n, const char *path,
		   const struct benchmark *bm, struct command *c)
{
	struct growth_budget *gv;
	struct budget *v;
	size_t i, j, total = 0, count = 0;

	if (!check_map(l, n, path, "a map of metric: {aggregation: bound}"))
		return;
	for (i = 0; i < n->count; i++)
		total += n->items[i]->kind == YNODE_MAP ? n->items[i]->count : 0;
	v = arena_array(l->a, total ? total : 1, sizeof(*v));
	gv = arena_array(l->a, total ? total : 1, sizeof(*gv));
	for (i = 0; i < n->count; i++) {
		const struct ynode *mk = n->keys[i], *mv = n->items[i];
		const char *mp = check_child(l, path, mk->text);
		enum metric m;
		if (metric_from_name(mk->text, &m) < 0) {
			check_problem(
				l, mk, mp,
				"metrics are latency, throughput, cpu_user, cpu_system, cpu_total, "
				"cpu_utilization, peak_rss, artifact_size, instructions, "
				"allocations, "
				"allocated_bytes",
				"unknown metric \"%s\"", mk->text);
			continue;
		}
		if (!command_measures(c, m)) {
			unmeasured(l, mk, mp, m);
			continue;
		}
		if (!check_map(l, mv, mp, "a map of aggregation: bound"))
			continue;
		for (j = 0; j < mv->count; j++) {
			const char *ap = check_child(l, mp, mv->keys[j]->text);
			struct budget *b = &v[count];
			struct ynode copy;
			const struct ynode *bv = substitute(l, mv->items[j], ap, &copy);
			if (!bv)
				continue;
			if (!strcmp(mv->keys[j]->text, "exponent")) {
				if (parse_exponent_budget(l, mv->keys[j], bv, ap, m,
							  &gv[c->growth_budget_count]))
					c->growth_budget_count++;
				continue;
			}
			b->metric = m;
			if (parse_aggregation(l, mv->keys[j], ap, &b->aggregation) &&
			    parse_bound(l, bv, ap, m, &bm->metrics.work, b))
				count++;
		}
	}
	c->budgets = v;
	c->budget_count = count;
	c->growth_budgets = gv;
}
