/*
 * Unit tests of the sweep bookkeeping (src/history/sweep.c) and of the history
 * renderings (src/render/history.c): hashes, shards that partition a range,
 * merging shards and its refusals, series with their change points, and the
 * exact text of each format for a small history.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "history/sweep.h"
#include "render/history.h"
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF "1111111111111111111111111111111111111111"

/* The sha of commit i: 40 hex digits, "a4a4a4..." for commit 4. */
static void sha_of(unsigned i, char out[41])
{
	unsigned k;

	for (k = 0; k < 20; k++)
		snprintf(out + 2 * k, 3, "%02x", i + 0xa0);
}

/* A sweep document holding commits [from, to) of a history whose latency
 * ratio to the reference is ratio(i). */
static struct results *sweep_doc(unsigned from, unsigned to, double (*ratio)(unsigned),
				 const char *settings)
{
	struct results *r = results_new(RESULTS_MODE_SWEEP);
	unsigned i;

	r->sweep.present = true;
	results_set_str(&r->sweep.range, "main~20..main");
	results_set_str(&r->sweep.reference, REF);
	results_set_str(&r->sweep.settings_hash, settings);
	r->sweep.shard_index = 1;
	r->sweep.shard_count = 1;
	r->sweep.commits = 20;
	for (i = from; i < to; i++) {
		struct results_suite *s = results_add_suite(r, "sw");
		struct results_benchmark *b = results_add_benchmark(s, "work");
		struct results_command *c = results_add_command(b, "run", "./run");
		struct comparison cmp;
		char sha[41], subject[16];

		sha_of(i, sha);
		snprintf(subject, sizeof(subject), "c%u", i);
		s->commit.present = true;
		results_set_str(&s->commit.sha, sha);
		results_set_str(&s->commit.subject, subject);
		s->commit.time_unix_ns = INT64_C(1700000000000000000);
		s->commit.index = i;
		results_set_str(&s->commit.suite_hash, "00000000000000aa");
		memset(&cmp, 0, sizeof(cmp));
		cmp.metric = METRIC_LATENCY;
		cmp.base = 2e6;
		cmp.head = 2e6 * ratio(i);
		cmp.has_estimate = true;
		cmp.change_percent = (ratio(i) - 1) * 100;
		cmp.ci_low_percent = cmp.change_percent - 1;
		cmp.ci_high_percent = cmp.change_percent + 1;
		cmp.confidence = 0.99;
		cmp.max_fraction = 0.05;
		cmp.verdict = ratio(i) > 1.05 ? VERDICT_REGRESSION : VERDICT_PASS;
		results_add_comparison(c, &cmp);
	}
	return r;
}

/* Flat with a little noise, then twice as slow from commit 10 on. */
static double step_at_10(unsigned i)
{
	return (i >= 10 ? 2.0 : 1.0) * (1 + 0.004 * (double)((i * 7) % 5));
}

static double flat(unsigned i)
{
	return 1 + 0.004 * (double)((i * 7) % 5);
}

static void test_sweep__hashes_tell_inputs_apart(void **state)
{
	char a[SWEEP_HASH_HEX + 1], b[SWEEP_HASH_HEX + 1];
	const char *const one[] = { "sw/work" };
	const char *const two[] = { "sw/work", "sw/other" };
	struct sweep_settings s;

	(void)state;
	sweep_hash("", 0, a);
	assert_string_equal(a, "cbf29ce484222325"); /* FNV-1a 64 offset basis */
	sweep_hash("a", 1, a);
	assert_string_equal(a, "af63dc4c8601ec8c");
	memset(&s, 0, sizeof(s));
	s.selected = one;
	s.n_selected = 1;
	sweep_settings_hash(&s, a);
	s.has_runs = true;
	s.runs = 15;
	sweep_settings_hash(&s, b);
	assert_string_not_equal(a, b);
	s.selected = two;
	s.n_selected = 2;
	sweep_settings_hash(&s, a);
	assert_string_not_equal(a, b);
	sweep_settings_hash(&s, b);
	assert_string_equal(a, b);
}

