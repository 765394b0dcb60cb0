/*
 * Unit tests of the results document: builders, the exact JSON writer, the
 * reader's round trips (in memory and byte for byte), the fixtures of every
 * document shape in tests/data/reports, and hostile inputs that must each
 * give their exact error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "common/strbuf.h"
#include "results/jsonw.h"
#include "results/results.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0_NS 1764700000123456789LL /* 2025-12-02T18:26:40.123456789Z */

static void fill_side(struct results_side *s, uint64_t base_ns, bool memory)
{
	struct percentile ps[3] = { { 90, 0 }, { 95, 0 }, { 99, 0 } };
	struct stats_summary st = { 0 };
	uint64_t i;

	s->count = 5;
	s->warmups = 2;
	s->plan = RESULTS_PLAN_STANDARD;
	for (i = 0; i < 5; i++) {
		results_add_sample(s, METRIC_LATENCY, (double)(base_ns + i * 1000003));
		results_add_sample(s, METRIC_THROUGHPUT, 1e9 / (double)(base_ns + i * 1000003));
	}
	s->metrics[METRIC_LATENCY].source = RESULTS_SOURCE_WALL_CLOCK;
	s->metrics[METRIC_THROUGHPUT].source = RESULTS_SOURCE_DECLARED_WORK;
	s->metrics[METRIC_THROUGHPUT].work.present = true;
	s->metrics[METRIC_THROUGHPUT].work.has_value = true;
	s->metrics[METRIC_THROUGHPUT].work.value = 1;
	results_set_str(&s->metrics[METRIC_THROUGHPUT].work.unit, "records");
	s->metrics[METRIC_THROUGHPUT].work.measured_min = 1;
	s->metrics[METRIC_THROUGHPUT].work.measured_max = 1;
	st.count = 5;
	st.min = (double)base_ns;
	st.max = (double)(base_ns + 4000012);
	st.mean = (double)base_ns + 2000006;
	st.median = st.mean;
	st.stddev = 1581143.6672471;
	st.cv = st.stddev / st.mean;
	st.robust_cv = 0.1 / 3;
	ps[0].value = st.mean + 0.5;
	ps[1].value = st.max - 1.0 / 3;
	ps[2].value = st.max;
	st.percentiles = ps;
	st.n_percentiles = 3;
	results_set_stats(s, METRIC_LATENCY, &st);
	s->metrics[METRIC_CPU_USER].status = STATUS_UNSUPPORTED;
	results_set_str(&s->metrics[METRIC_CPU_USER].reason, "no \"rusage\" here");
	s->metrics[METRIC_CPU_USER].source = RESULTS_SOURCE_UNAVAILABLE;
	if (memory) {
		struct results_metric *m = &s->metrics[METRIC_PEAK_RSS];
		results_add_sample(s, METRIC_PEAK_RSS, 1048576);
		results_add_sample(s, METRIC_PEAK_RSS, 3145728);
		m->source = RESULTS_SOURCE_RUSAGE;
		m->process_aggregation = RESULTS_AGG_MAX_OF_SINGLE_PROCESS_PEAKS;
		m->has_floor = true;
		m->floor_bytes = 2097152;
		m->samples_at_floor = 1;
	}
}

static void fill_common(struct results *r)
{
	struct results_benchmark *b;
	struct results_suite *s;
	struct budget_result br = { 0 };
	struct results_command *c;

	results_set_str(&r->himorime_version, "0.1.0-test");
	r->seed = 9007199254740991ULL;
	r->started_at_unix_ns = T0_NS;
	r->finished_at_unix_ns = T0_NS + 2500000000LL;
	results_set_str(&r->environment.os, "linux");
	results_set_str(&r->environment.arch, "x86_64");
	results_set_str(&r->environment.kernel, "6.1.0");
	results_set_str(&r->environment.cpu_model, "Some CPU @ 3.00GHz");
	r->environment.logical_cpus = 2;
	results_set_str(&r->environment.compiler, "gcc 12.2.0");
	results_set_str(&r->environment.libc, "glibc 2.36");
	results_add_tool(r, "go", "go1.22.1");
	r->noise.has_load_average = true;
	r->noise.load_average_1m = 0.25;
	r->noise.load_average_5m = 1.5;
	r->noise.load_average_15m = 2;
	results_set_str(&r->noise.governor, "performance");
	s = results_add_suite(r, "main");
	results_set_str(&s->file, "himorime.yaml");
	results_set_str(&s->description, "ünïcode \"quoted\"\n\ttabbed");
	b = results_add_benchmark(s, "convert");
	results_add_tag(b, "io");
	results_add_tag(b, "fast");
	results_set_str(&b->baseline, "old");
	b->rounds = 5;
	c = results_add_command(b, "old", "mytool convert ${workdir}/large.json");
	fill_side(&c->head, 12000000, true);
	br.metric = METRIC_LATENCY;
	br.aggregation.kind = AGG_PERCENTILE;
	br.aggregation.percentile = 99.9;
	br.op = BOUND_LE;
	br.limit = 50000000;
	br.has_actual = true;
	br.actual = 16000012;
	br.status = BUDGET_PASS;
	results_add_budget(c, &br, "<= 50ms");
	br.metric = METRIC_PEAK_RSS;
	br.aggregation.kind = AGG_MAX;
	br.op = BOUND_LT;
	br.limit = 1048576;
	br.has_actual = false;
	br.status = BUDGET_SKIPPED;
	snprintf(br.reason, sizeof(br.reason), "the peak RSS is at or below the measurement floor");
	results_add_budget(c, &br, "< 1MiB");
	c->result = RESULT_METRIC_ERROR;
	c->has_vs_baseline = true;
	c->vs_baseline = 1;
	c->has_vs_fastest = true;
	c->vs_fastest = 1.0 / 3;
	c = results_add_command(b, "new", "mytool convert2");
	c->head.present = false;
	c->result = RESULT_ERROR;
	results_set_error(&c->head.error, RESULTS_ERROR_EXIT_CODE, "exited with 3", "boom\n", 5);
	c->head.error.has_exit_code = true;
	c->head.error.exit_code = 3;
	b = results_add_benchmark(s, "empty");
	results_set_error(&b->error, RESULTS_ERROR_SETUP_FAILED, "setup \"make\" failed", NULL, 0);
	b->error.has_metric = true;
	b->error.metric = METRIC_PEAK_RSS;
	b->result = RESULT_ERROR;
	s->result = RESULT_ERROR;
	results_set_str(&s->geometric_mean_unavailable, "needs at least 2 benchmarks");
	r->summary.suites = 1;
	r->summary.benchmarks = 2;
	r->summary.commands = 2;
	r->summary.results[RESULT_METRIC_ERROR] = 1;
	r->summary.results[RESULT_ERROR] = 1;
	r->summary.exit_code = 4;
}

