/*
 * Sweep bookkeeping: see sweep.h.
 */
#include "history/sweep.h"

#include "common/alloc.h"
#include "common/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define MAX_SHARDS 1000

void sweep_hash(const void *data, size_t len, char out[SWEEP_HASH_HEX + 1])
{
	const unsigned char *p = data;
	uint64_t h = UINT64_C(14695981039346656037);
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(1099511628211);
	}
	snprintf(out, SWEEP_HASH_HEX + 1, "%016llx", (unsigned long long)h);
}

void sweep_settings_hash(const struct sweep_settings *s, char out[SWEEP_HASH_HEX + 1])
{
	struct strbuf sb;
	size_t i;

	/* A canonical text: every field named, so that no two settings give
	 * the same bytes. */
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "himorime-sweep-settings-1\n");
	if (s->has_runs)
		strbuf_addf(&sb, "runs=%u\n", s->runs);
	if (s->has_warmup)
		strbuf_addf(&sb, "warmup=%u\n", s->warmup);
	if (s->max_time_ns)
		strbuf_addf(&sb, "max_time_ns=%llu\n", (unsigned long long)s->max_time_ns);
	/* only when given: histories kept before it existed keep their hash */
	if (s->max_total_time_ns)
		strbuf_addf(&sb, "max_total_time_ns=%llu\n",
			    (unsigned long long)s->max_total_time_ns);
	for (i = 0; i < s->n_selected; i++)
		strbuf_addf(&sb, "benchmark=%s\n", s->selected[i]);
	/* only when given, as above; lengths first: a filter may hold '\n' */
	if (s->harness_filter)
		strbuf_addf(&sb, "harness_filter=%zu:%s,%zu:%s\n", strlen(s->harness_command),
			    s->harness_command, strlen(s->harness_filter), s->harness_filter);
	sweep_hash(sb.buf, sb.len, out);
	strbuf_release(&sb);
}

void sweep_entry_key(const char *suite_hash, const char *settings_hash, struct strbuf *out)
{
	strbuf_addf(out, "%s-%s", suite_hash, settings_hash);
}

static int parse_count(const char *s, const char *end, unsigned *out)
{
	unsigned long v = 0;

	if (s == end || end - s > 4 || *s == '0')
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v > MAX_SHARDS)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int sweep_shard_parse(const char *text, unsigned *k, unsigned *n, struct err *err)
{
	const char *slash = strchr(text, '/');

	if (!slash || parse_count(text, slash, k) < 0 ||
	    parse_count(slash + 1, slash + strlen(slash), n) < 0 || *k > *n)
		return err_set(err, ERR_USAGE,
			       "--shard \"%s\": expected K/N with 1 <= K <= N <= %d, such as 2/4",
			       text, MAX_SHARDS);
	return 0;
}

void sweep_shard_slice(size_t count, unsigned k, unsigned n, size_t *begin, size_t *end)
{
	*begin = count * (k - 1) / n;
	*end = count * k / n;
}

/* ---- merging -------------------------------------------------------------- */

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static int check_compatible(const struct results *a, const char *an, const struct results *b,
			    const char *bn, struct err *err)
{
	if (!same(a->sweep.reference, b->sweep.reference))
		return err_set(err, ERR_INVALID,
			       "%s and %s were measured against other references (%.12s, %.12s)",
			       an, bn, or_none(a->sweep.reference), or_none(b->sweep.reference));
	if (!same(a->sweep.settings_hash, b->sweep.settings_hash))
		return err_set(err, ERR_INVALID,
			       "%s and %s were measured with other settings (%s, %s)", an, bn,
			       or_none(a->sweep.settings_hash), or_none(b->sweep.settings_hash));
	if (!same(a->sweep.range, b->sweep.range) || a->sweep.commits != b->sweep.commits)
		return err_set(err, ERR_INVALID, "%s and %s are slices of other ranges (%s, %s)",
			       an, bn, or_none(a->sweep.range), or_none(b->sweep.range));
	return 0;
}

