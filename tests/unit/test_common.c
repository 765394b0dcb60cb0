/*
 * Unit tests of the common helpers: strbuf caps, the seeded generator's
 * reproducibility, atomic writes, metric names and the name tables of the
 * shared types (common/types.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "common/metric.h"
#include "common/rng.h"
#include "common/strbuf.h"
#include "common/types.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_common__strbuf_appends_and_formats(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	assert_string_equal(sb.buf, "");
	assert_int_equal(strbuf_adds(&sb, "ab"), 0);
	assert_int_equal(strbuf_addf(&sb, "-%d-%s", 42, "x"), 0);
	assert_int_equal(strbuf_addch(&sb, '!'), 0);
	assert_string_equal(sb.buf, "ab-42-x!");
	assert_int_equal(sb.len, 8);
	strbuf_setlen(&sb, 2);
	assert_string_equal(sb.buf, "ab");
	strbuf_release(&sb);
}

static void test_common__err_keeps_quoted_text_on_one_line(void **state)
{
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(err_set(&err, ERR_USAGE, "name \"%s\"", "a\n::error::x\r\x1b[31m\tb\x7f"),
			 ERR_USAGE);
	assert_string_equal(err.msg, "name \"a\\n::error::x\\r\\x1b[31m\tb\\x7f\"");
	assert_int_equal(err_wrap(&err, "suite \"%s\"", "s\n::warning::y"), ERR_USAGE);
	assert_string_equal(err.msg, "suite \"s\\n::warning::y\": name \"a\\n::error::x\\r"
				     "\\x1b[31m\tb\\x7f\"");
}

static void test_common__strbuf_cap_refuses_growth(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 4);
	assert_int_equal(strbuf_adds(&sb, "abcd"), 0);
	assert_int_equal(strbuf_adds(&sb, "e"), -1);
	assert_int_equal(strbuf_addf(&sb, "%d", 1), -1);
	assert_string_equal(sb.buf, "abcd");
	strbuf_release(&sb);
}

static void test_common__strbuf_detach_of_empty(void **state)
{
	struct strbuf sb;
	size_t len = 99;
	char *s;

	(void)state;
	strbuf_init(&sb, 0);
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
}

/* An empty strbuf is "", never NULL, however it became empty: declared with
 * STRBUF_INIT, released, reset or detached. Its string is the shared empty
 * one, which nothing writes to or frees. */
static void test_common__strbuf_empty_is_never_null(void **state)
{
	struct strbuf sb = STRBUF_INIT, capped;
	size_t len = 99;
	char *s;

	(void)state;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	assert_ptr_equal(sb.buf, strbuf_empty);
	strbuf_reset(&sb);
	strbuf_setlen(&sb, 5);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb); /* nothing to free: the shared "" stays */
	assert_ptr_equal(sb.buf, strbuf_empty);
	s = strbuf_detach(&sb, &len);
	assert_ptr_not_equal(s, strbuf_empty); /* the caller's to free */
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	assert_ptr_equal(sb.buf, strbuf_empty);
	assert_int_equal(strbuf_adds(&sb, "abc"), 0);
	assert_ptr_not_equal(sb.buf, strbuf_empty);
	strbuf_reset(&sb);
	assert_string_equal(sb.buf, "");
	s = strbuf_detach(&sb, NULL);
	assert_string_equal(s, "");
	free(s);
	assert_ptr_equal(sb.buf, strbuf_empty);
	assert_int_equal(strbuf_addf(&sb, "%d", 7), 0);
	strbuf_release(&sb);
	assert_ptr_equal(sb.buf, strbuf_empty);
	assert_string_equal(strbuf_empty, "");
	/* release and detach keep the cap */
	strbuf_init(&capped, 3);
	assert_int_equal(strbuf_adds(&capped, "abc"), 0);
	strbuf_release(&capped);
	assert_int_equal(capped.cap, 3);
	assert_int_equal(strbuf_adds(&capped, "abcd"), -1);
	assert_ptr_equal(capped.buf, strbuf_empty);
	assert_int_equal(strbuf_adds(&capped, "ab"), 0);
	free(strbuf_detach(&capped, NULL));
	assert_int_equal(capped.cap, 3);
	assert_int_equal(strbuf_adds(&capped, "abcd"), -1);
	assert_string_equal(capped.buf, "");
}