static struct results *make_run(void)
{
	struct results *r = results_new(RESULTS_MODE_RUN);
	struct results_trend *t;

	fill_common(r);
	t = &r->suites[0].benchmarks[0].commands[0].head.metrics[METRIC_LATENCY].trend;
	t->present = true;
	t->slope = 1000003;
	t->slope_low = 850000;
	t->slope_high = 1150000;
	t->min_detectable_slope = 150000;
	t->growing = true;
	return r;
}

static struct results *make_compare(void)
{
	struct results *r = results_new(RESULTS_MODE_COMPARE);
	struct results_command *c;
	struct results_suite *s;
	struct comparison cmp;

	fill_common(r);
	r->git.present = true;
	results_set_str(&r->git.head_sha, "1ac04ac93cbf1ac04ac93cbf1ac04ac93cbf1ac0");
	r->git.dirty = true;
	results_set_str(&r->git.base_ref, "origin/main");
	results_set_str(&r->git.base_sha, "0123456789abcdef0123456789abcdef01234567");
	results_set_str(&r->git.base_source, "merge_base");
	results_set_str(&r->environment.ci, "github_actions");
	r->noise.has_steal = true;
	r->noise.steal_percent = 12.5;
	r->noise.noisy = true;
	results_set_str(&r->noise.reason, "steal 12.5% > 5%");
	s = &r->suites[0];
	s->new_in_head = false;
	s->has_geometric_mean = true;
	results_set_str(&s->geometric_mean_reference, "base");
	s->geometric_mean_cases = 1;
	results_add_ratio(s, "old", 1.1000000000000001);
	c = &s->benchmarks[0].commands[0];
	c->base.present = true;
	fill_side(&c->base, 11000000, true);
	memset(&cmp, 0, sizeof(cmp));
	cmp.metric = METRIC_LATENCY;
	cmp.statistic_shown = SIDE_MEDIAN;
	cmp.base = 11000000;
	cmp.head = 12000000.5;
	cmp.has_estimate = true;
	cmp.change_percent = 9.0909090909090917;
	cmp.ci_low_percent = 7.1;
	cmp.ci_high_percent = 11.3;
	cmp.confidence = 0.99;
	cmp.looks_planned = 9;
	cmp.looks_used = 3;
	cmp.pairs = 22;
	cmp.max_fraction = 0.05;
	cmp.has_min_difference = true;
	cmp.min_difference = 1000000;
	cmp.band_low_percent = -5;
	cmp.band_high_percent = 5;
	cmp.verdict = VERDICT_REGRESSION;
	cmp.gate = true;
	/* what it could see: 1.05 * 1.090909 / 1.071 - 1 on the slow side */
	cmp.has_detectable_high = true;
	cmp.detectable_high_percent = 6.951871657754011;
	cmp.has_detectable_low = true;
	cmp.detectable_low_percent = -6.885567262925753;
	results_add_comparison(c, &cmp);
	memset(&cmp, 0, sizeof(cmp));
	cmp.metric = METRIC_THROUGHPUT;
	cmp.derived = true;
	cmp.statistic_shown = SIDE_MEAN;
	cmp.band_low_infinite = true;
	cmp.band_high_percent = 1e300;
	cmp.verdict = VERDICT_SKIPPED;
	cmp.has_detectable_high = cmp.has_detectable_low = false;
	snprintf(cmp.reason, sizeof(cmp.reason), "work differs between revisions");
	results_add_comparison(c, &cmp);
	s->benchmarks[0].commands[1].base.present = true;
	r->summary.not_gated.pass = 1;
	r->summary.skipped = 1;
	r->summary.fail_on_inconclusive = true;
	r->summary.interrupted = true;
	return r;
}