static void test_sweep__shards_partition_the_range(void **state)
{
	unsigned k, n;
	size_t count, begin, end, next;
	struct err err = ERR_INIT;

	(void)state;
	for (count = 0; count < 40; count++)
		for (n = 1; n <= 7; n++) {
			next = 0;
			for (k = 1; k <= n; k++) {
				sweep_shard_slice(count, k, n, &begin, &end);
				assert_int_equal(begin, next);
				assert_true(end >= begin && end - begin <= count / n + 1);
				next = end;
			}
			assert_int_equal(next, count);
		}
	assert_int_equal(sweep_shard_parse("2/4", &k, &n, &err), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 4);
	assert_int_equal(sweep_shard_parse("5/4", &k, &n, &err), ERR_USAGE);
	assert_string_equal(err.msg,
			    "--shard \"5/4\": expected K/N with 1 <= K <= N <= 1000, such as 2/4");
	assert_int_equal(sweep_shard_parse("0/4", &k, &n, &err), ERR_USAGE);
	assert_int_equal(sweep_shard_parse("1/1001", &k, &n, &err), ERR_USAGE);
	assert_int_equal(sweep_shard_parse("1/", &k, &n, &err), ERR_USAGE);
	assert_int_equal(sweep_shard_parse("1-2", &k, &n, &err), ERR_USAGE);
}

static void test_sweep__merge_orders_shards_and_keeps_the_header(void **state)
{
	struct results *docs[2], *m = NULL;
	const char *const names[2] = { "b.json", "a.json" };
	struct err err = ERR_INIT;
	size_t i;

	(void)state;
	docs[0] = sweep_doc(10, 20, step_at_10, "00000000000000bb");
	docs[1] = sweep_doc(0, 10, step_at_10, "00000000000000bb");
	docs[0]->sweep.shard_index = 2;
	docs[0]->sweep.shard_count = 2;
	docs[1]->sweep.shard_count = 2;
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), 0);
	assert_int_equal(m->n_suites, 20);
	for (i = 0; i < 20; i++)
		assert_int_equal(m->suites[i].commit.index, i);
	assert_string_equal(m->sweep.reference, REF);
	assert_string_equal(m->sweep.settings_hash, "00000000000000bb");
	assert_int_equal(m->sweep.shard_index, 1);
	assert_int_equal(m->sweep.shard_count, 1);
	assert_int_equal(m->sweep.commits, 20);
	assert_int_equal(docs[0]->n_suites, 0);
	results_free(m);
	results_free(docs[0]);
	results_free(docs[1]);
}

static void test_sweep__merge_refuses_other_sweeps(void **state)
{
	struct results *docs[2], *m = NULL;
	const char *const names[2] = { "a.json", "b.json" };
	struct err err = ERR_INIT;

	(void)state;
	docs[0] = sweep_doc(0, 3, flat, "00000000000000bb");
	docs[1] = sweep_doc(3, 6, flat, "00000000000000cc");
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a.json and b.json were measured with other settings "
				     "(00000000000000bb, 00000000000000cc)");
	results_set_str(&docs[1]->sweep.settings_hash, "00000000000000bb");
	results_set_str(&docs[1]->sweep.reference, "2222222222222222222222222222222222222222");
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a.json and b.json were measured against other references "
				     "(111111111111, 222222222222)");
	results_set_str(&docs[1]->sweep.reference, REF);
	results_set_str(&docs[1]->suites[0].commit.suite_hash, "00000000000000dd");
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), ERR_INVALID);
	assert_string_equal(err.msg, "b.json was measured with other suites "
				     "(sw=00000000000000aa, sw=00000000000000dd) than the first "
				     "slice (sw=00000000000000aa)");
	results_set_str(&docs[1]->suites[0].commit.suite_hash, "00000000000000aa");
	docs[1]->suites[0].commit.index = 2;
	results_set_str(&docs[1]->suites[0].commit.sha, docs[0]->suites[2].commit.sha);
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), ERR_INVALID);
	assert_string_equal(err.msg,
			    "commit a2a2a2a2a2a2 (suite \"sw\") is in more than one slice");
	assert_null(m);
	results_free(docs[1]);
	docs[1] = results_new(RESULTS_MODE_COMPARE);
	assert_int_equal(sweep_merge(docs, names, 2, &m, &err), ERR_INVALID);
	assert_string_equal(err.msg, "b.json is not a sweep's results document");
	results_free(docs[0]);
	results_free(docs[1]);
}

