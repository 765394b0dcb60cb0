/*
 * The settings that layer (docs/configuration.md, "Settings: `defaults`, then
 * each benchmark, then each command"): each level is read into a `struct
 * layer` that says what it sets, and a benchmark's commands inherit the
 * `struct resolved` of built-in defaults, then `defaults:`, then the
 * benchmark's own layer. Part of the suite loader: see loader.h.
 */
#include "suite/loader.h"

#include "suite/units.h"

#include <limits.h>
#include <string.h>

#include "common/banned.h"

static const char *const tolerance_keys[] = { "statistic", "max_percent", "min_difference", "gate",
					      NULL };

static void parse_tolerance(struct loader *l, const struct ynode *n, const char *path,
			    enum metric m, struct tol_layer *t)
{
	size_t i;

	if (!check_map(l, n, path, "a map of statistic, max_percent, min_difference, gate"))
		return;
	check_keys(l, n, path, tolerance_keys, path);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		if (!strcmp(k, "statistic")) {
			const char *s = check_str(l, v, p);
			if (s && !side_statistic_from_name(s, &t->t.statistic)) {
				t->has_statistic = true;
			} else if (s) {
				check_problem(l, v, p, NULL, "expected median or mean, got %s",
					      check_found(l, v));
			}
		} else if (!strcmp(k, "max_percent")) {
			t->has_max_percent = check_percent(l, v, p, 1000, &t->t.max_fraction);
		} else if (!strcmp(k, "min_difference")) {
			uint64_t x;
			bool ok = m == METRIC_PEAK_RSS ? check_size(l, v, p, &x)
						       : check_duration(l, v, p, false, &x);
			if (ok) {
				t->has_min_difference = true;
				t->t.has_min_difference = true;
				t->t.min_difference = (double)x;
			}
		} else if (!strcmp(k, "gate")) {
			t->has_gate = check_bool(l, v, p, &t->t.gate);
		}
	}
}

/* regression.exponent: {max_difference: 0.1} */
static void parse_exponent(struct loader *l, const struct ynode *n, const char *path,
			   struct reg_layer *r)
{
	const struct ynode *v;

	if (!check_map(l, n, path, "a map with max_difference"))
		return;
	check_keys(l, n, path, (const char *const[]){ "max_difference", NULL }, path);
	if ((v = ynode_get(n, "max_difference")))
		r->has_exponent = check_number(l, v, check_child(l, path, "max_difference"), 0, 10,
					       &r->exponent_max_difference);
}

static const char *const count_tolerance_keys[] = { "max_percent", "gate", NULL };

/* A count's tolerance (docs/comparison.md, "Deciding on counts"): counts are
 * compared by their medians, with no minimum difference. */
static void parse_count_tolerance(struct loader *l, const struct ynode *n, const char *path,
				  struct tol_layer *t)
{
	size_t i;

	if (!check_map(l, n, path, "a map of max_percent, gate"))
		return;
	check_keys(l, n, path, count_tolerance_keys, path);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		if (!strcmp(k, "max_percent"))
			t->has_max_percent =
				check_percent(l, n->items[i], p, 1000, &t->t.max_fraction);
		else if (!strcmp(k, "gate"))
			t->has_gate = check_bool(l, n->items[i], p, &t->t.gate);
	}
}

static const char *const regression_keys[] = { "confidence",	  "min_samples",    "max_cv",
					       "max_time",	  "max_total_time", "commands",
					       "latency",	  "cpu_total",	    "peak_rss",
					       "artifact_size",	  "instructions",   "allocations",
					       "allocated_bytes", "exponent",	    NULL };

