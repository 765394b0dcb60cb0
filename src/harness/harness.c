/*
 * The harness outputs of harness.h: the table of kinds, the collector that
 * every parser fills (names, values, units, repeated names, limits), the
 * medians, the name index, and the small readers the parsers share
 * (numbers, UTF-8, JSON values with their paths).
 */
#include "harness/harness.h"

#include "common/alloc.h"
#include "harness/harness_internal.h"
#include "results/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct kind_row {
	const char *name;
	int (*parse)(struct collect *c);
	/* Said when the output holds no benchmark. */
	const char *none;
};

static const struct kind_row kinds[HARNESS__COUNT] = {
	[HARNESS_GOOGLE_BENCHMARK] = { "google-benchmark", parse_google_benchmark,
				       "no benchmark in $.benchmarks (only aggregates? run without "
				       "--benchmark_report_aggregates_only)" },
	[HARNESS_GO_TEST] = { "go-test", parse_go_test,
			      "no benchmark result line (did -bench match any benchmark?)" },
	[HARNESS_PYTEST_BENCHMARK] = { "pytest-benchmark", parse_pytest_benchmark,
				       "no benchmark in $.benchmarks" },
	[HARNESS_CATCH2] = { "catch2", parse_catch2, "no BenchmarkResults element" },
	[HARNESS_HYPERFINE] = { "hyperfine", parse_hyperfine, "no command in $.results" },
	[HARNESS_LINES] = { "lines", parse_lines, "no line with a value" },
};

const char *harness_kind_name(enum harness_kind kind)
{
	return kinds[kind].name;
}

int harness_kind_from_name(const char *name, enum harness_kind *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(name, kinds[i].name)) {
			*out = (enum harness_kind)i;
			return 0;
		}
	return -1;
}

/* ---- the name index: open addressing over FNV-1a, slots hold index + 1 */

struct harness_index {
	size_t *slots;
	size_t cap; /* a power of two, at least twice the benchmarks */
};

static size_t hash_name(const char *s)
{
	size_t h = (size_t)1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
	return h;
}

static size_t *index_slot(const struct harness_output *out, const char *name)
{
	struct harness_index *ix = out->index;
	size_t i = hash_name(name) & (ix->cap - 1);

	while (ix->slots[i] && strcmp(out->benchmarks[ix->slots[i] - 1].name, name))
		i = (i + 1) & (ix->cap - 1);
	return &ix->slots[i];
}

static void index_add(struct harness_output *out, size_t index)
{
	struct harness_index *ix = out->index;

	if (!ix) {
		ix = out->index = xcalloc(1, sizeof(*ix));
		ix->cap = 16;
		ix->slots = xcalloc(ix->cap, sizeof(*ix->slots));
	}
	if (2 * (index + 1) > ix->cap) {
		size_t i, old = ix->cap;
		free(ix->slots);
		ix->cap = old * 2;
		ix->slots = xcalloc(ix->cap, sizeof(*ix->slots));
		for (i = 0; i < index; i++)
			*index_slot(out, out->benchmarks[i].name) = i + 1;
	}
	*index_slot(out, out->benchmarks[index].name) = index + 1;
}

const struct harness_benchmark *harness_output_find(const struct harness_output *out,
						    const char *name)
{
	size_t slot;

	if (!out->index)
		return NULL;
	slot = *index_slot(out, name);
	return slot ? &out->benchmarks[slot - 1] : NULL;
}

const struct harness_metric *harness_benchmark_metric(const struct harness_benchmark *b,
						      const char *metric)
{
	size_t i;

	for (i = 0; i < b->n_metrics; i++)
		if (!strcmp(b->metrics[i].name, metric))
			return &b->metrics[i];
	return NULL;
}

/* ---- the output */

void harness_output_init(struct harness_output *out)
{
	*out = (struct harness_output)HARNESS_OUTPUT_INIT;
}

void harness_output_release(struct harness_output *out)
{
	size_t i, j;

	if (!out)
		return;
	for (i = 0; i < out->n_benchmarks; i++) {
		struct harness_benchmark *b = &out->benchmarks[i];
		for (j = 0; j < b->n_metrics; j++) {
			free(b->metrics[j].name);
			free(b->metrics[j].unit);
			free(b->metrics[j].values);
		}
		free(b->metrics);
		free(b->name);
		free(b->error);
	}
	free(out->benchmarks);
	if (out->index)
		free(out->index->slots);
	free(out->index);
	harness_output_init(out);
}

/* Arrays that never shrink grow when their count reaches 8, 16, 32...: the
 * count alone says when, so the public structs carry no capacity. */