static char *to_json(const struct results *r)
{
	struct err err = ERR_INIT;
	char *text;
	size_t len;

	assert_int_equal(results_to_json(r, &text, &len, &err), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static struct results *from_json(const char *text)
{
	struct err err = ERR_INIT;
	struct results *r;
	int rc = results_from_json(text, strlen(text), "report.json", &r, &err);

	if (rc)
		fail_msg("%s", err.msg);
	return r;
}

static void check_round_trip(struct results *r)
{
	char *a = to_json(r), *b;
	struct results *back = from_json(a);

	assert_true(results_equal(r, back));
	b = to_json(back);
	assert_string_equal(a, b);
	free(a);
	free(b);
	results_free(back);
}

static void test_results__run_round_trips(void **state)
{
	struct results *r = make_run();

	(void)state;
	check_round_trip(r);
	results_free(r);
}

static void test_results__compare_round_trips(void **state)
{
	struct results *r = make_compare();

	(void)state;
	check_round_trip(r);
	results_free(r);
}

/* git.status_sha (the commit `ci`'s event names) is written only when set:
 * documents without it keep their bytes. */
static void test_results__status_sha_only_when_set(void **state)
{
	struct results *r = make_run(), *c = make_compare();
	char *a, *b;

	(void)state;
	results_set_str(&c->git.status_sha, "fedcba9876543210fedcba9876543210fedcba98");
	a = to_json(r);
	b = to_json(c);
	assert_null(strstr(a, "status_sha"));
	assert_non_null(strstr(b, "\"status_sha\""));
	assert_non_null(strstr(b, "fedcba9876543210fedcba9876543210fedcba98"));
	check_round_trip(c); /* results_equal compares it: the reader keeps it */
	free(a);
	free(b);
	results_free(r);
	results_free(c);
}

/* A session's timings are written only when present, in a fixed key order,
 * and come back as they were; a document without them has no such key;
 * results_equal leaves them out. */
static void test_results__timings_round_trip(void **state)
{
	struct results *r = make_compare(), *other = make_compare(), *back;
	char *text = to_json(r), *text2;
	int p;

	(void)state;
	assert_null(strstr(text, "\"timings\""));
	free(text);
	r->timings.present = true;
	r->timings.total_ns = 9007199254740991ULL;
	for (p = 0; p < RESULTS_PHASE__COUNT; p++)
		r->timings.phase_ns[p] = 1000u * (unsigned)p;
	text = to_json(r);
	assert_non_null(strstr(text, "\"timings\":\t{\n\t\t\"total_ns\":\t9007199254740991,\n"
				     "\t\t\"load_ns\":\t0,\n\t\t\"resolve_ns\":\t1000,\n"));
	assert_non_null(strstr(text, "\t\t\"rendering_ns\":\t11000,\n"
				     "\t\t\"publishing_ns\":\t12000\n\t}\n}\n"));
	free(text);
	check_round_trip(r);
	back = from_json(text2 = to_json(r));
	assert_true(back->timings.present);
	assert_int_equal(back->timings.total_ns, r->timings.total_ns);
	assert_memory_equal(back->timings.phase_ns, r->timings.phase_ns,
			    sizeof(r->timings.phase_ns));
	free(text2);
	results_free(back);
	/* no result depends on how long the session took */
	assert_true(results_equal(r, other));
	results_free(other);
	results_free(r);
}

/* A case (docs/reports.md, "Cases and growth") and a growth fit of each
 * side survive writing and reading back; a changed exponent is noticed. */
static void test_results__cases_and_growth_round_trip(void **state)
{
	struct results *r = make_compare();
	struct results_suite *s = &r->suites[0];
	struct results_benchmark *b = results_add_benchmark(s, "scan[mode=a,size=64k]");
	struct results_growth *g;
	struct results *back;
	char *text;

	(void)state;
	results_set_str(&b->base_name, "scan");
	results_add_param(b, "mode", "a");
	results_add_param(b, "size", "64k");
	b->has_size = true;
	b->size = 64000;
	g = results_add_growth(s, "scan[mode=a]", "run", METRIC_PEAK_RSS);
	g->head = (struct results_fit){ .present = true,
					.exponent = 2.01,
					.coefficient = 3.5e-3,
					.r_squared = 0.999,
					.has_constant = true,
					.constant = 1.5e6,
					.has_interval = true,
					.exponent_low = 1.95,
					.exponent_high = 2.07,
					.sizes = 7,
					.runs = 35 };
	results_set_str(&g->head.from, "1k");
	results_set_str(&g->head.to, "64k");
	g->base = (struct results_fit){ .present = true,
					.exponent = 1,
					.coefficient = 12,
					.r_squared = 0.98,
					.sizes = 2,
					.runs = 4 };
	g->has_budget = true;
	results_set_str(&g->budget_text, "<= 1.2");
	g->budget_op = BOUND_LE;
	g->budget_limit = 1.2;
	g->budget_pass = false;
	g->compared = true;
	g->difference = 1.01;
	g->difference_low = 0.95;
	g->difference_high = 1.07;
	g->max_difference = 0.1;
	g->verdict = VERDICT_REGRESSION;
	results_add_not_compared(s, "scan[mode=a,size=1M]", "its size says compare: false");
	results_set_str(&g->base.from, "1k");
	results_set_str(&g->base.to, "2k");
	check_round_trip(r);
	text = to_json(r);
	assert_non_null(strstr(text, "\"case\":"));
	assert_non_null(strstr(text, "\"exponent_low\":"));
	back = from_json(text);
	assert_string_equal(back->suites[0].growth[0].head.to, "64k");
	assert_true(back->suites[0].benchmarks[s->n_benchmarks - 1].size == 64000);
	assert_int_equal(back->suites[0].growth[0].verdict, VERDICT_REGRESSION);
	assert_string_equal(back->suites[0].not_compared[0].benchmark, "scan[mode=a,size=1M]");
	back->suites[0].growth[0].head.exponent = 2.02;
	assert_false(results_equal(r, back));
	free(text);
	results_free(back);
	results_free(r);
}

/* A count (docs/comparison.md, "Deciding on counts"): the artifact's size
 * with its ELF sections, and a comparison decided on medians; written only
 * where a suite asked for it. */
static void test_results__counts_round_trip(void **state)
{
	struct results *r = make_compare();
	struct results_command *c = &r->suites[0].benchmarks[0].commands[0];
	struct results_metric *m = &c->head.metrics[METRIC_ARTIFACT_SIZE];
	struct comparison cmp;
	char *text = to_json(r), *again;
	struct results *back;

	(void)state;
	assert_null(strstr(text, "artifact_size"));
	assert_null(strstr(text, "\"elf\""));
	free(text);
	results_add_sample(&c->head, METRIC_ARTIFACT_SIZE, 77304);
	results_add_sample(&c->base, METRIC_ARTIFACT_SIZE, 73208);
	m->source = RESULTS_SOURCE_ARTIFACT_FILE;
	m->has_elf = true;
	m->elf_text = 65242;
	m->elf_data = 528;
	m->elf_bss = 8;
	results_add_sample(&c->head, METRIC_INSTRUCTIONS, 6190253);
	results_add_sample(&c->head, METRIC_INSTRUCTIONS, 6190253);
	m = &c->head.metrics[METRIC_INSTRUCTIONS];
	m->source = RESULTS_SOURCE_VALGRIND;
	m->process_aggregation = RESULTS_AGG_SUM_OF_TRACED_PROCESSES;
	results_set_str(&m->counter_backend, "valgrind");
	results_set_str(&m->counter_version, "3.19.0");
	results_set_str(&m->counter_event, "Ir");
	memset(&cmp, 0, sizeof(cmp));
	cmp.metric = METRIC_ARTIFACT_SIZE;
	cmp.counts = true;
	cmp.base = 73208;
	cmp.head = 77304;
	cmp.has_estimate = true;
	cmp.change_percent = 5.5950169380395577;
	cmp.ci_low_percent = cmp.ci_high_percent = cmp.change_percent;
	cmp.confidence = 1;
	cmp.pairs = 1;
	cmp.max_fraction = 0.01;
	cmp.band_low_percent = -1;
	cmp.band_high_percent = 1;
	cmp.verdict = VERDICT_REGRESSION;
	cmp.gate = true;
	cmp.spread_percent = 0.25;
	results_add_comparison(c, &cmp);
	check_round_trip(r);
	text = to_json(r);
	assert_non_null(strstr(text, "\"statistic\":\t\"median_ratio\""));
	assert_non_null(strstr(text, "\"spread_percent\":\t0.25"));
	assert_non_null(strstr(text, "\"elf\":\t{"));
	assert_non_null(strstr(text, "\"source\":\t\"artifact_file\""));
	assert_non_null(strstr(text, "\"counter\":\t{\n"));
	assert_non_null(strstr(text, "\"samples\":\t[6190253, 6190253]"));
	assert_non_null(strstr(text, "\"unit\":\t\"count\""));
	back = from_json(text);
	assert_true(back->suites[0].benchmarks[0].commands[0].comparisons[2].counts);
	assert_int_equal(back->suites[0]
				 .benchmarks[0]
				 .commands[0]
				 .head.metrics[METRIC_ARTIFACT_SIZE]
				 .elf_text,
			 65242);
	assert_string_equal(back->suites[0]
				    .benchmarks[0]
				    .commands[0]
				    .head.metrics[METRIC_INSTRUCTIONS]
				    .counter_version,
			    "3.19.0");
	/* the base measured it too, without ELF sections: null */
	assert_false(back->suites[0]
			     .benchmarks[0]
			     .commands[0]
			     .base.metrics[METRIC_ARTIFACT_SIZE]
			     .has_elf);
	again = to_json(back);
	assert_string_equal(again, text);
	free(again);
	free(text);
	results_free(back);
	results_free(r);
}

static void test_results__equal_notices_a_changed_value(void **state)
{
	struct results *a = make_compare(), *b = make_compare();

	(void)state;
	assert_true(results_equal(a, b));
	b->suites[0].benchmarks[0].commands[0].head.metrics[METRIC_LATENCY].samples[4] += 1;
	assert_false(results_equal(a, b));
	b->suites[0].benchmarks[0].commands[0].head.metrics[METRIC_LATENCY].samples[4] -= 1;
	assert_true(results_equal(a, b));
	b->suites[0].benchmarks[0].commands[0].comparisons[0].ci_low_percent = 7.1000000000000005;
	assert_false(results_equal(a, b));
	results_free(a);
	results_free(b);
}

/* Random integers below 2^53 and random finite doubles of every magnitude
 * come back bit for bit (cJSON's own printer loses about 10% of them). */
static void test_results__numbers_are_exact(void **state)
{
	struct results *r = results_new(RESULTS_MODE_RUN);
	struct results_command *c;
	struct rng rng;
	int i;

	(void)state;
	rng_init(&rng, 42, "results");
	c = results_add_command(results_add_benchmark(results_add_suite(r, "s"), "b"), "c", "c");
	for (i = 0; i < 20000; i++) {
		uint64_t bits = rng_next(&rng);
		double d;
		results_add_sample(&c->head, METRIC_LATENCY, (double)(rng_next(&rng) >> 11));
		memcpy(&d, &bits, sizeof(d));
		if (isfinite(d))
			results_add_sample(&c->head, METRIC_THROUGHPUT, d);
		results_add_sample(&c->head, METRIC_CPU_UTILIZATION,
				   (double)(rng_next(&rng) >> 11) / 9007199254740992.0);
	}
	results_add_sample(&c->head, METRIC_THROUGHPUT, -0.0);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 9007199254740992.0);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 5e-324);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 1.7976931348623157e308);
	check_round_trip(r);
	results_free(r);
}