static void parse_regression(struct loader *l, const struct ynode *n, const char *path,
			     bool benchmark_level, struct reg_layer *r)
{
	size_t i;

	if (!check_map(l, n, path, "a map of regression settings"))
		return;
	check_keys(l, n, path, regression_keys, path);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		if (!strcmp(k, "confidence")) {
			r->has_confidence = check_number(l, v, p, 0.5, 0.999, &r->confidence);
		} else if (!strcmp(k, "min_samples")) {
			r->has_min_samples = check_uint(l, v, p, 2, 100000, &r->min_samples);
			r->min_samples_node = v;
		} else if (!strcmp(k, "max_cv")) {
			r->has_max_cv = check_number(l, v, p, 0, 10, &r->max_cv);
		} else if (!strcmp(k, "max_time")) {
			r->has_max_time = check_duration(l, v, p, true, &r->max_time_ns);
		} else if (!strcmp(k, "max_total_time")) {
			/* one budget for the whole comparison (docs/comparison.md,
			 * "Time budgets"): nothing a benchmark could inherit */
			if (benchmark_level) {
				check_problem(
					l, n->keys[i], p,
					"set defaults.regression.max_total_time: it bounds "
					"the whole comparison",
					"max_total_time is only allowed in defaults.regression");
				continue;
			}
			r->has_max_total_time =
				check_duration(l, v, p, true, &r->max_total_time_ns);
		} else if (!strcmp(k, "commands")) {
			if (!benchmark_level) {
				check_problem(
					l, n->keys[i], p,
					"set regression.commands in the benchmark that has them",
					"regression.commands is only allowed in a benchmark");
				continue;
			}
			if (check_seq(l, v, p, "a list of command names")) {
				r->commands_node = v;
				r->commands_path = p;
			}
		} else if (!strcmp(k, "latency")) {
			parse_tolerance(l, v, p, METRIC_LATENCY, &r->latency);
		} else if (!strcmp(k, "cpu_total")) {
			parse_tolerance(l, v, p, METRIC_CPU_TOTAL, &r->cpu_total);
		} else if (!strcmp(k, "peak_rss")) {
			parse_tolerance(l, v, p, METRIC_PEAK_RSS, &r->peak_rss);
		} else if (!strcmp(k, "exponent")) {
			parse_exponent(l, v, p, r);
		} else if (!strcmp(k, "artifact_size")) {
			parse_count_tolerance(l, v, p, &r->artifact_size);
		} else if (!strcmp(k, "instructions")) {
			parse_count_tolerance(l, v, p, &r->instructions);
		} else if (!strcmp(k, "allocations")) {
			parse_count_tolerance(l, v, p, &r->allocations);
		} else if (!strcmp(k, "allocated_bytes")) {
			parse_count_tolerance(l, v, p, &r->allocated_bytes);
		}
	}
}

static const char *const work_keys[] = { "value", "file_size", "unit", NULL };

/* work.value: a number, or in a case a template such as "${size}" whose
 * substitution is a count (docs/configuration.md, "Sizes"). */
static bool parse_work_value(struct loader *l, const struct ynode *v, const char *path, double *out)
{
	struct err e = ERR_INIT;
	const char *t;

	if (!l->params || v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR ||
	    !strstr(v->text, "${"))
		return check_number(l, v, path, 0, 1e300, out);
	if (!(t = check_template(l, v, path, v->text, false, false)))
		return false;
	if (units_count(t, out, &e) < 0) {
		check_problem(l, v, path, NULL, "expected a number, got \"%s\" from %s (%s)", t,
			      check_found(l, v), e.msg);
		return false;
	}
	return true;
}

