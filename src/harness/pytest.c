/*
 * pytest-benchmark's JSON (--benchmark-json=FILE; its standard output is a
 * table for people). Each entry of $.benchmarks is one test; its name is
 * "fullname", the test's node id ("tests/test_x.py::TestY::test_z[8]"),
 * unique in a session where the short "name" is not. Its rounds, each the
 * time of one iteration in seconds, are in stats.data: they are the values
 * and their median the run's "time" in ns. Without data (a file written by
 * an older pytest-benchmark, or edited) stats.median is the one value.
 */
#include "harness/harness_internal.h"

#include <string.h>

#include "common/banned.h"

static int rounds(struct collect *c, const cJSON *stats, size_t i, size_t index)
{
	const cJSON *data = json_field(stats, "data"), *v;
	struct where w = WHERE_JSON("$.benchmarks[%zu].stats", i, 0);
	double x;
	size_t n, k = 0;

	if (!data) {
		if (json_need(c, stats, "median", &w, &v))
			return ERR_INVALID;
		w.json = "$.benchmarks[%zu].stats.median";
		return json_number(c, v, &w, &x) ||
		       collect_value(c, index, "time", "ns", BETTER_LOWER, x * 1e9, &w);
	}
	w.json = "$.benchmarks[%zu].stats.data";
	if (json_array(c, data, &w, &n))
		return ERR_INVALID;
	if (!n)
		return collect_bad(c, &w, "expected at least one round");
	w.json = "$.benchmarks[%zu].stats.data[%zu]";
	for (v = data->child; v; v = v->next, k++) {
		w.j = k;
		if (json_number(c, v, &w, &x) ||
		    collect_value(c, index, "time", "ns", BETTER_LOWER, x * 1e9, &w))
			return ERR_INVALID;
	}
	return 0;
}

static int entry(struct collect *c, const cJSON *b, size_t i)
{
	const cJSON *v, *stats;
	const char *name;
	struct where w = WHERE_JSON("$.benchmarks[%zu]", i, 0);
	size_t index;

	if (json_object(c, b, &w) || json_need(c, b, "fullname", &w, &v) ||
	    json_need(c, b, "stats", &w, &stats))
		return ERR_INVALID;
	w.json = "$.benchmarks[%zu].fullname";
	if (json_string(c, v, &w, &name) ||
	    collect_benchmark(c, name, strlen(name), IDENT_UNIQUE, &w, &index))
		return ERR_INVALID;
	w.json = "$.benchmarks[%zu].stats";
	return json_object(c, stats, &w) || rounds(c, stats, i, index) ? ERR_INVALID : 0;
}

int parse_pytest_benchmark(struct collect *c)
{
	return json_each(c, "benchmarks", "$.benchmarks", entry);
}