static void test_common__rng_is_reproducible(void **state)
{
	struct rng a, b, c;
	int i, same = 0;

	(void)state;
	rng_init(&a, 42, "bench");
	rng_init(&b, 42, "bench");
	rng_init(&c, 42, "other");
	for (i = 0; i < 100; i++) {
		uint64_t x = rng_next(&a);
		assert_int_equal(x, rng_next(&b));
		same += x == rng_next(&c);
	}
	assert_int_equal(same, 0);
}

static void test_common__rng_below_is_in_range_and_covers(void **state)
{
	struct rng r;
	int seen[7] = { 0 };
	int i;

	(void)state;
	rng_init(&r, 7, NULL);
	for (i = 0; i < 7000; i++) {
		uint64_t x = rng_below(&r, 7);
		assert_true(x < 7);
		seen[x]++;
	}
	for (i = 0; i < 7; i++)
		assert_in_range(seen[i], 850, 1150);
}

static void test_common__rng_shuffle_is_a_permutation(void **state)
{
	struct rng r;
	size_t idx[10];
	int seen[10] = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 10; i++)
		idx[i] = i;
	rng_init(&r, 1, "x");
	rng_shuffle(&r, idx, 10);
	for (i = 0; i < 10; i++)
		seen[idx[i]]++;
	for (i = 0; i < 10; i++)
		assert_int_equal(seen[i], 1);
}

static void test_common__fresh_seed_fits_53_bits(void **state)
{
	(void)state;
	assert_true(rng_fresh_seed() <= RNG_SEED_MAX);
}

static void test_common__atomic_write_replaces_whole_file(void **state)
{
	struct err err = ERR_INIT;
	char *dir, *path, *data;
	size_t len;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	path = xasprintf("%s/out.txt", dir);
	assert_int_equal(fsio_write_atomic(path, "first", 5, &err), 0);
	assert_int_equal(fsio_write_atomic(path, "second", 6, &err), 0);
	assert_int_equal(fsio_read_file(path, 100, &data, &len, &err), 0);
	assert_string_equal(data, "second");
	assert_int_equal(len, 6);
	free(data);
	assert_int_equal(fsio_read_file(path, 3, &data, &len, &err), ERR_INVALID);
	assert_null(data);
	assert_string_equal(err.msg + strlen(err.msg) - strlen("is larger than 3 bytes"),
			    "is larger than 3 bytes");
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	assert_int_equal(access(dir, F_OK), -1);
	free(path);
	free(dir);
}

static void test_common__read_file_refuses_special_files(void **state)
{
	struct err err = ERR_INIT;
	char *dir, *fifo, *data = NULL, *want;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	fifo = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* A FIFO without a writer: a blocking open would never return. */
	assert_int_equal(fsio_read_file(fifo, 100, &data, NULL, &err), ERR_EXEC);
	assert_null(data);
	want = xasprintf("cannot read \"%s\": not a regular file (a FIFO)", fifo);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(fsio_read_file(dir, 100, &data, NULL, &err), ERR_EXEC);
	want = xasprintf("cannot read \"%s\": not a regular file (a directory)", dir);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(fsio_read_file("/dev/zero", 100, &data, NULL, &err), ERR_EXEC);
	assert_string_equal(err.msg,
			    "cannot read \"/dev/zero\": not a regular file (a character device)");
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(fifo);
	free(dir);
}

/* Capped reads (files the measured code can write): the time allowed, the
 * size and a file that grows past it after the open. */
