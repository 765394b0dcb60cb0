/*
 * `lines`, the format for every other harness (docs/configuration.md,
 * "Harnesses"): one JSON object per line,
 *   {"name": "parse/small", "value": 12.5, "unit": "ms", "better": "lower"}
 * with an optional "metric" naming the metric when one benchmark reports
 * two with the same unit. Time units (ns, us, µs, ms, s) become ns and the
 * metric "time" unless named; any other unit is kept as declared and names
 * the metric unless "metric" does. Lines of one name and metric are
 * repetitions and merge (their median is the run's value); they must agree
 * on unit and direction. Blank lines are passed over; anything else must be
 * such an object, keys other than these five are refused (a misspelt
 * "beter" would otherwise be lost), and the last line may lack its line
 * break.
 */
#include "common/alloc.h"
#include "harness/harness_internal.h"
#include "results/json.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

struct fields {
	const char *name, *unit, *better, *metric;
	double value;
};

/* The string keys: where each goes, its longest (0: the name's own rule)
 * and whether it may be missing. */
static const struct {
	const char *key, *path;
	size_t offset, max;
	bool optional;
} strings[] = {
	{ "name", "$.name", offsetof(struct fields, name), 0, false },
	{ "unit", "$.unit", offsetof(struct fields, unit), HARNESS_MAX_UNIT_BYTES, false },
	{ "better", "$.better", offsetof(struct fields, better), 0, false },
	{ "metric", "$.metric", offsetof(struct fields, metric), HARNESS_MAX_METRIC_BYTES, true },
};

static bool known(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strings); i++)
		if (!strcmp(key, strings[i].key))
			return true;
	return !strcmp(key, "value");
}

/* The JSON of one line, its messages placed at the line: the parser is
 * handed the line alone, so what it calls line 1 is line `no`. */
static int parse_line(struct collect *c, size_t off, size_t len, size_t no, cJSON **out)
{
	struct err e = ERR_INIT;

	if (json_check_numbers(c, off, len))
		return ERR_INVALID;
	if (!results_json_parse(c->data + off, len, "", 64, out, &e))
		return 0;
	if (!strncmp(e.msg, ":1:", 3))
		return err_set(c->err, ERR_INVALID, "%s:%zu:%s", c->name, no, e.msg + 3);
	return err_set(c->err, ERR_INVALID, "%s:%zu%s", c->name, no, e.msg);
}

static int read_strings(struct collect *c, const cJSON *obj, struct where *w, struct fields *f)
{
	const cJSON *v;
	const char **out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		out = (const char **)((char *)f + strings[i].offset);
		v = json_field(obj, strings[i].key);
		w->json = "$";
		if (!v && strings[i].optional)
			continue;
		if (!v)
			return collect_bad(c, w, "missing \"%s\"", strings[i].key);
		w->json = strings[i].path;
		if (json_string(c, v, w, out))
			return ERR_INVALID;
		if (strings[i].max && (!**out || strlen(*out) > strings[i].max))
			return collect_bad(c, w, "expected 1 to %zu bytes, got %zu", strings[i].max,
					   strlen(*out));
	}
	return 0;
}

static int read_fields(struct collect *c, const cJSON *obj, size_t no, struct fields *f)
{
	struct where w = { .line = no, .json = "$" };
	const cJSON *k, *v;

	if (json_object(c, obj, &w))
		return ERR_INVALID;
	for (k = obj->child; k; k = k->next)
		if (!known(k->string))
			return collect_bad(c, &w,
					   "unknown key \"%.32s\"; expected name, value, unit, "
					   "better or metric",
					   k->string);
	if (read_strings(c, obj, &w, f))
		return ERR_INVALID;
	w.json = "$.better";
	if (strcmp(f->better, "lower") && strcmp(f->better, "higher"))
		return collect_bad(c, &w, "expected \"lower\" or \"higher\", got \"%.32s\"",
				   f->better);
	w.json = "$";
	if (json_need(c, obj, "value", &w, &v))
		return ERR_INVALID;
	w.json = "$.value";
	return json_number(c, v, &w, &f->value);
}

static int one(struct collect *c, size_t off, size_t len, size_t no)
{
	struct fields f = { .metric = NULL };
	struct where w = { .line = no, .json = "$.name" };
	cJSON *obj = NULL;
	double scale;
	size_t index;
	int rc;

	rc = parse_line(c, off, len, no, &obj);
	if (!rc)
		rc = read_fields(c, obj, no, &f);
	if (!rc)
		rc = collect_benchmark(c, f.name, strlen(f.name), IDENT_SAME, &w, &index);
	if (!rc) {
		scale = time_unit_ns(f.unit, strlen(f.unit));
		w.json = "$.value";
		rc = collect_value(c, index,
				   f.metric ? f.metric
				   : scale  ? "time"
					    : f.unit,
				   scale ? "ns" : f.unit,
				   f.better[0] == 'l' ? BETTER_LOWER : BETTER_HIGHER,
				   scale ? f.value * scale : f.value, &w);
	}
	cJSON_Delete(obj);
	return rc ? ERR_INVALID : 0;
}

static bool blank(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

int parse_lines(struct collect *c)
{
	size_t off = 0, no = 0, len;
	const char *nl;

	for (; off < c->len; off += len + (nl != NULL)) {
		nl = memchr(c->data + off, '\n', c->len - off);
		len = nl ? (size_t)(nl - (c->data + off)) : c->len - off;
		no++;
		if (!blank(c->data + off, len) && one(c, off, len, no))
			return ERR_INVALID;
	}
	return 0;
}