static void *grow_by_count(void *p, size_t n, size_t size)
{
	if (n == 0)
		return xcalloc(8, size);
	if (n >= 8 && !(n & (n - 1)))
		return xrealloc(p, 2 * n * size);
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, size_t n)
{
	double *s = xmalloc(n * sizeof(*s)), m;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
	free(s);
	return m;
}

/* ---- positions and messages */

void where_format(const struct collect *c, const struct where *w, char *buf, size_t size)
{
	char path[160];

	if (w->json) {
		snprintf(path, sizeof(path), w->json, w->i, w->j);
		if (w->line)
			snprintf(buf, size, "%s:%zu: %s", c->name, w->line, path);
		else
			snprintf(buf, size, "%s: %s", c->name, path);
	} else if (w->col) {
		snprintf(buf, size, "%s:%zu:%zu", c->name, w->line, w->col);
	} else {
		snprintf(buf, size, "%s:%zu", c->name, w->line);
	}
}

int collect_bad(struct collect *c, const struct where *w, const char *fmt, ...)
{
	char at[256], what[ERR_MSG_BYTES];
	va_list ap;

	where_format(c, w, at, sizeof(at));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(c->err, ERR_INVALID, "%s: %s", at, what);
}

struct where where_at(struct collect *c, size_t off)
{
	size_t i = c->at_off, line = c->at_line, col = c->at_col;