static void parse_work(struct loader *l, const struct ynode *n, const char *path, struct work *w)
{
	const struct ynode *value = ynode_get(n, "value"), *file = ynode_get(n, "file_size"),
			   *unit = ynode_get(n, "unit");
	const char *u = NULL;

	if (!check_map(l, n, path, "a map with value or file_size, and unit"))
		return;
	check_keys(l, n, path, work_keys, path);
	if ((value != NULL) == (file != NULL)) {
		check_problem(l, n, path, NULL,
			      "expected exactly one of value and file_size, got %s",
			      value ? "both" : "neither");
		return;
	}
	if (unit)
		u = check_name(l, unit, check_child(l, path, "unit"));
	if (value) {
		if (!parse_work_value(l, value, check_child(l, path, "value"), &w->value))
			return;
		if (w->value <= 0) {
			check_problem(l, value, check_child(l, path, "value"), NULL,
				      "expected a number greater than 0, got %s",
				      check_found(l, value));
			return;
		}
		w->kind = WORK_VALUE;
		w->unit = u ? u : "operations";
		return;
	}
	w->file = check_str(l, file, check_child(l, path, "file_size"));
	if (!w->file ||
	    !(w->file = check_template(l, file, check_child(l, path, "file_size"), w->file, false,
				       false)) ||
	    !check_path(l, file, check_child(l, path, "file_size"), w->file, PATH_PROJECT))
		return;
	if (u && strcmp(u, "bytes")) {
		check_problem(l, unit, check_child(l, path, "unit"), NULL,
			      "expected bytes (the unit of file_size), got %s",
			      check_found(l, unit));
		return;
	}
	w->kind = WORK_FILE_SIZE;
	w->unit = "bytes";
}

static const char *const metrics_keys[] = { "cpu",	     "memory",
					    "unsupported",   "throughput",
					    "artifact_size", "instructions",
					    "allocations",   NULL };

static const char *const counter_keys[] = { "backend", "runs", NULL };
static const char *const backend_names[] = { "auto", "perf", "valgrind" };

/* `instructions: true`, or a map of backend and runs, which turns it on. */
static void parse_instructions(struct loader *l, const struct ynode *n, const char *path,
			       struct layer *ly)
{
	const struct ynode *v;

	if (n->kind != YNODE_MAP) {
		ly->has_instructions = check_bool(l, n, path, &ly->instructions);
		return;
	}
	check_keys(l, n, path, counter_keys, path);
	ly->has_instructions = ly->instructions = true;
	if ((v = ynode_get(n, "backend"))) {
		const char *p = check_child(l, path, "backend"), *s = check_str(l, v, p);
		size_t i;
		for (i = 0; s && i < 3 && strcmp(s, backend_names[i]); i++) {
		}
		if (s && i < 3) {
			ly->backend = (enum counter_backend)i;
			ly->has_backend = true;
		} else if (s) {
			check_problem(l, v, p, NULL, "expected auto, perf or valgrind, got %s",
				      check_found(l, v));
		}
	}
	if ((v = ynode_get(n, "runs")))
		ly->has_count_runs = check_uint(l, v, check_child(l, path, "runs"), 1,
						SUITE_MAX_COUNT_RUNS, &ly->count_runs);
}

/* A count metric (instructions, allocations, artifact_size), which every
 * level may set; false when k is not one. */
static bool parse_count_metric(struct loader *l, const char *k, const struct ynode *v,
			       const char *p, struct layer *ly)
{
	if (!strcmp(k, "instructions")) {
		parse_instructions(l, v, p, ly);
	} else if (!strcmp(k, "allocations")) {
		ly->has_allocations = check_bool(l, v, p, &ly->allocations);
	} else if (!strcmp(k, "artifact_size")) {
		ly->has_artifact_size = check_bool(l, v, p, &ly->artifact_size);
		ly->artifact_size_node = v;
		ly->artifact_size_path = p;
	} else {
		return false;
	}
	return true;
}