static void test_sweep__series_finds_the_step_and_nothing_in_a_flat_history(void **state)
{
	struct results *doc = sweep_doc(0, 20, step_at_10, "00000000000000bb");
	const struct results *docs[1] = { doc };
	struct sweep_series_list l;
	struct err err = ERR_INIT;
	char sha[41];

	(void)state;
	assert_int_equal(sweep_series_build(docs, 1, METRIC_LATENCY, NULL, &l, &err), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].benchmark, "work");
	assert_int_equal(l.items[0].n_points, 20);
	assert_int_equal(l.items[0].n_changes, 1);
	assert_int_equal(l.items[0].changes[0].index, 10);
	sha_of(10, sha);
	assert_string_equal(l.items[0].points[10].sha, sha);
	assert_true(l.items[0].changes[0].low > 0.9 && l.items[0].changes[0].high < 1.1);
	sweep_series_release(&l);
	/* cpu_total is not measured there: no series */
	assert_int_equal(sweep_series_build(docs, 1, METRIC_CPU_TOTAL, NULL, &l, &err), 0);
	assert_int_equal(l.count, 0);
	sweep_series_release(&l);
	results_free(doc);

	doc = sweep_doc(0, 20, flat, "00000000000000bb");
	docs[0] = doc;
	assert_int_equal(sweep_series_build(docs, 1, METRIC_LATENCY, NULL, &l, &err), 0);
	assert_int_equal(l.items[0].n_changes, 0);
	sweep_series_release(&l);
	results_free(doc);
}

static void test_sweep__series_keeps_the_later_measurement_of_a_commit(void **state)
{
	struct results *a = sweep_doc(0, 4, flat, "00000000000000bb");
	struct results *b = sweep_doc(2, 3, step_at_10, "00000000000000bb");
	const struct results *docs[2] = { a, b };
	struct sweep_series_list l;
	struct err err = ERR_INIT;

	(void)state;
	a->finished_at_unix_ns = 10;
	b->finished_at_unix_ns = 20;
	b->suites[0].benchmarks[0].commands[0].comparisons[0].change_percent = 50;
	assert_int_equal(sweep_series_build(docs, 2, METRIC_LATENCY, NULL, &l, &err), 0);
	assert_int_equal(l.items[0].n_points, 4);
	assert_true(fabs(l.items[0].points[2].ratio - 1.5) < 1e-12);
	sweep_series_release(&l);
	results_free(a);
	results_free(b);
}

static void render(const struct results *doc, enum render_format f, struct strbuf *out)
{
	const struct results *docs[1] = { doc };
	struct sweep_series_list l;
	struct err err = ERR_INIT;

	assert_int_equal(sweep_series_build(docs, 1, METRIC_LATENCY, NULL, &l, &err), 0);
	strbuf_reset(out);
	assert_int_equal(history_render(&l, f, false, out, &err), 0);
	sweep_series_release(&l);
}

static void test_history__renders_exact_text(void **state)
{
	struct results *doc = sweep_doc(4, 8, flat, "00000000000000bb");
	struct strbuf out;
	enum render_format f;
	const char *want;

	(void)state;
	strbuf_init(&out, 0);
	render(doc, RENDER_TABLE, &out);
	assert_string_equal(
		out.buf,
		"sw › work › run: latency relative to 111111111111 (tolerance 5.0%)\n"
		"COMMIT        SUBJECT  VALUE    REFERENCE  RATIO [INTERVAL]      VERDICT\n"
		"a7a7a7a7a7a7  c7       2.03 ms  2.00 ms    1.016 [1.006, 1.026]  pass\n"
		"a6a6a6a6a6a6  c6       2.02 ms  2.00 ms    1.008 [0.998, 1.018]  pass\n"
		"a5a5a5a5a5a5  c5       2.00 ms  2.00 ms    1.000 [0.990, 1.010]  pass\n"
		"a4a4a4a4a4a4  c4       2.02 ms  2.00 ms    1.012 [1.002, 1.022]  pass\n"
		"no step can be called in 4 commits with a ratio at 99% confidence: "
		"that takes at least 16; each commit's verdict against the reference "
		"is in VERDICT\n"
		"no change point\n");
	render(doc, RENDER_CSV, &out);
	assert_string_equal(
		out.buf,
		"suite,benchmark,command,metric,commit,subject,reference,value,reference_value,"
		"ratio,ratio_low,ratio_high,verdict,change_point,change,change_low,change_high\n"
		"sw,work,run,latency,a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7,c7," REF
		",2032000,2000000,1.016,1.006,1.026,pass,,,,\n"
		"sw,work,run,latency,a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6,c6," REF
		",2016000,2000000,1.008,0.998,1.018,pass,,,,\n"
		"sw,work,run,latency,a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5,c5," REF
		",2000000,2000000,1,0.99,1.01,pass,,,,\n"
		"sw,work,run,latency,a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4,c4," REF
		",2024000,2000000,1.012,1.002,1.022,pass,,,,\n");
	render(doc, RENDER_JSON, &out);
	want = "{\"series\": [\n  {\"suite\": \"sw\", \"benchmark\": \"work\", \"command\": "
	       "\"run\", \"metric\": \"latency\", \"reference\": \"" REF "\", \"max_fraction\": "
	       "0.05, \"confidence\": 0.99, \"searched\": 4, \"shortest_step_side\": null, "
	       "\"commits_needed\": 16,\n   \"points\": [\n    {\"commit\": "
	       "\"a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7\", \"subject\": \"c7\", \"time\": "
	       "\"2023-11-14T22:13:20.000000000Z\", \"index\": 7, \"value\": 2032000, "
	       "\"reference_value\": "
	       "2000000, \"ratio\": 1.016, \"ratio_low\": 1.006, \"ratio_high\": 1.026, "
	       "\"verdict\": \"pass\", \"error\": null},\n";
	assert_true(strncmp(out.buf, want, strlen(want)) == 0);
	assert_non_null(strstr(out.buf, "\"ratio_high\": 1.026, \"verdict\": \"pass\", "
					"\"error\": null},\n    {\"commit\": \"a6a6"));
	assert_non_null(strstr(out.buf, "\"changes\": []}]}\n"));
	render(doc, RENDER_MARKDOWN, &out);
	assert_non_null(strstr(out.buf, "| `a7a7a7a7a7a7` | c7 | 2.03 ms | 2.00 ms | "
					"1.016 [1.006, 1.026] | pass |  |\n"));
	render(doc, RENDER_HTML, &out);
	assert_non_null(strstr(out.buf, "<polyline"));
	assert_int_equal(history_format_from_name("markdown", &f), 0);
	assert_int_equal(f, RENDER_MARKDOWN);
	assert_int_equal(history_format_from_name("yaml", &f), -1);
	/* render's formats that a history has no rendering of */
	assert_int_equal(history_format_from_name("github", &f), -1);
	assert_int_equal(history_format_from_name("samples-csv", &f), -1);
	strbuf_release(&out);
	results_free(doc);
}