	/* Parsers move forward: count on from the last position asked for. */
	if (off < i || !line) {
		i = 0;
		line = 1;
		col = 1;
	}
	for (; i < off && i < c->len; i++) {
		if (c->data[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	c->at_off = i;
	c->at_line = line;
	c->at_col = col;
	return WHERE_LINE(line, col);
}

size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void quote(char *buf, size_t size, const char *s, size_t len)
{
	const size_t max = 80;
	size_t n = 0, l;

	while (n < len && n < max) {
		l = utf8_len((const unsigned char *)s + n, len - n);
		if (!l || n + l > max)
			break;
		n += l;
	}
	snprintf(buf, size, "\"%.*s\"%s", (int)n, s, n < len ? "..." : "");
}

/* ---- the collector */

static int check_name(struct collect *c, const char *name, size_t len, const struct where *w)
{
	size_t i, l;
	char q[128];

	if (!len)
		return collect_bad(c, w, "empty benchmark name");
	if (len > HARNESS_MAX_NAME_BYTES) {
		quote(q, sizeof(q), name, len);
		return collect_bad(c, w, "benchmark name %s longer than %u bytes", q,
				   HARNESS_MAX_NAME_BYTES);
	}
	for (i = 0; i < len; i += l) {
		l = name[i] ? utf8_len((const unsigned char *)name + i, len - i) : 0;
		if (!l) {
			quote(q, sizeof(q), name, i);
			return collect_bad(c, w, "benchmark name %s: %s at byte %zu", q,
					   name[i] ? "invalid UTF-8" : "NUL", i + 1);
		}
	}
	return 0;
}

static size_t find(const struct collect *c, const char *name, size_t len)
{
	char *s = xstrndup(name, len);
	const struct harness_benchmark *b = harness_output_find(c->out, s);

	free(s);
	return b ? (size_t)(b - c->out->benchmarks) : SIZE_MAX;
}

int collect_benchmark(struct collect *c, const char *name, size_t len, uint64_t ident,
		      const struct where *w, size_t *index)
{
	struct harness_output *out = c->out;
	size_t i;
	char at[256], q[128];

	if (check_name(c, name, len, w))
		return ERR_INVALID;
	i = find(c, name, len);
	if (i != SIZE_MAX) {
		if (ident == IDENT_UNIQUE || ident != c->ident[i]) {
			quote(q, sizeof(q), name, len);
			return collect_bad(c, w, "benchmark name %s repeated (first at %s)", q,
					   c->first[i]);
		}
		*index = i;
		return 0;
	}
	if (out->n_benchmarks >= HARNESS_MAX_BENCHMARKS)
		return collect_bad(c, w, "more than %u benchmarks", HARNESS_MAX_BENCHMARKS);
	i = out->n_benchmarks;
	out->benchmarks = grow_by_count(out->benchmarks, i, sizeof(*out->benchmarks));
	c->ident = xgrow(c->ident, &c->alloc, i + 1, sizeof(*c->ident));
	c->first = xrealloc(c->first, c->alloc * sizeof(*c->first));
	out->benchmarks[i] = (struct harness_benchmark){ .name = xstrndup(name, len) };
	c->ident[i] = ident;
	where_format(c, w, at, sizeof(at));
	/* The output's name is the same everywhere: keep what follows it
	 * ("12:5" of "stdout:12:5", "$.x" of "stdout: $.x"). */
	c->first[i] = xstrdup(at + strlen(c->name) + strspn(at + strlen(c->name), ": "));
	out->n_benchmarks++;
	index_add(out, i);
	*index = i;
	return 0;
}

static struct harness_metric *metric_of(struct harness_benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->n_metrics; i++)
		if (!strcmp(b->metrics[i].name, name))
			return &b->metrics[i];
	return NULL;
}

int collect_value(struct collect *c, size_t index, const char *metric, const char *unit,
		  enum better better, double value, const struct where *w)
{
	struct harness_benchmark *b = &c->out->benchmarks[index];
	struct harness_metric *m = metric_of(b, metric);
	char q[128];

	if (!isfinite(value) || value < 0)
		return collect_bad(c, w, "%s: expected a finite number >= 0, got %.17g", metric,
				   value);
	if (c->values >= HARNESS_MAX_VALUES)
		return collect_bad(c, w, "more than %u values", HARNESS_MAX_VALUES);
	if (!m) {
		if (b->n_metrics >= HARNESS_MAX_METRICS) {
			quote(q, sizeof(q), b->name, strlen(b->name));
			return collect_bad(c, w, "benchmark %s: more than %u metrics", q,
					   HARNESS_MAX_METRICS);
		}
		b->metrics = xrealloc(b->metrics, (b->n_metrics + 1) * sizeof(*b->metrics));
		m = &b->metrics[b->n_metrics++];
		*m = (struct harness_metric){ .name = xstrdup(metric),
					      .unit = xstrdup(unit),
					      .better = better };
	} else if (strcmp(m->unit, unit) || m->better != better) {
		quote(q, sizeof(q), b->name, strlen(b->name));
		return collect_bad(
			c, w, "benchmark %s: %s in %s (%s is better) here, in %s (%s) before", q,
			metric, unit, better_name(better), m->unit, better_name(m->better));
	}
	m->values = grow_by_count(m->values, m->n_values, sizeof(*m->values));
	m->values[m->n_values++] = value;
	c->values++;
	return 0;
}

void collect_error(struct collect *c, size_t index, const char *msg, size_t len)
{
	struct harness_benchmark *b = &c->out->benchmarks[index];
	size_t n = 0, l;

	if (b->error)
		return;
	/* Cut at a character, and at the first line break: one line. */
	while (n < len && n < HARNESS_MAX_ERROR_BYTES && msg[n] != '\n' && msg[n] != '\r' &&
	       msg[n]) {
		l = utf8_len((const unsigned char *)msg + n, len - n);
		if (!l || n + l > HARNESS_MAX_ERROR_BYTES)
			break;
		n += l;
	}
	b->error = n ? xstrndup(msg, n) : xstrdup("failed");
}

/* ---- numbers */

static size_t digits(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	return i;
}

size_t scan_number(const char *p, size_t n, double *out)
{
	size_t i = 0, d;
	char buf[64];

	if (i < n && p[i] == '-')
		i++;
	d = digits(p + i, n - i);
	if (!d)
		return 0;
	i += d;
	if (i < n && p[i] == '.') {
		d = digits(p + i + 1, n - i - 1);
		if (!d)
			return 0;
		i += 1 + d;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		size_t s = i + 1 + (i + 1 < n && (p[i + 1] == '+' || p[i + 1] == '-'));
		d = digits(p + s, n - s);
		if (!d)
			return 0;
		i = s + d;
	}
	if (i >= sizeof(buf))
		return 0;
	memcpy(buf, p, i);
	buf[i] = '\0';
	*out = strtod(buf, NULL);
	return i;
}

static const struct {
	const char *unit;
	double ns;
} time_units[] = {
	{ "ns", 1 },	      { "us", 1e3 }, { "\xc2\xb5s", 1e3 },
	{ "\xce\xbcs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

double time_unit_ns(const char *unit, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(time_units); i++)
		if (strlen(time_units[i].unit) == len && !memcmp(unit, time_units[i].unit, len))
			return time_units[i].ns;
	return 0;
}

/* ---- JSON */

/* NaN and infinities as Google Benchmark (NaN, Infinity) and Python's json
 * (NaN, Infinity, -Infinity) write them: not JSON, so named here, where a
 * generic "invalid JSON" would not say why. */
static const char *const not_numbers[] = { "-Infinity", "Infinity", "-NaN", "NaN",
					   "-nan",	"nan",	    "-inf", "inf" };

int json_check_numbers(struct collect *c, size_t off, size_t len)
{
	size_t i, k;
	bool in_string = false;

	for (i = off; i < off + len; i++) {
		char ch = c->data[i];
		if (in_string) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_string = false;
			continue;
		}
		if (ch == '"') {
			in_string = true;
			continue;
		}
		if (ch != '-' && ch != 'I' && ch != 'N' && ch != 'i' && ch != 'n')
			continue; /* what none of them starts with */
		for (k = 0; k < ARRAY_SIZE(not_numbers); k++) {
			size_t l = strlen(not_numbers[k]);
			if (off + len - i >= l && !memcmp(c->data + i, not_numbers[k], l)) {
				struct where w = where_at(c, i);
				return collect_bad(c, &w, "expected a finite number, got %s",
						   not_numbers[k]);
			}
		}
	}
	return 0;
}

int json_parse(struct collect *c, cJSON **root)
{
	if (json_check_numbers(c, 0, c->len))
		return ERR_INVALID;
	return results_json_parse(c->data, c->len, c->name, HARNESS_MAX_JSON_VALUES, root, c->err);
}

static void describe(const cJSON *v, char *buf, size_t size)
{
	if (cJSON_IsString(v))
		quote(buf, size, v->valuestring, strlen(v->valuestring));
	else if (cJSON_IsNumber(v))
		snprintf(buf, size, "%.17g", v->valuedouble);
	else if (cJSON_IsObject(v))
		snprintf(buf, size, "an object");
	else if (cJSON_IsArray(v))
		snprintf(buf, size, "an array");
	else if (cJSON_IsBool(v))
		snprintf(buf, size, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(buf, size, "null");
}

static int expected(struct collect *c, const cJSON *v, const struct where *w, const char *what)
{
	char got[128];

	describe(v, got, sizeof(got));
	return collect_bad(c, w, "expected %s, got %s", what, got);
}

int json_object(struct collect *c, const cJSON *v, const struct where *w)
{
	return cJSON_IsObject(v) ? 0 : expected(c, v, w, "an object");
}

int json_array(struct collect *c, const cJSON *v, const struct where *w, size_t *n)
{
	const cJSON *e;

	if (!cJSON_IsArray(v))
		return expected(c, v, w, "an array");
	*n = 0;
	for (e = v->child; e; e = e->next)
		(*n)++;
	return 0;
}

int json_string(struct collect *c, const cJSON *v, const struct where *w, const char **out)
{
	if (!cJSON_IsString(v))
		return expected(c, v, w, "a string");
	*out = v->valuestring;
	return 0;
}

int json_number(struct collect *c, const cJSON *v, const struct where *w, double *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0)
		return expected(c, v, w, "a number >= 0");
	*out = v->valuedouble;
	return 0;
}

const cJSON *json_field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNull(v) ? NULL : v;
}

int json_need(struct collect *c, const cJSON *obj, const char *key, const struct where *w,
	      const cJSON **out)
{
	*out = json_field(obj, key);
	return *out ? 0 : collect_bad(c, w, "missing \"%s\"", key);
}

int json_each(struct collect *c, const char *key, const char *path,
	      int (*each)(struct collect *c, const cJSON *v, size_t i))
{
	cJSON *root = NULL;
	const cJSON *list = NULL, *v;
	struct where w = WHERE_JSON("$", 0, 0);
	size_t n, i = 0;
	int rc;

	rc = json_parse(c, &root);
	if (!rc)
		rc = json_object(c, root, &w) || json_need(c, root, key, &w, &list);
	w.json = path;
	if (!rc)
		rc = json_array(c, list, &w, &n);
	for (v = rc ? NULL : list->child; v && !rc; v = v->next, i++)
		rc = each(c, v, i);
	cJSON_Delete(root);
	return rc ? ERR_INVALID : 0;
}

/* ---- parsing */

static int finish(struct collect *c, enum harness_kind kind)
{
	size_t i, j;

	if (!c->out->n_benchmarks)
		return err_set(c->err, ERR_INVALID, "%s: %s", c->name, kinds[kind].none);
	for (i = 0; i < c->out->n_benchmarks; i++) {
		struct harness_benchmark *b = &c->out->benchmarks[i];
		for (j = 0; j < b->n_metrics; j++)
			b->metrics[j].value = median(b->metrics[j].values, b->metrics[j].n_values);
	}
	return 0;
}

int harness_parse(enum harness_kind kind, const char *data, size_t len, const char *name,
		  struct harness_output *out, struct err *err)
{
	struct collect c = { .out = out, .name = name, .err = err, .data = data, .len = len };
	size_t i;
	int rc;

	harness_output_release(out);
	if (!len)
		rc = err_set(err, ERR_INVALID, "%s: empty output", name);
	else if (len > HARNESS_MAX_OUTPUT_BYTES)
		rc = err_set(err, ERR_INVALID, "%s: output larger than %u MiB", name,
			     HARNESS_MAX_OUTPUT_BYTES >> 20);
	else
		rc = kinds[kind].parse(&c);
	if (!rc)
		rc = finish(&c, kind);
	for (i = 0; i < out->n_benchmarks; i++)
		free(c.first[i]);
	free(c.first);
	free(c.ident);
	if (rc)
		harness_output_release(out);
	return rc;
}