static void test_results__numbers_are_written_shortest(void **state)
{
	struct results *r = results_new(RESULTS_MODE_RUN);
	struct results_command *c;
	char *text;

	(void)state;
	c = results_add_command(results_add_benchmark(results_add_suite(r, "s"), "b"), "c", "c");
	results_add_sample(&c->head, METRIC_LATENCY, 9007199254740991.0);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 0.1);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 1.0 / 3);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 9007199254740992.0);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 1e300);
	results_add_sample(&c->head, METRIC_THROUGHPUT, 250);
	text = to_json(r);
	assert_non_null(strstr(text, "\"samples\":\t[9007199254740991]"));
	assert_non_null(strstr(text, "\"samples\":\t[0.1, 0.3333333333333333, "
				     "9.007199254740992e+15, 1e+300, 250]"));
	assert_non_null(strstr(text, "\"started_at\":\t\"1970-01-01T00:00:00.000000000Z\""));
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_int_equal(text[strlen(text) - 2], '}');
	free(text);
	results_free(r);
}

static void check_write_fails(struct results *r, const char *msg)
{
	struct err err = ERR_INIT;
	char *text = (char *)"untouched";

	assert_int_equal(results_to_json(r, &text, NULL, &err), ERR_INTERNAL);
	assert_null(text);
	assert_string_equal(err.msg, msg);
	results_free(r);
}

static void test_results__writer_refuses_inexact_values(void **state)
{
	struct results *r;
	struct results_command *c;

	(void)state;
	r = make_run();
	results_add_sample(&r->suites[0].benchmarks[0].commands[0].head, METRIC_THROUGHPUT, NAN);
	check_write_fails(r, "cannot write report: \"samples\" is not a finite number");
	r = make_run();
	results_add_sample(&r->suites[0].benchmarks[0].commands[0].head, METRIC_LATENCY, 1.5);
	check_write_fails(
		r, "cannot write report: \"samples\" holds a value that is not a whole number "
		   "below 2^53");
	r = make_run();
	results_add_sample(&r->suites[0].benchmarks[0].commands[0].head, METRIC_PEAK_RSS,
			   9007199254740992.0);
	check_write_fails(
		r, "cannot write report: \"samples\" holds a value that is not a whole number "
		   "below 2^53");
	r = make_run();
	r->seed = 9007199254740992ULL;
	check_write_fails(r, "cannot write report: \"seed\" is 2^53 or larger");
	r = make_run();
	r->suites[0].benchmarks[0].commands[0].has_vs_fastest = true;
	r->suites[0].benchmarks[0].commands[0].vs_fastest = INFINITY;
	check_write_fails(r, "cannot write report: \"vs_fastest\" is not a finite number");
	r = make_run();
	results_set_str(&r->environment.os, "bad \xff byte");
	check_write_fails(r, "cannot write report: \"os\" is not valid utf-8");
	r = make_compare();
	r->mode = RESULTS_MODE_RUN;
	check_write_fails(r, "cannot write report: \"comparisons\" are only written in compare "
			     "and sweep modes");
	r = make_run();
	c = &r->suites[0].benchmarks[0].commands[0];
	c->budgets[0].result.aggregation.percentile = 100;
	check_write_fails(r, "cannot write report: \"aggregation\" is not a percentile between 0 "
			     "and 100");
}

static void test_results__stderr_tail_is_bounded_utf8(void **state)
{
	struct results_error e;
	char big[5000];

	(void)state;
	memset(&e, 0, sizeof(e));
	memset(big, 'a', sizeof(big));
	memcpy(big + sizeof(big) - 2047, "\xc3\xa9", 2); /* é straddling the cut */
	big[sizeof(big) - 1] = '\xff';
	results_set_error(&e, RESULTS_ERROR_TIMEOUT, "timed out", big, sizeof(big));
	assert_true(e.present);
	assert_int_equal(strlen(e.stderr_tail), 2047);
	assert_string_equal(e.stderr_tail + 2044, "\xef\xbf\xbd");
	assert_int_equal(e.stderr_tail[0], 'a');
	results_set_error(&e, RESULTS_ERROR_TIMEOUT, "again", "a\0b", 3);
	assert_string_equal(e.stderr_tail, "a\xef\xbf\xbd"
					   "b");
	free(e.message);
	free(e.stderr_tail);
}

static char *slurp(const char *path)
{
	struct err err = ERR_INIT;
	char *data;

	if (fsio_read_file(path, 1 << 24, &data, NULL, &err))
		fail_msg("%s", err.msg);
	return data;
}

/* Each fixture is exactly what the writer gives for the document built here,
 * loads, and rewrites to the same bytes. */
static void check_fixture(const char *path, struct results *expect)
{
	char *data = slurp(path), *again;
	struct results *r = from_json(data);

	assert_true(results_equal(r, expect));
	again = to_json(r);
	assert_string_equal(again, data);
	free(again);
	free(data);
	results_free(r);
	results_free(expect);
}

