/*
 * `go test -bench` text (the format of golang.org/design/14313, which
 * benchstat reads): a result line is a name that starts with "Benchmark"
 * (and no lower-case letter after it, as go test requires), the iteration
 * count, then value-unit pairs. Every other line (goos:, pkg:, logs, --- BENCH)
 * is not a result and is passed over, but a line that starts like a result
 * and does not continue like one is an error: a truncated run, or a benchmark
 * that printed on standard output in the middle of its own line. `-count`
 * repeats a name; its lines merge. Units: ns/op ("time"), B/op
 * ("bytes_per_op"), allocs/op ("allocs_per_op"), MB/s ("bytes_per_second",
 * in bytes/s), and any other (b.ReportMetric) kept as printed, its direction
 * neutral.
 *
 * go test appends -N to each name when GOMAXPROCS is N > 1. When every
 * result line ends in the same -N, it is dropped: names then match -bench
 * and stay the same on runners with another number of CPUs. With several
 * -cpu values the suffixes differ and names are kept as printed.
 *
 * The output must end with go test's closing line (PASS, FAIL, ok, or FAIL
 * and the package), or it was cut short. "--- FAIL: BenchmarkX" marks X
 * failed with the first line of its log; a FAIL that names no benchmark is
 * an error for the whole run.
 */
#include "common/alloc.h"
#include "common/strbuf.h"
#include "harness/harness_internal.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

struct line {
	const char *p;
	size_t len;
	size_t no; /* from 1 */
};

struct go {
	struct collect *c;
	const char *suffix; /* "-N" shared by every result line, or NULL */
	size_t suffix_len;
	bool failed; /* a benchmark was marked failed */
};

static const struct {
	const char *printed, *metric, *unit;
	enum better better;
	double scale;
} units[] = {
	{ "ns/op", "time", "ns", BETTER_LOWER, 1 },
	{ "B/op", "bytes_per_op", "bytes", BETTER_LOWER, 1 },
	{ "allocs/op", "allocs_per_op", "allocs", BETTER_LOWER, 1 },
	{ "MB/s", "bytes_per_second", "bytes/s", BETTER_HIGHER, 1e6 },
};

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

static size_t skip_space(const struct line *l, size_t i)
{
	while (i < l->len && is_space(l->p[i]))
		i++;
	return i;
}

static size_t token_end(const struct line *l, size_t i)
{
	while (i < l->len && !is_space(l->p[i]))
		i++;
	return i;
}