/* A sweep too short for any step says so, with each commit's verdict. */
static void test_history__a_short_sweep_says_what_it_cannot_see(void **state)
{
	struct results *doc = sweep_doc(4, 12, step_at_10, "00000000000000bb");
	struct strbuf out;

	(void)state;
	strbuf_init(&out, 0);
	render(doc, RENDER_TABLE, &out);
	assert_non_null(strstr(out.buf, "  regression\n"));
	assert_non_null(strstr(out.buf, "\nno step can be called in 8 commits with a ratio at 99% "
					"confidence: that takes at least 16; each commit's verdict "
					"against the reference is in VERDICT\nno change point\n"));
	strbuf_release(&out);
	results_free(doc);
}

/* The commits within the shortest callable step of either end are named:
 * they can never be a first bad commit. */
static void test_history__the_ends_of_a_sweep_say_they_cannot_be_judged(void **state)
{
	struct results *doc = sweep_doc(0, 20, step_at_10, "00000000000000bb");
	struct strbuf out;

	(void)state;
	strbuf_init(&out, 0);
	render(doc, RENDER_TABLE, &out);
	assert_non_null(strstr(out.buf,
			       "\na step needs at least 6 commits on each side at 99% "
			       "confidence: the oldest 6 (a0a0a0a0a0a0, a1a1a1a1a1a1, "
			       "a2a2a2a2a2a2, a3a3a3a3a3a3, a4a4a4a4a4a4, a5a5a5a5a5a5) and "
			       "the newest 5 (afafafafafaf, b0b0b0b0b0b0, b1b1b1b1b1b1, "
			       "b2b2b2b2b2b2, b3b3b3b3b3b3) cannot be judged for a step; their "
			       "verdicts against the reference are in VERDICT\n"));
	assert_non_null(strstr(out.buf, "first bad aaaaaaaaaaaa \"c10\"\n"));
	render(doc, RENDER_HTML, &out);
	assert_non_null(strstr(out.buf, "<th>Verdict</th>"));
	assert_non_null(strstr(out.buf, "<p>a step needs at least 6 commits on each side"));
	strbuf_release(&out);
	results_free(doc);
}

/* A commit whose build failed (its suite has no benchmarks) and one whose
 * benchmark's setup failed (no commands) are rows of the trend with their
 * errors, in every text format. */