static void test_results__fixture_run(void **state)
{
	(void)state;
	check_fixture("tests/data/reports/v1-run.json", make_run());
}

static void test_results__fixture_compare(void **state)
{
	(void)state;
	check_fixture("tests/data/reports/v1-compare.json", make_compare());
}

/* The fixture of a real artifact_size comparison reads and rewrites to the
 * same bytes. */
static void test_results__fixture_counts(void **state)
{
	char *data = slurp("tests/data/reports/v1-counts.json"), *again;
	struct results *r = from_json(data);
	const struct results_command *c = &r->suites[0].benchmarks[0].commands[0];

	(void)state;
	assert_int_equal(c->n_comparisons, 2);
	assert_true(c->comparisons[1].counts);
	assert_int_equal(c->comparisons[1].verdict, VERDICT_REGRESSION);
	assert_true(c->head.metrics[METRIC_ARTIFACT_SIZE].has_elf);
	again = to_json(r);
	assert_string_equal(again, data);
	free(again);
	free(data);
	results_free(r);
}

/* A comparison written before the noise gate's flag and what a comparison
 * could see existed reads with neither: not noisy, nothing seen, no pairs
 * to decide. */
static void test_results__comparison_before_what_it_could_see(void **state)
{
	char *data = slurp("tests/data/reports/v1-compare.json"), *p;
	const char *end = "\"pairs_to_decide_beyond\":\tfalse";
	const struct comparison *k;
	struct results *r;

	(void)state;
	/* cut ",\n<tabs>\"noisy\": ... \"pairs_to_decide_beyond\": false" from
	 * each comparison (the document's "noise" has a "noisy" of its own) */
	while ((p = strstr(data, "\"detectable_high_percent\""))) {
		char *from = p, *to = strstr(p, end) + strlen(end);
		while (strncmp(from, "\"noisy\"", 7))
			from--;
		while (from[-1] != ',')
			from--;
		memmove(from - 1, to, strlen(to) + 1);
	}
	assert_null(strstr(data, "detectable"));
	r = from_json(data);
	k = &r->suites[0].benchmarks[0].commands[0].comparisons[0];
	assert_int_equal(k->verdict, VERDICT_REGRESSION);
	assert_false(k->noisy);
	assert_false(k->has_detectable_high);
	assert_false(k->has_detectable_low);
	assert_int_equal(k->pairs_to_decide, 0);
	assert_false(k->pairs_to_decide_beyond);
	results_free(r);
	free(data);
}

/* The smallest document of the first shape: missing fields take defaults. */
static void test_results__fixture_minimal_old_shape(void **state)
{
	char *data = slurp("tests/data/reports/v1-minimal.json");
	struct results *r = from_json(data);
	const struct results_command *c;

	(void)state;
	assert_int_equal(r->mode, RESULTS_MODE_RUN);
	assert_int_equal(r->seed, 42);
	assert_int_equal(r->started_at_unix_ns, 1764700000500000000LL);
	assert_null(r->environment.kernel);
	assert_false(r->git.present);
	assert_false(r->noise.has_load_average);
	assert_false(r->timings.present);
	assert_int_equal(r->n_suites, 1);
	assert_int_equal(r->suites[0].n_benchmarks, 1);
	c = &r->suites[0].benchmarks[0].commands[0];
	assert_string_equal(c->name, "true");
	assert_int_equal(c->head.plan, RESULTS_PLAN_STANDARD);
	assert_int_equal(c->head.metrics[METRIC_LATENCY].n_samples, 3);
	assert_int_equal(c->head.metrics[METRIC_LATENCY].samples[2], 1300000);
	assert_int_equal(c->head.metrics[METRIC_LATENCY].status, STATUS_MEASURED);
	assert_int_equal(c->head.metrics[METRIC_PEAK_RSS].status, STATUS_NOT_REQUESTED);
	assert_false(c->base.present);
	assert_int_equal(r->summary.results[RESULT_PASS], 1);
	check_round_trip(r);
	free(data);
	results_free(r);
}

static void test_results__unknown_fields_are_ignored(void **state)
{
	struct results *r = from_json(
		"{\"schema_version\": \"1\", \"mode\": \"run\", \"future\": {\"x\": [1, 2]},"
		" \"suites\": [{\"name\": \"s\", \"later\": true, \"benchmarks\": [{\"commands\":"
		" [{\"head\": {\"metrics\": {\"cache_misses\": {\"samples\": [\"?\"]}}}}]}]}]}");

	(void)state;
	assert_string_equal(r->suites[0].name, "s");
	assert_true(r->suites[0].benchmarks[0].commands[0].head.present);
	assert_null(r->himorime_version);
	results_free(r);
}