static void test_common__capped_read_keeps_its_caps(void **state)
{
	struct err err = ERR_INIT;
	struct fsio_capped f;
	char *dir, *path, *data = NULL, *want, buf[16];
	size_t len;
	int fd;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	path = xasprintf("%s/f", dir);
	assert_int_equal(fsio_write_atomic(path, "0123456789", 10, &err), 0);
	assert_int_equal(fsio_capped_read_all(path, 10, clock_monotonic_ns() + 1000000000u, &data,
					      &len, &err),
			 0);
	assert_int_equal(len, 10);
	assert_string_equal(data, "0123456789");
	free(data);
	/* the deadline has passed: nothing more is read */
	assert_int_equal(fsio_capped_read_all(path, 10, 0, &data, &len, &err), ERR_EXEC);
	want = xasprintf("cannot read \"%s\": took longer than the time allowed", path);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(fsio_capped_read_all(path, 9, clock_monotonic_ns() + 1000000000u, &data,
					      &len, &err),
			 ERR_EXEC);
	want = xasprintf("cannot read \"%s\": larger than 9 bytes", path);
	assert_string_equal(err.msg, want);
	free(want);
	/* grown after the open: the cap still holds */
	assert_int_equal(fsio_capped_open(&f, path, 10, clock_monotonic_ns() + 1000000000u, &err),
			 0);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(fsio_capped_read(&f, buf, sizeof(buf), &err), ERR_EXEC);
	want = xasprintf("cannot read \"%s\": larger than 10 bytes", path);
	assert_string_equal(err.msg, want);
	free(want);
	fsio_capped_close(&f);
	fsio_capped_close(&f); /* twice is harmless */
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(path);
	free(dir);
}

/* Appending (the step summary, GITHUB_OUTPUT) never waits on a FIFO. */
static void test_common__append_refuses_a_fifo(void **state)
{
	struct err err = ERR_INIT;
	char *dir, *fifo, *want;
	int reader;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	fifo = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	want = xasprintf("cannot append to \"%s\": not a regular file (a FIFO)", fifo);
	/* no reader: a blocking open would wait for one */
	assert_int_equal(fsio_append(fifo, "x", 1, &err), ERR_EXEC);
	assert_string_equal(err.msg, want);
	/* a reader: the open succeeds, the check refuses */
	reader = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);
	assert_int_equal(fsio_append(fifo, "x", 1, &err), ERR_EXEC);
	assert_string_equal(err.msg, want);
	close(reader);
	free(want);
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(fifo);
	free(dir);
}