static void test_history__a_commit_whose_build_or_setup_failed_shows_in_the_trend(void **state)
{
	struct results *doc = sweep_doc(4, 8, flat, "00000000000000bb");
	struct results_suite *s;
	struct results_benchmark *b;
	struct strbuf out;
	char sha[41];
	unsigned i;

	(void)state;
	for (i = 8; i < 10; i++) {
		sha_of(i, sha);
		s = results_add_suite(doc, "sw");
		s->commit.present = true;
		results_set_str(&s->commit.sha, sha);
		results_set_str(&s->commit.subject, i == 8 ? "c8 setup" : "c9 build");
		s->commit.time_unix_ns = INT64_C(1700000000000000000);
		s->commit.index = i;
		if (i == 9) {
			results_set_error(&s->error, RESULTS_ERROR_BUILD_FAILED,
					  "build (head): exited with code 3", "no compiler\n", 12);
			continue;
		}
		b = results_add_benchmark(s, "work");
		results_set_error(&b->error, RESULTS_ERROR_SETUP_FAILED, "setup \"make\" failed",
				  NULL, 0);
	}
	strbuf_init(&out, 0);
	render(doc, RENDER_TABLE, &out);
	assert_non_null(strstr(out.buf,
			       "VERDICT\n"
			       "a9a9a9a9a9a9  c9 build  -        -          -                "
			       "     -        (build (head): exited with code 3)\n"
			       "a8a8a8a8a8a8  c8 setup  -        -          -                "
			       "     -        (setup \"make\" failed)\n"
			       "a7a7a7a7a7a7  c7        2.03 ms"));
	/* the search sees the four measured commits only */
	assert_non_null(strstr(out.buf, "no step can be called in 4 commits"));
	render(doc, RENDER_MARKDOWN, &out);
	assert_non_null(strstr(out.buf,
			       "| `a9a9a9a9a9a9` | c9 build | - | - | - | - | build (head): "
			       "exited with code 3 |\n| `a8a8a8a8a8a8` | c8 setup | - | - | "
			       "- | - | setup \"make\" failed |\n"));
	render(doc, RENDER_CSV, &out);
	assert_non_null(strstr(out.buf, ",a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9,c9 build," REF
					",,,,,,,,,,\n"));
	render(doc, RENDER_JSON, &out);
	assert_non_null(strstr(out.buf, "\"verdict\": null, \"error\": \"build (head): exited with "
					"code 3\"}"));
	strbuf_release(&out);
	results_free(doc);
}

static void test_history__colour_only_when_asked(void **state)
{
	struct results *doc = sweep_doc(0, 20, step_at_10, "00000000000000bb");
	const struct results *docs[1] = { doc };
	struct sweep_series_list l;
	struct err err = ERR_INIT;
	struct strbuf plain, coloured;
	char *p, *q;

	(void)state;
	strbuf_init(&plain, 0);
	strbuf_init(&coloured, 0);
	assert_int_equal(sweep_series_build(docs, 1, METRIC_LATENCY, NULL, &l, &err), 0);
	assert_int_equal(history_render(&l, RENDER_TABLE, false, &plain, &err), 0);
	assert_int_equal(history_render(&l, RENDER_TABLE, true, &coloured, &err), 0);
	assert_null(strchr(plain.buf, '\x1b'));
	assert_non_null(strstr(coloured.buf, "\x1b[2mCOMMIT"));
	assert_non_null(strstr(coloured.buf, "\x1b[31mregression\x1b[0m"));
	assert_non_null(strstr(coloured.buf, "\x1b[31m<< +"));
	/* Without its escape sequences the coloured text is the plain text. */
	for (p = q = coloured.buf; *p;) {
		if (*p == '\x1b') {
			while (*p && *p != 'm')
				p++;
			if (*p)
				p++;
			continue;
		}
		*q++ = *p++;
	}
	*q = '\0';
	assert_string_equal(coloured.buf, plain.buf);
	/* Other formats never colour. */
	strbuf_reset(&coloured);
	assert_int_equal(history_render(&l, RENDER_MARKDOWN, true, &coloured, &err), 0);
	assert_null(strchr(coloured.buf, '\x1b'));
	sweep_series_release(&l);
	strbuf_release(&plain);
	strbuf_release(&coloured);
	results_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep__hashes_tell_inputs_apart),
		cmocka_unit_test(test_sweep__shards_partition_the_range),
		cmocka_unit_test(test_sweep__merge_orders_shards_and_keeps_the_header),
		cmocka_unit_test(test_sweep__merge_refuses_other_sweeps),
		cmocka_unit_test(test_sweep__series_finds_the_step_and_nothing_in_a_flat_history),
		cmocka_unit_test(test_sweep__series_keeps_the_later_measurement_of_a_commit),
		cmocka_unit_test(test_history__renders_exact_text),
		cmocka_unit_test(test_history__a_short_sweep_says_what_it_cannot_see),
		cmocka_unit_test(test_history__the_ends_of_a_sweep_say_they_cannot_be_judged),
		cmocka_unit_test(
			test_history__a_commit_whose_build_or_setup_failed_shows_in_the_trend),
		cmocka_unit_test(test_history__colour_only_when_asked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