struct bad_case {
	const char *json;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "", "report.json:1:1: empty document" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\"",
	  "report.json:1:38: unexpected end of the document" },
	{ "{\"schema_version\": \"1\", \"mode\": \"ru",
	  "report.json:1:36: unexpected end of the document" },
	{ "{\"schema_version\": \"1\" \"mode\": \"run\"}", "report.json:1:24: invalid JSON" },
	{ "[1, 2]", "report.json: $: expected an object, got an array" },
	{ "\"run\"", "report.json: $: expected an object, got \"run\"" },
	{ "\xef\xbb\xbf{}",
	  "report.json:1:1: starts with a byte order mark; expected plain UTF-8" },
	{ "{\"schema_version\": \"1\", \"mode\": \"r\xe9n\"}", "report.json:1:35: invalid UTF-8" },
	{ "{\"mode\": \"run\"}", "report.json: $.schema_version: missing; expected \"1\"" },
	{ "{\"schema_version\": \"2\", \"mode\": \"run\"}",
	  "report.json: $.schema_version: expected \"1\", got \"2\"" },
	{ "{\"schema_version\": 1, \"mode\": \"run\"}",
	  "report.json: $.schema_version: expected \"1\", got 1" },
	{ "{\"schema_version\": \"1\"}",
	  "report.json: $.mode: missing; expected \"run\", \"compare\" or \"sweep\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"walk\"}",
	  "report.json: $.mode: expected \"run\", \"compare\" or \"sweep\", got \"walk\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\"} x",
	  "report.json:1:40: unexpected text after the document" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"mode\": \"compare\"}",
	  "report.json: $: duplicate key \"mode\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": "
	  "[{\"name\": "
	  "\"a\", \"name\": \"b\"}]}]}",
	  "report.json: $.suites[0].benchmarks[0]: duplicate key \"name\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": NaN}",
	  "report.json:1:48: invalid JSON" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": -Infinity}",
	  "report.json:1:48: malformed number" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": 9007199254740992}",
	  "report.json: $.seed: expected an integer from 0 to 9007199254740991, got "
	  "9007199254740992" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": -1}",
	  "report.json: $.seed: expected an integer from 0 to 9007199254740991, got -1" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": 1.5}",
	  "report.json: $.seed: expected an integer from 0 to 9007199254740991, got 1.5" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"seed\": 01}",
	  "report.json:1:48: malformed number" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"noise\": {\"steal_percent\": 1e400}}",
	  "report.json: $.noise.steal_percent: expected a finite number, got a number out of "
	  "range" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"started_at\": "
	  "\"2026-02-30T00:00:00Z\"}",
	  "report.json: $.started_at: expected an RFC 3339 UTC time such as "
	  "\"2026-01-02T03:04:05.5Z\", got \"2026-02-30T00:00:00Z\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"started_at\": "
	  "\"2026-01-02T03:04:05+01:00\"}",
	  "report.json: $.started_at: expected an RFC 3339 UTC time such as "
	  "\"2026-01-02T03:04:05.5Z\", got \"2026-01-02T03:04:05+01:00\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"timings\": {\"rounds_ns\": -5}}",
	  "report.json: $.timings.rounds_ns: expected an integer from 0 to 9007199254740991, got "
	  "-5" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": {}}",
	  "report.json: $.suites: expected an array, got an object" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{}, "
	  "{\"commands\": [{\"head\": {\"metrics\": {\"latency\": {\"samples\": [1, 2, 3, "
	  "\"x\"]}}}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[1].commands[0].head.metrics.latency.samples[3]: "
	  "expected an integer from 0 to 9007199254740991, got \"x\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"head\": {\"metrics\": {\"throughput\": {\"samples\": [0.5, "
	  "\"x\"]}}}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].head.metrics.throughput.samples[1]: "
	  "expected a finite number, got \"x\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"head\": {\"metrics\": {\"latency\": {\"unit\": \"ms\"}}}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].head.metrics.latency.unit: "
	  "expected \"ns\", got \"ms\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"comparisons\": {}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].comparisons: expected null in run "
	  "mode, got an object" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{"
	  "\"rounds\": -3}]}]}",
	  "report.json: $.suites[0].benchmarks[0].rounds: expected an integer from 0 to "
	  "9007199254740991, got -3" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"schedule\": \"together\"}]}]}",
	  "report.json: $.suites[0].benchmarks[0].schedule: expected \"interleaved\" or \"duet\", "
	  "got \"together\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"head\": {\"run_start_ns\": [0, 5], \"run_end_ns\": [9]}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].head: expected run_start_ns and "
	  "run_end_ns of the same length, got 2 and 1" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"base\": {\"run_start_ns\": [9007199254740992], \"run_end_ns\": "
	  "[1]}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].base.run_start_ns[0]: expected an "
	  "integer from 0 to 9007199254740991, got 9007199254740992" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"error\": {\"kind\": "
	  "\"oops\"}}]}",
	  "report.json: $.suites[0].error.kind: expected \"build_failed\", \"setup_failed\", "
	  "\"prepare_each_failed\", \"cleanup_failed\", \"exit_code\", \"timeout\", "
	  "\"start_failed\", \"interrupted\", \"invalid_path\", \"internal\", "
	  "\"metric_unsupported\", \"metric_collection_failed\" or \"harness_output\", got "
	  "\"oops\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"result\": true}]}",
	  "report.json: $.suites[0].result: expected \"pass\", \"new_suite\", \"new\", "
	  "\"removed\", \"improved\", \"inconclusive\", "
	  "\"over_budget\", \"regression\", \"metric_error\" or \"error\", got true" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"budgets\": [{\"metric\": \"latency\", \"aggregation\": "
	  "\"p100\"}]}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].budgets[0].aggregation: expected "
	  "\"min\", \"max\", \"mean\", \"median\" or a percentile such as \"p95\", got \"p100\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"budgets\": [{\"metric\": \"latency\", \"status\": \"fail\", \"pass\": "
	  "true}]}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].budgets[0].pass: expected false, as "
	  "status says" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"git\": []}",
	  "report.json: $.git: expected an object, got an array" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"environment\": {\"logical_cpus\": "
	  "4294967296}}",
	  "report.json: $.environment.logical_cpus: expected an integer from 0 to 4294967295, got "
	  "4294967296" },
	{ "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"budgets\": [{\"limit\": 1}]}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].budgets[0]: missing \"metric\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"error\": {}}]}",
	  "report.json: $.suites[0].error: missing \"kind\"" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"benchmarks\": [{"
	  "\"commands\": [{\"head\": {\"metrics\": {\"peak_rss\": {\"samples\": "
	  "[9007199254740992]}}}}]}]}]}",
	  "report.json: $.suites[0].benchmarks[0].commands[0].head.metrics.peak_rss.samples[0]: "
	  "expected an integer from 0 to 9007199254740991, got 9007199254740992" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"himorime_version\": \"a\\u0000b\"}",
	  "report.json:1:62: \\u0000 in a string" },
	{ "{\"schema_version\": \"1\", \"mode\": \"run\", \"himorime_version\": \"a\tb\"}",
	  "report.json:1:62: control character in a string" },
};

static void check_bad(const char *json, size_t len, const char *msg)
{
	struct err err = ERR_INIT;
	struct results *r = (struct results *)&err;

	assert_int_equal(results_from_json(json, len, "report.json", &r, &err), ERR_INVALID);
	assert_null(r);
	assert_string_equal(err.msg, msg);
}

/* Comparisons carry the tolerance in percent (docs/comparison.md) next to
 * the fraction, and a reader refuses the two disagreeing. */
static void test_results__comparison_carries_max_percent(void **state)
{
	char *data = slurp("tests/data/reports/v1-compare.json");
	char *at = strstr(data, "\"max_percent\":\t5,"), *bad;

	(void)state;
	assert_non_null(at);
	assert_non_null(strstr(at, "\"max_fraction\":\t0.05,"));
	bad = xasprintf("%.*s\"max_percent\":\t0.05,%s", (int)(at - data), data,
			at + strlen("\"max_percent\":\t5,"));
	check_bad(bad, strlen(bad),
		  "report.json: $.suites[0].benchmarks[0].commands[0].comparisons.latency."
		  "max_percent: expected 5 (max_fraction in percent), got 0.050000000000000003");
	free(bad);
	free(data);
}

/* The noise gate's flag and what a comparison could see survive a round
 * trip; a bad value is refused with its path; results_equal sees them. */