static void test_common__atomic_write_failure_keeps_old_file(void **state)
{
	struct err err = ERR_INIT;
	char *dir, *path, *data;
	size_t len;

	(void)state;
	if (geteuid() == 0)
		skip(); /* root writes into read-only directories */
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	path = xasprintf("%s/out.txt", dir);
	assert_int_equal(fsio_write_atomic(path, "keep", 4, &err), 0);
	chmod(dir, 0500);
	assert_int_equal(fsio_write_atomic(path, "lost", 4, &err), ERR_EXEC);
	chmod(dir, 0700);
	assert_int_equal(fsio_read_file(path, 100, &data, &len, &err), 0);
	assert_string_equal(data, "keep");
	free(data);
	fsio_remove_tree(dir, &err);
	free(path);
	free(dir);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_common__atomic_writer_in_steps_commits_or_keeps_the_old_file(void **state)
{
	struct err err = ERR_INIT;
	struct fsio_atomic a;
	char *dir, *path, *missing, *want, *data;
	size_t len;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	path = xasprintf("%s/out.txt", dir);
	assert_int_equal(fsio_write_atomic(path, "keep", 4, &err), 0);
	/* dropped half way: the old text, and no temporary file */
	assert_int_equal(fsio_atomic_open(&a, path, &err), 0);
	assert_int_equal(entries(dir), 2);
	assert_int_equal(fsio_atomic_write(&a, "part", 4, &err), 0);
	fsio_atomic_abort(&a);
	fsio_atomic_abort(&a); /* twice is harmless */
	assert_int_equal(entries(dir), 1);
	assert_int_equal(fsio_read_file(path, 100, &data, &len, &err), 0);
	assert_string_equal(data, "keep");
	free(data);
	/* written in two steps and committed: the new text, nothing else */
	assert_int_equal(fsio_atomic_open(&a, path, &err), 0);
	assert_int_equal(fsio_atomic_write(&a, "new ", 4, &err), 0);
	assert_int_equal(fsio_atomic_write(&a, "text", 4, &err), 0);
	assert_int_equal(fsio_atomic_commit(&a, &err), 0);
	fsio_atomic_abort(&a); /* after a commit: nothing to do */
	assert_int_equal(entries(dir), 1);
	assert_int_equal(fsio_read_file(path, 100, &data, &len, &err), 0);
	assert_string_equal(data, "new text");
	assert_int_equal(len, 8);
	free(data);
	/* a directory that does not exist: the error, and nothing to release */
	missing = xasprintf("%s/no/out.txt", dir);
	assert_int_equal(fsio_atomic_open(&a, missing, &err), ERR_EXEC);
	want = xasprintf("cannot write \"%s\": No such file or directory", missing);
	assert_string_equal(err.msg, want);
	fsio_atomic_abort(&a);
	assert_int_equal(entries(dir), 1);
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(want);
	free(missing);
	free(path);
	free(dir);
}

static void test_common__remove_tree_handles_read_only_dirs(void **state)
{
	struct err err = ERR_INIT;
	char *dir, *sub, *file;

	(void)state;
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	sub = xasprintf("%s/ro", dir);
	file = xasprintf("%s/ro/f", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(fsio_write_atomic(file, "x", 1, &err), 0);
	chmod(sub, 0500);
	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(fsio_remove_tree(dir, &err), 0); /* missing is fine */
	free(file);
	free(sub);
	free(dir);
}

static void test_common__same_content_compares_every_byte(void **state)
{
	enum { SIZE = 200000 }; /* three reads of 64 KiB and a short one */
	struct err err = ERR_INIT;
	char *dir, *a, *b, *c, *missing, *data = xmalloc(SIZE);
	size_t i;

	(void)state;
	for (i = 0; i < SIZE; i++)
		data[i] = (char)(i * 7);
	assert_int_equal(fsio_mkdtemp("himorime-test-", &dir, &err), 0);
	a = xasprintf("%s/a", dir);
	b = xasprintf("%s/b", dir);
	c = xasprintf("%s/c", dir);
	missing = xasprintf("%s/missing", dir);
	assert_int_equal(fsio_write_atomic(a, data, SIZE, &err), 0);
	assert_int_equal(fsio_write_atomic(b, data, SIZE, &err), 0);
	assert_int_equal(fsio_write_atomic(c, data, SIZE - 1, &err), 0);
	assert_true(fsio_same_content(a, b));
	assert_false(fsio_same_content(a, c)); /* one byte shorter */
	assert_false(fsio_same_content(c, a));
	data[SIZE - 1] ^= 1;
	assert_int_equal(fsio_write_atomic(b, data, SIZE, &err), 0);
	assert_false(fsio_same_content(a, b)); /* the last byte differs */
	assert_false(fsio_same_content(a, missing));
	assert_false(fsio_same_content(missing, missing));
	assert_int_equal(fsio_write_atomic(b, "", 0, &err), 0);
	assert_int_equal(fsio_write_atomic(c, "", 0, &err), 0);
	assert_true(fsio_same_content(b, c)); /* two empty files */
	fsio_remove_tree(dir, &err);
	free(missing);
	free(c);
	free(b);
	free(a);
	free(dir);
	free(data);
}

static void test_common__metric_names_round_trip(void **state)
{
	enum metric m;
	enum verdict v;
	enum result_state r;
	int i;

	(void)state;
	for (i = 0; i < METRIC__COUNT; i++) {
		assert_int_equal(metric_from_name(metric_info((enum metric)i)->name, &m), 0);
		assert_int_equal(m, i);
	}
	assert_int_equal(metric_from_name("peak_rss", &m), 0);
	assert_int_equal(m, METRIC_PEAK_RSS);
	assert_int_equal(metric_from_name("memory", &m), -1);
	assert_int_equal(verdict_from_name("inconclusive", &v), 0);
	assert_int_equal(v, VERDICT_INCONCLUSIVE);
	assert_int_equal(result_state_from_name("over_budget", &r), 0);
	assert_int_equal(r, RESULT_OVER_BUDGET);
	assert_true(RESULT_INCONCLUSIVE < RESULT_OVER_BUDGET);
	assert_true(RESULT_REGRESSION < RESULT_METRIC_ERROR);
}

/* Each table: every value's name gives the value back and the names are
 * those of the formats (docs/reports.md); an unknown name is refused and
 * leaves *out alone. */
static void test_common__vocab_names_round_trip(void **state)
{
	static const char *const want[][10] = {
		[VOCAB_VERDICT] = { "pass", "improved", "regression", "inconclusive", "skipped" },
		[VOCAB_RESULT_STATE] = { "pass", "new_suite", "new", "removed", "improved",
					 "inconclusive", "over_budget", "regression",
					 "metric_error", "error" },
		[VOCAB_BUDGET_STATUS] = { "pass", "fail", "skipped", "no_data" },
		[VOCAB_SIDE_STATISTIC] = { "median", "mean" },
		[VOCAB_BOUND_OP] = { "<", "<=", ">", ">=" },
		[VOCAB_SCHEDULE] = { "interleaved", "duet" },
	};
	static const size_t count[] = { 5, 10, 4, 2, 4, 2 };
	size_t t, i, n;

	(void)state;
	for (t = 0; t < ARRAY_SIZE(count); t++) {
		const char *const *names = vocab_names((enum vocab)t, &n);
		assert_int_equal(n, count[t]);
		for (i = 0; i < n; i++)
			assert_string_equal(names[i], want[t][i]);
	}
	for (i = 0; i <= VERDICT_SKIPPED; i++) {
		enum verdict v = VERDICT_SKIPPED;
		assert_int_equal(verdict_from_name(verdict_name((enum verdict)i), &v), 0);
		assert_int_equal(v, i);
	}
	for (i = 0; i <= RESULT_ERROR; i++) {
		enum result_state r = RESULT_ERROR;
		assert_int_equal(
			result_state_from_name(result_state_name((enum result_state)i), &r), 0);
		assert_int_equal(r, i);
	}
	for (i = 0; i <= BUDGET_NO_DATA; i++) {
		enum budget_status b = BUDGET_NO_DATA;
		assert_int_equal(
			budget_status_from_name(budget_status_name((enum budget_status)i), &b), 0);
		assert_int_equal(b, i);
	}
	for (i = 0; i <= SIDE_MEAN; i++) {
		enum side_statistic s = SIDE_MEAN;
		assert_int_equal(
			side_statistic_from_name(side_statistic_name((enum side_statistic)i), &s),
			0);
		assert_int_equal(s, i);
	}
	for (i = 0; i <= SCHEDULE_DUET; i++) {
		enum schedule sc = SCHEDULE_DUET;
		assert_int_equal(schedule_from_name(schedule_name((enum schedule)i), &sc), 0);
		assert_int_equal(sc, i);
	}
	for (i = 0; i <= BOUND_GE; i++) {
		enum bound_op op = BOUND_GE;
		assert_int_equal(bound_op_from_name(bound_op_name((enum bound_op)i), &op), 0);
		assert_int_equal(op, i);
	}
}

static void test_common__vocab_refuses_unknown_names(void **state)
{
	enum verdict v = VERDICT_SKIPPED;
	enum result_state r = RESULT_ERROR;
	enum budget_status b = BUDGET_NO_DATA;
	enum side_statistic s = SIDE_MEAN;
	enum bound_op op = BOUND_GE;

	(void)state;
	assert_int_equal(verdict_from_name("passed", &v), -1);
	assert_int_equal(verdict_from_name("", &v), -1);
	assert_int_equal(result_state_from_name("over budget", &r), -1);
	assert_int_equal(budget_status_from_name("PASS", &b), -1);
	assert_int_equal(side_statistic_from_name("p50", &s), -1);
	assert_int_equal(bound_op_from_name("=<", &op), -1);
	assert_int_equal(bound_op_from_name("<= ", &op), -1);
	assert_int_equal(v, VERDICT_SKIPPED);
	assert_int_equal(r, RESULT_ERROR);
	assert_int_equal(b, BUDGET_NO_DATA);
	assert_int_equal(s, SIDE_MEAN);
	assert_int_equal(op, BOUND_GE);
}

/* One formatter for `list` and reports: names, whole percentiles as
 * integers, others in the shortest form that reads back bit for bit. */
static void test_common__aggregation_names_round_trip(void **state)
{
	static const struct {
		const char *text;
		enum aggregation_kind kind;
		double percentile;
	} cases[] = {
		{ "min", AGG_MIN, 0 },
		{ "max", AGG_MAX, 0 },
		{ "mean", AGG_MEAN, 0 },
		{ "median", AGG_MEDIAN, 0 },
		{ "p1", AGG_PERCENTILE, 1 },
		{ "p95", AGG_PERCENTILE, 95 },
		{ "p99.9", AGG_PERCENTILE, 99.9 },
		{ "p0.5", AGG_PERCENTILE, 0.5 },
		{ "p33.333333333333336", AGG_PERCENTILE, 100.0 / 3 },
		{ "p1e-05", AGG_PERCENTILE, 1e-5 },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct aggregation a = { cases[i].kind, cases[i].percentile }, back;
		assert_ptr_equal(aggregation_name(&a, buf, sizeof(buf)), buf);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(aggregation_from_name(buf, &back), 0);
		assert_int_equal(back.kind, a.kind);
		assert_memory_equal(&back.percentile, &a.percentile, sizeof(double));
	}
}

static void test_common__aggregation_refuses_bad_percentiles(void **state)
{
	static const char *const bad[] = { "p0",  "p100", "p",	     "p-5",    "pp5",
					   "p5x", "P95",  "average", "p1e400", "" };
	struct aggregation a = { AGG_PERCENTILE, 100 };
	char buf[64];
	size_t i;

	(void)state;
	assert_null(aggregation_name(&a, buf, sizeof(buf)));
	a.percentile = 0;
	assert_null(aggregation_name(&a, buf, sizeof(buf)));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(aggregation_from_name(bad[i], &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common__strbuf_appends_and_formats),
		cmocka_unit_test(test_common__err_keeps_quoted_text_on_one_line),
		cmocka_unit_test(test_common__strbuf_cap_refuses_growth),
		cmocka_unit_test(test_common__strbuf_detach_of_empty),
		cmocka_unit_test(test_common__strbuf_empty_is_never_null),
		cmocka_unit_test(test_common__rng_is_reproducible),
		cmocka_unit_test(test_common__rng_below_is_in_range_and_covers),
		cmocka_unit_test(test_common__rng_shuffle_is_a_permutation),
		cmocka_unit_test(test_common__fresh_seed_fits_53_bits),
		cmocka_unit_test(test_common__atomic_write_replaces_whole_file),
		cmocka_unit_test(test_common__read_file_refuses_special_files),
		cmocka_unit_test(test_common__capped_read_keeps_its_caps),
		cmocka_unit_test(test_common__append_refuses_a_fifo),
		cmocka_unit_test(test_common__atomic_write_failure_keeps_old_file),
		cmocka_unit_test(test_common__atomic_writer_in_steps_commits_or_keeps_the_old_file),
		cmocka_unit_test(test_common__remove_tree_handles_read_only_dirs),
		cmocka_unit_test(test_common__same_content_compares_every_byte),
		cmocka_unit_test(test_common__metric_names_round_trip),
		cmocka_unit_test(test_common__vocab_names_round_trip),
		cmocka_unit_test(test_common__vocab_refuses_unknown_names),
		cmocka_unit_test(test_common__aggregation_names_round_trip),
		cmocka_unit_test(test_common__aggregation_refuses_bad_percentiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