/* The suite hashes of a document, "name=hash" sorted, as one string. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *suite_set(const struct results *r)
{
	char **names = xcalloc(r->n_suites + 1, sizeof(*names));
	struct strbuf sb;
	size_t i, n = 0;

	for (i = 0; i < r->n_suites; i++) {
		const struct results_suite *s = &r->suites[i];
		char *item = xasprintf("%s=%s", or_none(s->name), or_none(s->commit.suite_hash));
		size_t j;
		for (j = 0; j < n && strcmp(names[j], item); j++)
			;
		if (j < n)
			free(item);
		else
			names[n++] = item;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	strbuf_init(&sb, 0);
	for (i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	return strbuf_detach(&sb, NULL);
}

static int by_commit_index(const void *a, const void *b)
{
	const struct results_suite *x = a, *y = b;
	int c;

	if (x->commit.index != y->commit.index)
		return x->commit.index < y->commit.index ? -1 : 1;
	c = strcmp(or_none(x->commit.sha), or_none(y->commit.sha));
	return c ? c : strcmp(or_none(x->name), or_none(y->name));
}

static void copy_header(const struct results *from, struct results *to)
{
	struct results_environment *e = &to->environment;
	const struct results_environment *f = &from->environment;
	size_t i;

	to->seed = from->seed;
	to->started_at_unix_ns = from->started_at_unix_ns;
	to->finished_at_unix_ns = from->finished_at_unix_ns;
	results_set_str(&e->os, f->os);
	results_set_str(&e->arch, f->arch);
	results_set_str(&e->kernel, f->kernel);
	results_set_str(&e->cpu_model, f->cpu_model);
	e->logical_cpus = f->logical_cpus;
	results_set_str(&e->compiler, f->compiler);
	results_set_str(&e->libc, f->libc);
	results_set_str(&e->ci, f->ci);
	for (i = 0; i < f->n_tools; i++)
		results_add_tool(to, f->tools[i].name, f->tools[i].version);
	to->git.present = from->git.present;
	results_set_str(&to->git.base_ref, from->git.base_ref);
	results_set_str(&to->git.base_sha, from->git.base_sha);
	results_set_str(&to->git.base_source, from->git.base_source);
	to->sweep.present = true;
	results_set_str(&to->sweep.range, from->sweep.range);
	results_set_str(&to->sweep.reference, from->sweep.reference);
	results_set_str(&to->sweep.settings_hash, from->sweep.settings_hash);
	to->sweep.commits = from->sweep.commits;
}

static void add_noise(const struct results *from, struct results *to)
{
	const struct results_noise *f = &from->noise;
	struct results_noise *t = &to->noise;

	if (f->has_load_average &&
	    (!t->has_load_average || f->load_average_1m > t->load_average_1m)) {
		t->has_load_average = true;
		t->load_average_1m = f->load_average_1m;
		t->load_average_5m = f->load_average_5m;
		t->load_average_15m = f->load_average_15m;
	}
	if (f->has_steal && (!t->has_steal || f->steal_percent > t->steal_percent)) {
		t->has_steal = true;
		t->steal_percent = f->steal_percent;
	}
	if (f->noisy && !t->noisy) {
		t->noisy = true;
		results_set_str(&t->reason, f->reason);
	}
	if (!t->governor)
		results_set_str(&t->governor, f->governor);
}

/* Moves every suite of `from` to the end of `to`. */
static void move_suites(struct results *from, struct results *to)
{
	size_t i;

	for (i = 0; i < from->n_suites; i++) {
		to->suites =
			xgrow(to->suites, &to->alloc_suites, to->n_suites + 1, sizeof(*to->suites));
		to->suites[to->n_suites++] = from->suites[i];
	}
	from->n_suites = 0;
}

static int check_inputs(struct results *const *docs, const char *const *names, size_t n,
			struct err *err)
{
	char *first = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		char *set;
		if (docs[i]->mode != RESULTS_MODE_SWEEP || !docs[i]->sweep.present) {
			rc = err_set(err, ERR_INVALID, "%s is not a sweep's results document",
				     names[i]);
			break;
		}
		if (i > 0)
			rc = check_compatible(docs[0], names[0], docs[i], names[i], err);
		if (rc < 0 || docs[i]->n_suites == 0)
			continue;
		set = suite_set(docs[i]);
		if (!first)
			first = set;
		else if (strcmp(first, set)) {
			rc = err_set(err, ERR_INVALID,
				     "%s was measured with other suites (%s) than the first slice "
				     "(%s)",
				     names[i], set, first);
			free(set);
		} else {
			free(set);
		}
	}
	free(first);
	return rc;
}