static void test_results__what_a_comparison_could_see_round_trips(void **state)
{
	struct results *r = make_compare(), *other = make_compare();
	struct comparison *k = &r->suites[0].benchmarks[0].commands[0].comparisons[0];
	char *data = slurp("tests/data/reports/v1-compare.json"), *bad;
	const char *at = strstr(data, "\"pairs_to_decide\":\tnull");

	(void)state;
	k->noisy = true;
	k->verdict = VERDICT_INCONCLUSIVE;
	k->pairs_to_decide = 420;
	assert_false(results_equal(r, other));
	check_round_trip(r);
	k->pairs_to_decide = 0;
	k->pairs_to_decide_beyond = true;
	k->has_detectable_low = false;
	check_round_trip(r);
	assert_non_null(at);
	bad = xasprintf("%.*s\"pairs_to_decide\":\t-3%s", (int)(at - data), data,
			at + strlen("\"pairs_to_decide\":\tnull"));
	check_bad(bad, strlen(bad),
		  "report.json: $.suites[0].benchmarks[0].commands[0].comparisons.latency."
		  "pairs_to_decide: expected an integer from 0 to 4294967295, got -3");
	free(bad);
	free(data);
	results_free(other);
	results_free(r);
}

/* The suite lines of benchmarks and commands and the suite's
 * error_conclusion (for the check run) are written only when set, come back,
 * and are checked when read. */
static void test_results__suite_lines_and_error_conclusion(void **state)
{
	struct results *r = make_compare(), *back;
	char *plain = to_json(r), *text, *at, *bad;

	(void)state;
	assert_null(strstr(plain, "\"line\""));
	assert_null(strstr(plain, "error_conclusion"));
	r->suites[0].benchmarks[0].line = 7;
	r->suites[0].benchmarks[0].commands[0].line = 12;
	r->suites[0].error_conclusion_neutral = true;
	text = to_json(r);
	assert_non_null(strstr(text, "\"line\":\t12\n"));
	assert_non_null(strstr(text, "\"line\":\t7\n"));
	assert_non_null(strstr(text, "\"error_conclusion\":\t\"neutral\"\n"));
	check_round_trip(r);
	back = from_json(text);
	r->suites[0].benchmarks[0].commands[0].line = 13;
	assert_false(results_equal(r, back));
	results_free(back);
	at = strstr(text, "\"line\":\t12");
	bad = xasprintf("%.*s\"line\":\t-1%s", (int)(at - text), text,
			at + strlen("\"line\":\t12"));
	check_bad(
		bad, strlen(bad),
		"report.json: $.suites[0].benchmarks[0].commands[0].line: expected an integer from "
		"0 to 4294967295, got -1");
	free(bad);
	at = strstr(text, "\"error_conclusion\":\t\"neutral\"");
	bad = xasprintf("%.*s\"error_conclusion\":\t\"maybe\"%s", (int)(at - text), text,
			at + strlen("\"error_conclusion\":\t\"neutral\""));
	check_bad(bad, strlen(bad),
		  "report.json: $.suites[0].error_conclusion: expected \"failure\" or \"neutral\", "
		  "got \"maybe\"");
	free(bad);
	free(text);
	free(plain);
	results_free(r);
}

static void test_results__hostile_inputs_are_refused(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		print_message("case %zu\n", i);
		check_bad(bad_cases[i].json, strlen(bad_cases[i].json), bad_cases[i].msg);
	}
}

static void test_results__nul_byte_is_refused(void **state)
{
	(void)state;
	check_bad("{\"schema_version\": \"1\",\0 \"mode\": \"run\"}", 38,
		  "report.json:1:24: NUL byte");
}

static void test_results__deep_nesting_is_refused(void **state)
{
	struct strbuf sb;
	int i;

	(void)state;
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "{\"schema_version\": \"1\", \"mode\": \"run\", \"x\": ");
	for (i = 0; i < 100000; i++)
		strbuf_addch(&sb, '[');
	for (i = 0; i < 100000; i++)
		strbuf_addch(&sb, ']');
	strbuf_addch(&sb, '}');
	check_bad(sb.buf, sb.len, "report.json:1:108: nested deeper than 64 levels");
	strbuf_release(&sb);
}

static void test_results__long_strings_are_refused(void **state)
{
	struct strbuf sb;
	size_t i;

	(void)state;
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "{\"schema_version\": \"1\", \"mode\": \"run\", \"himorime_version\": \"");
	for (i = 0; i < 70000; i++)
		strbuf_addch(&sb, 'v');
	strbuf_adds(&sb, "\"}");
	check_bad(sb.buf, sb.len,
		  "report.json: $.himorime_version: string longer than 65536 bytes");
	strbuf_setlen(&sb, 0);
	strbuf_adds(&sb, "{\"schema_version\": \"1\", \"mode\": \"run\", \"suites\": [{\"error\": "
			 "{\"kind\": \"timeout\", \"stderr\": \"");
	for (i = 0; i < 2049; i++)
		strbuf_addch(&sb, 'e');
	strbuf_adds(&sb, "\"}}]}");
	check_bad(sb.buf, sb.len,
		  "report.json: $.suites[0].error.stderr: string longer than 2048 bytes");
	strbuf_setlen(&sb, 0);
	strbuf_adds(&sb, "{\"schema_version\": \"1\", \"mode\": \"compare\", \"suites\": [{"
			 "\"benchmarks\": [{\"commands\": [{\"comparisons\": {\"latency\": "
			 "{\"reason\": \"");
	for (i = 0; i < 200; i++)
		strbuf_addch(&sb, 'r');
	strbuf_adds(&sb, "\"}}}]}]}]}");
	check_bad(sb.buf, sb.len,
		  "report.json: $.suites[0].benchmarks[0].commands[0].comparisons.latency.reason: "
		  "string longer than 199 bytes");
	strbuf_release(&sb);
}

static void test_results__too_many_values_are_refused(void **state)
{
	struct strbuf sb;
	int i;

	(void)state;
	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "{\"schema_version\": \"1\", \"mode\": \"run\", \"x\": [");
	for (i = 0; i < 4000000; i++)
		strbuf_adds(&sb, "0,");
	strbuf_adds(&sb, "0]}");
	check_bad(sb.buf, sb.len, "report.json:1:8000032: more than 4000000 values");
	strbuf_release(&sb);
}