static void parse_metrics(struct loader *l, const struct ynode *n, const char *path,
			  bool benchmark_level, struct layer *ly)
{
	size_t i;

	if (!check_map(l, n, path, "a map of cpu, memory, unsupported"))
		return;
	check_keys(l, n, path, metrics_keys, path);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		if (parse_count_metric(l, k, v, p, ly)) {
			continue;
		} else if (!strcmp(k, "cpu")) {
			ly->has_cpu = check_bool(l, v, p, &ly->cpu);
		} else if (!strcmp(k, "memory")) {
			ly->has_memory = check_bool(l, v, p, &ly->memory);
		} else if (!strcmp(k, "unsupported")) {
			const char *s = check_str(l, v, p);
			if (s && (!strcmp(s, "fail") || !strcmp(s, "skip"))) {
				ly->unsupported = s[0] == 'f' ? UNSUPPORTED_FAIL : UNSUPPORTED_SKIP;
				ly->has_unsupported = true;
			} else if (s) {
				check_problem(l, v, p, NULL, "expected fail or skip, got %s",
					      check_found(l, v));
			}
		} else if (!strcmp(k, "throughput")) {
			const struct ynode *w;
			if (!benchmark_level) {
				check_problem(l, n->keys[i], p, "declare the work in the benchmark",
					      "metrics.throughput is only allowed in a benchmark");
				continue;
			}
			if (!check_map(l, v, p, "a map with work"))
				continue;
			check_keys(l, v, p, (const char *const[]){ "work", NULL }, p);
			w = ynode_get(v, "work");
			if (!w) {
				check_problem(l, v, p, NULL,
					      "expected a map with work, got no work");
				continue;
			}
			ly->work_node = w;
			parse_work(l, w, check_child(l, p, "work"), &ly->work);
		}
	}
}

/* A command's `metrics:`: the counts only. The timed metrics (cpu, memory,
 * throughput) are measured in the rounds every command of the benchmark
 * shares, and `unsupported` is the benchmark's policy, so they are refused
 * here with the keys a command may set (docs/configuration.md, "Metrics"). */
void parse_command_metrics(struct loader *l, const struct ynode *n, const char *path,
			   struct layer *ly)
{
	size_t i;

	if (!check_map(l, n, path, "a map of instructions, allocations, artifact_size"))
		return;
	for (i = 0; i < n->count; i++) {
		const struct ynode *k = n->keys[i];
		const char *p = check_child(l, path, k->text);
		const char *const *known;
		if (parse_count_metric(l, k->text, n->items[i], p, ly))
			continue;
		for (known = metrics_keys; *known && strcmp(*known, k->text); known++) {
		}
		if (*known)
			check_problem(
				l, k, p,
				"a command may set metrics.instructions, metrics.allocations "
				"and metrics.artifact_size",
				!strcmp(k->text, "throughput")
					? "metrics.%s is only allowed in a benchmark"
					: "metrics.%s is set per benchmark or in defaults, not "
					  "per command",
				k->text);
	}
	check_keys(l, n, path, metrics_keys, path); /* the rest: unknown anywhere */
}

/* "." , "a/..", "a/": a path whose last part can only be a directory, which
 * no run could write its output to. */
static bool names_a_directory(const char *rel)
{
	const char *last = strrchr(rel, '/');

	last = last ? last + 1 : rel;
	return !*last || !strcmp(last, ".") || !strcmp(last, "..");
}

bool parse_output(struct loader *l, const struct ynode *n, const char *path, struct output *o)
{
	const char *s = check_str(l, n, path), *rel;

	if (!s)
		return false;
	if (!strcmp(s, "discard")) {
		o->kind = OUTPUT_DISCARD;
		o->path = NULL;
		return true;
	}
	if (!check_path(l, n, path, s, PATH_WORKDIR))
		return false;
	/* "${workdir}/x" and "x" are the same file. */
	rel = !strncmp(s, "${workdir}/", 11) ? s + 11 : s;
	while (*rel == '/')
		rel++;
	if (strstr(rel, "${") || !*rel || names_a_directory(rel)) {
		check_problem(l, n, path, "the path is relative to ${workdir}",
			      "expected \"discard\" or a file inside ${workdir}, got %s",
			      check_found(l, n));
		return false;
	}
	o->kind = OUTPUT_FILE;
	o->path = rel;
	return true;
}

