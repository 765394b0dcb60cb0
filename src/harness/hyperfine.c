/*
 * hyperfine's JSON (--export-json FILE; its standard output is for people).
 * Each entry of $.results is one command, named by "command": the command
 * line, or its --command-name. Its runs' wall times in seconds are "times":
 * they are the values and their median the run's "time" in ns. Two entries
 * with one name are an error: they are two commands (give each its own
 * --command-name), not repetitions of one.
 */
#include "harness/harness_internal.h"

#include <string.h>

#include "common/banned.h"

static int entry(struct collect *c, const cJSON *r, size_t i)
{
	const cJSON *v, *t;
	const char *name;
	struct where w = WHERE_JSON("$.results[%zu]", i, 0);
	size_t index, n, k = 0;
	double x;

	if (json_object(c, r, &w) || json_need(c, r, "command", &w, &v) ||
	    json_need(c, r, "times", &w, &t))
		return ERR_INVALID;
	w.json = "$.results[%zu].command";
	if (json_string(c, v, &w, &name) ||
	    collect_benchmark(c, name, strlen(name), IDENT_UNIQUE, &w, &index))
		return ERR_INVALID;
	w.json = "$.results[%zu].times";
	if (json_array(c, t, &w, &n))
		return ERR_INVALID;
	if (!n)
		return collect_bad(c, &w, "expected at least one run");
	w.json = "$.results[%zu].times[%zu]";
	for (v = t->child; v; v = v->next, k++) {
		w.j = k;
		if (json_number(c, v, &w, &x) ||
		    collect_value(c, index, "time", "ns", BETTER_LOWER, x * 1e9, &w))
			return ERR_INVALID;
	}
	return 0;
}

int parse_hyperfine(struct collect *c)
{
	return json_each(c, "results", "$.results", entry);
}