static void test_results__sweep_round_trips(void **state)
{
	struct results *r = make_compare(), *back;
	struct results_commit *c;
	char *a;

	(void)state;
	r->mode = RESULTS_MODE_SWEEP;
	check_round_trip(r);
	r->sweep.present = true;
	results_set_str(&r->sweep.range, "main~20..main");
	results_set_str(&r->sweep.reference, "1111111111111111111111111111111111111111");
	results_set_str(&r->sweep.settings_hash, "0123456789abcdef");
	r->sweep.shard_index = 2;
	r->sweep.shard_count = 3;
	r->sweep.commits = 21;
	c = &r->suites[0].commit;
	c->present = true;
	results_set_str(&c->sha, "2222222222222222222222222222222222222222");
	results_set_str(&c->subject, "Make it faster");
	c->time_unix_ns = T0_NS;
	c->index = 7;
	results_set_str(&c->suite_hash, "fedcba9876543210");
	check_round_trip(r);
	a = to_json(r);
	assert_non_null(strstr(
		a, "\t\t\t\"commit\":\t{\n\t\t\t\t\"sha\":\t"
		   "\"2222222222222222222222222222222222222222\",\n\t\t\t\t\"subject\":\t"
		   "\"Make it faster\",\n\t\t\t\t\"time\":\t\"2025-12-02T18:26:40.123456789Z\""
		   ",\n\t\t\t\t\"index\":\t7,\n\t\t\t\t\"suite_hash\":\t"
		   "\"fedcba9876543210\"\n\t\t\t}"));
	assert_non_null(strstr(a,
			       "\t\"sweep\":\t{\n\t\t\"range\":\t\"main~20..main\",\n\t\t"
			       "\"reference\":\t\"1111111111111111111111111111111111111111\",\n\t\t"
			       "\"settings_hash\":\t\"0123456789abcdef\",\n\t\t\"shard_index\":\t2,"
			       "\n\t\t\"shard_count\":\t3,\n\t\t\"commits\":\t21\n\t}\n}\n"));
	back = from_json(a);
	back->suites[0].commit.index = 8;
	assert_false(results_equal(r, back));
	back->suites[0].commit.index = 7;
	back->sweep.shard_index = 1;
	assert_false(results_equal(r, back));
	back->sweep.shard_index = 2;
	assert_true(results_equal(r, back));
	results_free(back);
	free(a);
	results_free(r);
}

static void test_results__negative_zero_latency_is_refused(void **state)
{
	struct results *r = make_run();

	(void)state;
	results_add_sample(&r->suites[0].benchmarks[0].commands[0].head, METRIC_LATENCY, -0.0);
	check_write_fails(
		r, "cannot write report: \"samples\" holds a value that is not a whole number "
		   "below 2^53");
}

static void test_results__files_are_written_atomically_and_read_back(void **state)
{
	struct err err = ERR_INIT;
	struct results *r = make_compare(), *back;
	char *dir, *path, *big;
	int fd;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	path = xasprintf("%s/report.json", dir);
	assert_int_equal(results_write_file(r, path, &err), 0);
	assert_int_equal(results_read_file(path, &back, &err), 0);
	assert_true(results_equal(r, back));
	results_free(back);
	/* A document that cannot be written leaves the previous report intact. */
	r->seed = 9007199254740992ULL;
	assert_int_equal(results_write_file(r, path, &err), ERR_INTERNAL);
	assert_int_equal(results_read_file(path, &back, &err), 0);
	assert_int_equal(back->seed, 9007199254740991ULL);
	results_free(back);
	/* A file claiming 100 MB is refused before it is read. */
	big = xasprintf("%s/big.json", dir);
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 100 * 1024 * 1024), 0);
	close(fd);
	back = r;
	assert_int_equal(results_read_file(big, &back, &err), ERR_INVALID);
	assert_null(back);
	assert_string_equal(strstr(err.msg, "big.json"), "big.json: larger than 67108864 bytes");
	free(path);
	path = xasprintf("%s/missing.json", dir);
	assert_int_equal(results_read_file(path, &back, &err), ERR_EXEC);
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(big);
	free(path);
	free(dir);
	results_free(r);
}

/* jsonw writes values as reports write them: exact numbers, cJSON's
 * string escapes, times with nanoseconds, null for what is absent. */
static void test_results__jsonw_values_read_as_reports_write_them(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	jsonw_num(&sb, 0.1 + 0.2);
	strbuf_addch(&sb, ' ');
	jsonw_num(&sb, 2032000);
	strbuf_addch(&sb, ' ');
	jsonw_num(&sb, 9007199254740992.0);
	strbuf_addch(&sb, ' ');
	jsonw_num(&sb, NAN);
	strbuf_addch(&sb, ' ');
	jsonw_num(&sb, -INFINITY);
	assert_string_equal(sb.buf, "0.30000000000000004 2032000 9.007199254740992e+15 null null");
	strbuf_reset(&sb);
	assert_int_equal(jsonw_number_text(&sb, NAN), -1);
	assert_string_equal(sb.buf, "");
	jsonw_str(&sb, "a\"b\\c\b\f\n\r\t\x01\x1f\x7f é");
	strbuf_addch(&sb, ' ');
	jsonw_str(&sb, NULL);
	strbuf_addch(&sb, ' ');
	jsonw_bool(&sb, true);
	strbuf_addch(&sb, ' ');
	jsonw_bool(&sb, false);
	assert_string_equal(sb.buf,
			    "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\x7f é\" null true false");
	strbuf_reset(&sb);
	jsonw_time(&sb, T0_NS);
	strbuf_addch(&sb, ' ');
	jsonw_time(&sb, -1);
	assert_string_equal(
		sb.buf, "\"2025-12-02T18:26:40.123456789Z\" \"1969-12-31T23:59:59.999999999Z\"");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results__run_round_trips),
		cmocka_unit_test(test_results__compare_round_trips),
		cmocka_unit_test(test_results__status_sha_only_when_set),
		cmocka_unit_test(test_results__suite_lines_and_error_conclusion),
		cmocka_unit_test(test_results__timings_round_trip),
		cmocka_unit_test(test_results__counts_round_trip),
		cmocka_unit_test(test_results__fixture_counts),
		cmocka_unit_test(test_results__equal_notices_a_changed_value),
		cmocka_unit_test(test_results__cases_and_growth_round_trip),
		cmocka_unit_test(test_results__numbers_are_exact),
		cmocka_unit_test(test_results__numbers_are_written_shortest),
		cmocka_unit_test(test_results__writer_refuses_inexact_values),
		cmocka_unit_test(test_results__stderr_tail_is_bounded_utf8),
		cmocka_unit_test(test_results__fixture_run),
		cmocka_unit_test(test_results__fixture_compare),
		cmocka_unit_test(test_results__comparison_before_what_it_could_see),
		cmocka_unit_test(test_results__what_a_comparison_could_see_round_trips),
		cmocka_unit_test(test_results__fixture_minimal_old_shape),
		cmocka_unit_test(test_results__comparison_carries_max_percent),
		cmocka_unit_test(test_results__unknown_fields_are_ignored),
		cmocka_unit_test(test_results__hostile_inputs_are_refused),
		cmocka_unit_test(test_results__nul_byte_is_refused),
		cmocka_unit_test(test_results__deep_nesting_is_refused),
		cmocka_unit_test(test_results__long_strings_are_refused),
		cmocka_unit_test(test_results__too_many_values_are_refused),
		cmocka_unit_test(test_results__sweep_round_trips),
		cmocka_unit_test(test_results__negative_zero_latency_is_refused),
		cmocka_unit_test(test_results__files_are_written_atomically_and_read_back),
		cmocka_unit_test(test_results__jsonw_values_read_as_reports_write_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