void parse_env(struct loader *l, const struct ynode *n, const char *path, bool in_build,
	       struct env_var **out, size_t *count)
{
	size_t i;

	if (!check_map(l, n, path, "a map of NAME: value"))
		return;
	*out = arena_array(l->a, n->count ? n->count : 1, sizeof(**out));
	*count = 0;
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k), *v;
		if (!check_is_env_name(k)) {
			check_problem(l, n->keys[i], p, NULL,
				      "expected an environment variable name matching "
				      "^[A-Za-z_][A-Za-z0-9_]*$, got \"%s\"",
				      k);
			continue;
		}
		v = check_str(l, n->items[i], p);
		if (!v || !(v = check_template(l, n->items[i], p, v, in_build, false)))
			continue;
		(*out)[*count].name = k;
		(*out)[(*count)++].value = v;
	}
}

static void parse_exit_codes(struct loader *l, const struct ynode *n, const char *path,
			     struct layer *ly)
{
	size_t i;

	if (!check_seq(l, n, path, "a non-empty list of exit statuses"))
		return;
	if (!n->count) {
		check_problem(l, n, path, NULL,
			      "expected a non-empty list of exit statuses, got []");
		return;
	}
	ly->exit_codes = arena_array(l->a, n->count, sizeof(int));
	for (i = 0; i < n->count; i++) {
		int64_t v;
		if (check_int(l, n->items[i], check_index(l, path, i), 0, INT_MAX, &v))
			ly->exit_codes[i] = (int)v;
	}
	ly->exit_code_count = n->count;
}

static void parse_warmup(struct loader *l, const struct ynode *n, const char *path,
			 struct layer *ly)
{
	int64_t v;

	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_STR && !strcmp(n->text, "auto")) {
		ly->warmup.kind = WARMUP_AUTO;
		ly->has_warmup = true;
		return;
	}
	if (!ynode_int(n, &v) || v < 0 || v > 10000) {
		check_problem(l, n, path, NULL,
			      "expected an integer from 0 to 10000 or \"auto\", got %s",
			      check_found(l, n));
		return;
	}
	ly->warmup.kind = WARMUP_COUNT;
	ly->warmup.count = (unsigned)v;
	ly->has_warmup = true;
}

/* interleaved or duet (docs/configuration.md, "Schedule"). */
static void parse_schedule(struct loader *l, const struct ynode *n, const char *path,
			   struct layer *ly)
{
	const char *s = check_str(l, n, path);

	if (s && !schedule_from_name(s, &ly->schedule))
		ly->has_schedule = true;
	else if (s)
		check_problem(l, n, path, NULL, "expected interleaved or duet, got %s",
			      check_found(l, n));
}

/* The settings that layer; returns false when key is not one of them. Which
 * keys a level allows is decided by the caller's key list. */