static int check_duplicates(const struct results *r, struct err *err)
{
	size_t i;

	for (i = 1; i < r->n_suites; i++) {
		const struct results_suite *a = &r->suites[i - 1], *b = &r->suites[i];
		if (a->commit.index == b->commit.index && same(a->commit.sha, b->commit.sha) &&
		    same(a->name, b->name))
			return err_set(err, ERR_INVALID,
				       "commit %.12s (suite \"%s\") is in more than one slice",
				       or_none(a->commit.sha), or_none(a->name));
	}
	return 0;
}

int sweep_merge(struct results *const *docs, const char *const *names, size_t n,
		struct results **out, struct err *err)
{
	struct results *r;
	size_t i;
	int rc;

	*out = NULL;
	if (n == 0)
		return err_set(err, ERR_USAGE, "nothing to merge");
	if ((rc = check_inputs(docs, names, n, err)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		for (size_t k = 0; k < docs[i]->n_suites; k++)
			if (!docs[i]->suites[k].commit.present)
				return err_set(err, ERR_INVALID,
					       "%s: suite %zu does not name its commit", names[i],
					       k);
	r = results_new(RESULTS_MODE_SWEEP);
	copy_header(docs[0], r);
	r->sweep.shard_index = 1;
	r->sweep.shard_count = 1;
	for (i = 0; i < n; i++) {
		if (docs[i]->started_at_unix_ns < r->started_at_unix_ns)
			r->started_at_unix_ns = docs[i]->started_at_unix_ns;
		if (docs[i]->finished_at_unix_ns > r->finished_at_unix_ns)
			r->finished_at_unix_ns = docs[i]->finished_at_unix_ns;
		add_noise(docs[i], r);
		move_suites(docs[i], r);
	}
	qsort(r->suites, r->n_suites, sizeof(*r->suites), by_commit_index);
	if ((rc = check_duplicates(r, err)) < 0) {
		results_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* ---- series --------------------------------------------------------------- */

static struct sweep_series *find_series(struct sweep_series_list *l, const char *suite,
					const char *bench, const char *command,
					const char *reference, enum metric m)
{
	struct sweep_series *s;
	size_t i;

	for (i = 0; i < l->count; i++) {
		s = &l->items[i];
		if (same(s->suite, suite) && same(s->benchmark, bench) &&
		    same(s->command, command) && same(s->reference, reference))
			return s;
	}
	l->items = xgrow(l->items, &l->alloc, l->count + 1, sizeof(*l->items));
	s = &l->items[l->count++];
	memset(s, 0, sizeof(*s));
	s->suite = suite;
	s->benchmark = bench;
	s->command = command;
	s->reference = reference;
	s->metric = m;
	s->max_fraction = -1;
	return s;
}

static const struct comparison *find_comparison(const struct results_command *c, enum metric m)
{
	size_t i;

	for (i = 0; i < c->n_comparisons; i++)
		if (c->comparisons[i].metric == m && !c->comparisons[i].derived)
			return &c->comparisons[i];
	return NULL;
}

static const char *command_error(const struct results_suite *s, const struct results_benchmark *b,
				 const struct results_command *c)
{
	if (c->head.error.present)
		return c->head.error.message ? c->head.error.message : "the commit failed";
	if (c->base.error.present)
		return c->base.error.message ? c->base.error.message : "the reference failed";
	if (b->error.present)
		return b->error.message ? b->error.message : "the benchmark failed";
	if (s->error.present)
		return s->error.message ? s->error.message : "the suite failed";
	return "not compared";
}

static void fill_point(const struct results_suite *s, const struct results_benchmark *b,
		       const struct results_command *c, const struct comparison *cmp,
		       struct sweep_point *p)
{
	memset(p, 0, sizeof(*p));
	p->sha = s->commit.sha;
	p->subject = s->commit.subject;
	p->time_unix_ns = s->commit.time_unix_ns;
	p->index = s->commit.index;
	if (!cmp) {
		p->error = command_error(s, b, c);
		return;
	}
	p->verdict = cmp->verdict;
	p->has_value = true;
	p->value = cmp->head;
	p->reference = cmp->base;
	if (cmp->has_estimate) {
		p->has_ratio = true;
		p->ratio = 1 + cmp->change_percent / 100;
		p->ratio_low = 1 + cmp->ci_low_percent / 100;
		p->ratio_high = 1 + cmp->ci_high_percent / 100;
	}
	if (!p->has_ratio && cmp->reason[0])
		p->error = cmp->reason;
}

static void add_point(struct sweep_series *s, const struct sweep_point *p,
		      const struct comparison *cmp)
{
	size_t i;

	for (i = 0; i < s->n_points; i++) {
		if (!same(s->points[i].sha, p->sha))
			continue;
		/* measured again: the later measurement wins */
		if (p->measured_at_unix_ns >= s->points[i].measured_at_unix_ns)
			s->points[i] = *p;
		return;
	}
	s->points = xgrow(s->points, &s->alloc_points, s->n_points + 1, sizeof(*s->points));
	s->points[s->n_points++] = *p;
	if (cmp && s->max_fraction < 0) {
		s->max_fraction = cmp->max_fraction;
		s->confidence = cmp->confidence;
	}
}

static size_t rank_of(const struct sweep_order *order, const char *sha)
{
	size_t i;

	for (i = 0; order && sha && i < order->n; i++)
		if (order->sha[i] && !strcmp(order->sha[i], sha))
			return order->rank[i];
	return SIZE_MAX;
}

static void add_doc(struct sweep_series_list *l, const struct results *r, enum metric m,
		    const struct sweep_order *order)
{
	const char *reference = r->sweep.reference ? r->sweep.reference : r->git.base_sha;
	size_t i, j, k;

	for (i = 0; i < r->n_suites; i++) {
		const struct results_suite *s = &r->suites[i];
		if (!s->commit.present || !s->commit.sha)
			continue;
		for (j = 0; j < s->n_benchmarks; j++) {
			const struct results_benchmark *bm = &s->benchmarks[j];
			for (k = 0; k < bm->n_commands; k++) {
				const struct results_command *c = &bm->commands[k];
				const struct comparison *cmp = find_comparison(c, m);
				struct sweep_point p;
				if (!cmp && c->head.metrics[m].status == STATUS_NOT_REQUESTED &&
				    !c->head.error.present && !c->base.error.present)
					continue; /* this metric is not measured here */
				fill_point(s, bm, c, cmp, &p);
				p.rank = rank_of(order, p.sha);
				p.measured_at_unix_ns = r->finished_at_unix_ns;
				add_point(find_series(l, s->name, bm->name, c->name, reference, m),
					  &p, cmp);
			}
		}
	}
}

/* A suite that failed before any command ran (its build), or a benchmark
 * that did (its setup), leaves its commit without a point of its own: each
 * series of that suite or benchmark gets one that says why, so that the
 * trend shows the commit. Run once every document has made its series. */
static void add_failure(struct sweep_series_list *l, const struct results *r,
			const struct results_suite *s, const struct results_benchmark *b,
			const char *reference, const struct sweep_order *order)
{
	const struct results_error *e = b ? &b->error : &s->error;
	struct sweep_point p;
	size_t i;

	memset(&p, 0, sizeof(p));
	p.sha = s->commit.sha;
	p.subject = s->commit.subject;
	p.time_unix_ns = s->commit.time_unix_ns;
	p.index = s->commit.index;
	p.rank = rank_of(order, p.sha);
	p.measured_at_unix_ns = r->finished_at_unix_ns;
	p.error = e->message ? e->message : b ? "the benchmark failed" : "the suite failed";
	for (i = 0; i < l->count; i++) {
		struct sweep_series *se = &l->items[i];
		if (same(se->suite, s->name) && same(se->reference, reference) &&
		    (!b || same(se->benchmark, b->name)))
			add_point(se, &p, NULL);
	}
}

static bool ran_no_command(const struct results_suite *s)
{
	size_t j;

	for (j = 0; j < s->n_benchmarks; j++)
		if (s->benchmarks[j].n_commands)
			return false;
	return true;
}

static void add_failures(struct sweep_series_list *l, const struct results *r,
			 const struct sweep_order *order)
{
	const char *reference = r->sweep.reference ? r->sweep.reference : r->git.base_sha;
	size_t i, j;

	for (i = 0; i < r->n_suites; i++) {
		const struct results_suite *s = &r->suites[i];
		if (!s->commit.present || !s->commit.sha)
			continue;
		if (s->error.present && ran_no_command(s)) {
			add_failure(l, r, s, NULL, reference, order);
			continue;
		}
		for (j = 0; j < s->n_benchmarks; j++)
			if (s->benchmarks[j].error.present && !s->benchmarks[j].n_commands)
				add_failure(l, r, s, &s->benchmarks[j], reference, order);
	}
}

static int by_graph_then_time(const void *a, const void *b)
{
	const struct sweep_point *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->time_unix_ns != y->time_unix_ns)
		return x->time_unix_ns < y->time_unix_ns ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return strcmp(or_none(x->sha), or_none(y->sha));
}

bool sweep_point_searched(const struct sweep_point *p)
{
	return p->has_ratio && p->ratio > 0;
}

/* The longest sweep whose shortest callable step is still looked for. */
#define REACH_SEARCH_MAX 1000

static void find_reach(struct sweep_series *s, size_t n, const struct change_point_settings *cs)
{
	size_t more;

	s->searched = n;
	s->reach = stats_change_point_reach(n, cs);
	s->needed = 0;
	for (more = n + 1; !s->reach && more <= REACH_SEARCH_MAX && !s->needed; more++)
		if (stats_change_point_reach(more, cs))
			s->needed = more;
}

static int find_changes(struct sweep_series *s, struct err *err)
{
	struct change_point_settings cs = CHANGE_POINT_SETTINGS_INIT;
	struct change_point *cp = NULL;
	double *y = xcalloc(s->n_points + 1, sizeof(*y));
	size_t *at = xcalloc(s->n_points + 1, sizeof(*at));
	size_t i, n = 0, n_cp = 0;
	int rc;

	for (i = 0; i < s->n_points; i++) {
		if (!sweep_point_searched(&s->points[i]))
			continue;
		y[n] = log(s->points[i].ratio);
		at[n++] = i;
	}
	if (s->max_fraction >= 0)
		cs.max_fraction = s->max_fraction;
	if (s->confidence > 0 && s->confidence < 1)
		cs.confidence = s->confidence;
	rc = stats_change_points(y, n, &cs, &cp, &n_cp, err);
	if (rc == 0)
		find_reach(s, n, &cs);
	if (rc == 0 && n_cp) {
		s->changes = xcalloc(n_cp, sizeof(*s->changes));
		for (i = 0; i < n_cp; i++) {
			s->changes[i].index = at[cp[i].index];
			s->changes[i].change = cp[i].change;
			s->changes[i].low = cp[i].low;
			s->changes[i].high = cp[i].high;
		}
		s->n_changes = n_cp;
	}
	free(cp);
	free(at);
	free(y);
	return rc;
}

int sweep_series_build(const struct results *const *docs, size_t n, enum metric m,
		       const struct sweep_order *order, struct sweep_series_list *out,
		       struct err *err)
{
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		add_doc(out, docs[i], m, order);
	for (i = 0; i < n; i++)
		add_failures(out, docs[i], order);
	for (i = 0; i < out->count && rc == 0; i++) {
		struct sweep_series *s = &out->items[i];
		qsort(s->points, s->n_points, sizeof(*s->points), by_graph_then_time);
		rc = find_changes(s, err);
	}
	if (rc < 0)
		sweep_series_release(out);
	return rc;
}

void sweep_series_release(struct sweep_series_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->count; i++) {
		free(list->items[i].points);
		free(list->items[i].changes);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}