/* The next line from *off, without its line break (and carriage return). */
static bool next_line(const struct collect *c, size_t *off, struct line *l)
{
	const char *nl;

	if (*off >= c->len)
		return false;
	l->p = c->data + *off;
	nl = memchr(l->p, '\n', c->len - *off);
	l->len = nl ? (size_t)(nl - l->p) : c->len - *off;
	*off += l->len + (nl != NULL);
	if (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	l->no++;
	return true;
}

/* go test's rule for a benchmark's name: "Benchmark", then no lower case. */
static bool is_result(const struct line *l)
{
	return l->len >= 9 && !memcmp(l->p, "Benchmark", 9) &&
	       (l->len == 9 || l->p[9] < 'a' || l->p[9] > 'z');
}

size_t go_procs_suffix(const char *name, size_t len)
{
	size_t i = len;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < len && i > 0 && name[i - 1] == '-' ? len - i + 1 : 0;
}

static void find_suffix(struct go *g)
{
	struct line l = { .no = 0 };
	size_t off = 0, end, n;
	bool first = true;

	while (next_line(g->c, &off, &l)) {
		if (!is_result(&l))
			continue;
		end = token_end(&l, 0);
		n = go_procs_suffix(l.p, end);
		if (first) {
			g->suffix = l.p + end - n;
			g->suffix_len = n;
			first = false;
		} else if (n != g->suffix_len || memcmp(l.p + end - n, g->suffix, n)) {
			g->suffix_len = 0;
			return;
		}
	}
}

static size_t name_len(const struct go *g, const char *name, size_t len)
{
	if (g->suffix_len && len > g->suffix_len &&
	    !memcmp(name + len - g->suffix_len, g->suffix, g->suffix_len))
		return len - g->suffix_len;
	return len;
}

/* One value and its unit at *i, which moves past them; seen holds the units
 * of the line so far (a unit twice on one line is no repetition). */
static int value(struct go *g, const struct line *l, size_t *i, size_t index, struct strbuf *seen)
{
	struct collect *c = g->c;
	struct where w = WHERE_LINE(l->no, *i + 1), at_unit;
	size_t n, u, k;
	double v;
	char q[128], unit[HARNESS_MAX_UNIT_BYTES + 3];

	n = scan_number(l->p + *i, l->len - *i, &v);
	if (!n || (*i + n < l->len && !is_space(l->p[*i + n]))) {
		quote(q, sizeof(q), l->p + *i, token_end(l, *i) - *i);
		return collect_bad(c, &w, "expected a number, got %s", q);
	}
	u = skip_space(l, *i + n);
	at_unit = WHERE_LINE(l->no, u + 1);
	if (u == l->len)
		return collect_bad(c, &at_unit, "expected a unit after %.*s", (int)n, l->p + *i);
	*i = token_end(l, u);
	if (*i - u > HARNESS_MAX_UNIT_BYTES)
		return collect_bad(c, &at_unit, "unit longer than %u bytes",
				   HARNESS_MAX_UNIT_BYTES);
	snprintf(unit, sizeof(unit), "\t%.*s\t", (int)(*i - u), l->p + u);
	if (strstr(seen->buf, unit))
		return collect_bad(c, &at_unit, "unit %.*s twice on one line", (int)(*i - u),
				   l->p + u);
	strbuf_add(seen, unit + 1, strlen(unit) - 1);
	unit[strlen(unit) - 1] = '\0';
	for (k = 0; k < ARRAY_SIZE(units); k++)
		if (!strcmp(unit + 1, units[k].printed))
			return collect_value(c, index, units[k].metric, units[k].unit,
					     units[k].better, v * units[k].scale, &w);
	return collect_value(c, index, unit + 1, unit + 1, BETTER_NEUTRAL, v, &w);
}

static int result(struct go *g, const struct line *l)
{
	struct collect *c = g->c;
	size_t end = token_end(l, 0), i = skip_space(l, end), n, index;
	struct where w = WHERE_LINE(l->no, 1);
	struct strbuf seen;
	double iters;
	char q[128];
	int rc = 0;

	if (collect_benchmark(c, l->p, name_len(g, l->p, end), IDENT_SAME, &w, &index))
		return ERR_INVALID;
	w.col = i + 1;
	if (i == l->len)
		return collect_bad(c, &w,
				   "expected the iteration count after the benchmark name, got the "
				   "end of the line");
	n = scan_number(l->p + i, l->len - i, &iters);
	if (!n || (i + n < l->len && !is_space(l->p[i + n])) || iters < 1 ||
	    memchr(l->p + i, '.', n) || memchr(l->p + i, 'e', n)) {
		quote(q, sizeof(q), l->p + i, token_end(l, i) - i);
		return collect_bad(c, &w,
				   "expected the iteration count after the benchmark name, got %s "
				   "(did the benchmark print on standard output?)",
				   q);
	}
	i = skip_space(l, i + n);
	w.col = i + 1;
	if (i == l->len)
		return collect_bad(c, &w, "expected values and units after the iteration count");
	strbuf_init(&seen, 0);
	strbuf_addch(&seen, '\t');
	while (!rc && i < l->len) {
		rc = value(g, l, &i, index, &seen);
		i = skip_space(l, i);
	}
	strbuf_release(&seen);
	return rc;
}

/* "--- FAIL: BenchmarkX": X failed, with the first line of its log. */
static int failure(struct go *g, const struct line *l, size_t off)
{
	struct collect *c = g->c;
	struct line log = *l;
	struct where w = WHERE_LINE(l->no, 11);
	size_t end = token_end(l, 10), index, i;

	if (end - 10 < 9 || memcmp(l->p + 10, "Benchmark", 9))
		return 0; /* a test's failure: the closing FAIL will say */
	if (collect_benchmark(c, l->p + 10, name_len(g, l->p + 10, end - 10), IDENT_SAME, &w,
			      &index))
		return ERR_INVALID;
	g->failed = true;
	if (next_line(c, &off, &log) && log.len > 4 && !memcmp(log.p, "    ", 4)) {
		i = skip_space(&log, 0);
		collect_error(c, index, log.p + i, log.len - i);
	} else {
		collect_error(c, index, "", 0);
	}
	return 0;
}

static bool starts(const struct line *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && !memcmp(l->p, s, n);
}

static bool is_closing(const struct line *l, bool *fail)
{
	*fail = starts(l, "FAIL") && (l->len == 4 || is_space(l->p[4]));
	return *fail || (starts(l, "PASS") && l->len == 4) ||
	       (starts(l, "ok") && l->len > 2 && is_space(l->p[2])) ||
	       (starts(l, "?") && l->len > 1 && is_space(l->p[1]));
}

int parse_go_test(struct collect *c)
{
	struct go g = { .c = c };
	struct line l = { .no = 0 }, last = { .no = 0 };
	size_t off = 0;
	bool fail = false;

	find_suffix(&g);
	while (next_line(c, &off, &l)) {
		if (is_result(&l)	       ? result(&g, &l)
		    : starts(&l, "--- FAIL: ") ? failure(&g, &l, off)
					       : 0)
			return ERR_INVALID;
		if (skip_space(&l, 0) < l.len)
			last = l;
	}
	if (!last.no || !is_closing(&last, &fail)) {
		struct where w = WHERE_LINE(l.no + 1, 0);
		return collect_bad(c, &w,
				   "output ends early: expected go test's closing PASS, FAIL or ok "
				   "line");
	}
	if (fail && !g.failed) {
		struct where w = WHERE_LINE(last.no, 1);
		return collect_bad(c, &w,
				   "go test reported FAIL and named no failed benchmark (a test "
				   "failed, or the program panicked?)");
	}
	return 0;
}