bool parse_setting(struct loader *l, const char *k, const struct ynode *v, const char *p,
		   bool benchmark_level, struct layer *ly)
{
	if (!strcmp(k, "warmup")) {
		parse_warmup(l, v, p, ly);
	} else if (!strcmp(k, "runs")) {
		ly->has_runs = check_uint(l, v, p, 1, 100000, &ly->runs);
		ly->runs_node = v;
		ly->runs_path = p;
	} else if (!strcmp(k, "min_runs")) {
		ly->has_min_runs = check_uint(l, v, p, 1, 100000, &ly->min_runs);
		ly->min_runs_node = v;
		ly->min_runs_path = p;
	} else if (!strcmp(k, "max_runs")) {
		ly->has_max_runs = check_uint(l, v, p, 1, 100000, &ly->max_runs);
		ly->max_runs_node = v;
		ly->max_runs_path = p;
	} else if (!strcmp(k, "min_time")) {
		ly->has_min_time = check_duration(l, v, p, false, &ly->min_time_ns);
	} else if (!strcmp(k, "schedule")) {
		parse_schedule(l, v, p, ly);
	} else if (!strcmp(k, "timeout")) {
		ly->has_timeout = check_duration(l, v, p, true, &ly->timeout_ns);
	} else if (!strcmp(k, "cwd")) {
		const char *s = check_str(l, v, p);
		if (s && (s = check_template(l, v, p, s, false, false)) &&
		    check_path(l, v, p, s, PATH_PROJECT))
			ly->cwd = s;
	} else if (!strcmp(k, "env")) {
		parse_env(l, v, p, false, &ly->env, &ly->env_count);
	} else if (!strcmp(k, "stdout")) {
		ly->has_stdout = parse_output(l, v, p, &ly->out);
	} else if (!strcmp(k, "stderr")) {
		ly->has_stderr = parse_output(l, v, p, &ly->err);
		ly->stderr_node = v;
	} else if (!strcmp(k, "exit_codes")) {
		parse_exit_codes(l, v, p, ly);
	} else if (!strcmp(k, "metrics")) {
		parse_metrics(l, v, p, benchmark_level, ly);
	} else if (!strcmp(k, "regression")) {
		parse_regression(l, v, p, benchmark_level, &ly->reg);
	} else {
		return false;
	}
	return true;
}

/* Layers `over` onto `base` (later wins). Env variables merge by name. */
void layer_env(struct loader *l, struct env_var **env, size_t *count, const struct env_var *add,
	       size_t add_count)
{
	struct env_var *v;
	size_t i, j, n = *count;

	if (!add_count)
		return;
	v = arena_array(l->a, n + add_count, sizeof(*v));
	if (n)
		memcpy(v, *env, n * sizeof(*v));
	for (i = 0; i < add_count; i++) {
		for (j = 0; j < n && strcmp(v[j].name, add[i].name); j++) {
		}
		v[j] = add[i];
		if (j == n)
			n++;
	}
	*env = v;
	*count = n;
}

static void layer_tolerance(struct tolerance *t, const struct tol_layer *o)
{
	if (o->has_statistic)
		t->statistic = o->t.statistic;
	if (o->has_max_percent)
		t->max_fraction = o->t.max_fraction;
	if (o->has_min_difference) {
		t->has_min_difference = true;
		t->min_difference = o->t.min_difference;
	}
	if (o->has_gate)
		t->gate = o->t.gate;
}

void layer_regression(struct regression *r, const struct reg_layer *o)
{
	if (o->has_confidence)
		r->confidence = o->confidence;
	if (o->has_min_samples)
		r->min_samples = o->min_samples;
	if (o->has_max_cv)
		r->max_cv = o->max_cv;
	if (o->has_max_time) {
		r->has_max_time = true;
		r->max_time_ns = o->max_time_ns;
	}
	layer_tolerance(&r->latency, &o->latency);
	layer_tolerance(&r->cpu_total, &o->cpu_total);
	layer_tolerance(&r->peak_rss, &o->peak_rss);
	if (o->has_exponent)
		r->exponent_max_difference = o->exponent_max_difference;
	layer_tolerance(&r->artifact_size, &o->artifact_size);
	layer_tolerance(&r->instructions, &o->instructions);
	layer_tolerance(&r->allocations, &o->allocations);
	layer_tolerance(&r->allocated_bytes, &o->allocated_bytes);
}

/* Everything a benchmark's commands inherit, after defaults → benchmark. */

void apply_layer(struct loader *l, struct resolved *r, const struct layer *o)
{
#define TAKE(flag, field)                                                                          \
	do {                                                                                       \
		if (o->flag) {                                                                     \
			r->l.flag = true;                                                          \
			r->l.field = o->field;                                                     \
		}                                                                                  \
	} while (0)
	TAKE(has_warmup, warmup);
	TAKE(has_runs, runs);
	TAKE(has_min_runs, min_runs);
	TAKE(has_max_runs, max_runs);
	TAKE(has_min_time, min_time_ns);
	TAKE(has_schedule, schedule);
	TAKE(has_cpu, cpu);
	TAKE(has_memory, memory);
	TAKE(has_unsupported, unsupported);
	TAKE(has_artifact_size, artifact_size);
	TAKE(has_instructions, instructions);
	TAKE(has_backend, backend);
	TAKE(has_count_runs, count_runs);
	TAKE(has_allocations, allocations);
#undef TAKE
	if (o->has_artifact_size) {
		r->l.artifact_size_node = o->artifact_size_node;
		r->l.artifact_size_path = o->artifact_size_path;
	}
	if (o->has_runs) {
		r->l.runs_node = o->runs_node;
		r->l.runs_path = o->runs_path;
	}
	if (o->has_max_runs) {
		r->l.max_runs_node = o->max_runs_node;
		r->l.max_runs_path = o->max_runs_path;
	}
	if (o->has_min_runs) {
		r->l.min_runs_node = o->min_runs_node;
		r->l.min_runs_path = o->min_runs_path;
	}
	if (o->has_timeout)
		r->timeout_ns = o->timeout_ns;
	if (o->cwd)
		r->cwd = o->cwd;
	layer_env(l, &r->env, &r->env_count, o->env, o->env_count);
	if (o->has_stdout)
		r->out = o->out;
	if (o->has_stderr) {
		r->err = o->err;
		r->l.has_stderr = true;
		r->l.stderr_node = o->stderr_node;
	}
	if (o->exit_code_count) {
		r->exit_codes = o->exit_codes;
		r->exit_code_count = o->exit_code_count;
	}
	if (o->reg.has_min_samples) {
		r->l.reg.has_min_samples = true;
		r->l.reg.min_samples_node = o->reg.min_samples_node;
	}
}

void regression_defaults(struct regression *r)
{
	memset(r, 0, sizeof(*r));
	r->confidence = SUITE_DEFAULT_CONFIDENCE;
	r->min_samples = SUITE_DEFAULT_MIN_SAMPLES;
	r->max_cv = TOLERANCE_DEFAULT_MAX_CV;
	r->latency.statistic = r->cpu_total.statistic = r->peak_rss.statistic = SIDE_MEDIAN;
	r->latency.max_fraction = r->cpu_total.max_fraction = TOLERANCE_DEFAULT_FRACTION;
	r->peak_rss.max_fraction = TOLERANCE_DEFAULT_FRACTION_RSS;
	r->latency.gate = r->cpu_total.gate = r->peak_rss.gate = true;
	r->exponent_max_difference = SUITE_DEFAULT_EXPONENT_MAX_DIFF;
	r->artifact_size.statistic = r->instructions.statistic = SIDE_MEDIAN;
	r->artifact_size.max_fraction = r->instructions.max_fraction =
		TOLERANCE_DEFAULT_FRACTION_COUNTS;
	r->artifact_size.gate = r->instructions.gate = true;
	r->allocations = r->allocated_bytes = r->instructions;
}

void resolved_defaults(struct resolved *r)
{
	static const int zero[] = { 0 };

	memset(r, 0, sizeof(*r));
	r->l.warmup.kind = WARMUP_COUNT;
	r->l.warmup.count = SUITE_DEFAULT_WARMUP;
	r->l.min_runs = SUITE_DEFAULT_MIN_RUNS;
	r->l.max_runs = SUITE_DEFAULT_MAX_RUNS;
	r->l.min_time_ns = SUITE_DEFAULT_MIN_TIME_NS;
	r->l.unsupported = UNSUPPORTED_FAIL;
	r->cwd = "${root}";
	r->timeout_ns = SUITE_DEFAULT_TIMEOUT_NS;
	r->out.kind = r->err.kind = OUTPUT_DISCARD;
	r->exit_codes = zero;
	r->exit_code_count = 1;
}
