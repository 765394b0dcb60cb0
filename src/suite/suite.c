/*
 * The suite loader: see suite.h. Reading goes top-down over the position-
 * keeping tree of yamltree.c: each map of the format has a table of its keys
 * and a function that turns it into a typed piece (a `struct layer` for the
 * settings that layer, a command, a budget). Problems are collected, never
 * fatal, so that one run lists them all; cross-references (baseline,
 * regression.commands, min_runs against max_runs, budgets on unmeasured
 * metrics) are checked once the pieces they relate are typed. Reading one
 * node as a typed value (and saying what was wrong with it) is check.c's job.
 */
#include "suite/suite.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "suite/check.h"
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/yamltree.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

void suite_diags_init(struct suite_diags *d)
{
	memset(d, 0, sizeof(*d));
	arena_init(&d->arena);
}

void suite_diags_release(struct suite_diags *d)
{
	if (!d)
		return;
	free(d->v);
	arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

/* ---- layered settings ---- */

struct tol_layer {
	bool has_statistic, has_max_percent, has_min_difference, has_gate;
	struct tolerance t;
};

struct reg_layer {
	bool has_confidence, has_min_samples, has_max_cv, has_max_time;
	double confidence, max_cv;
	unsigned min_samples;
	uint64_t max_time_ns;
	const struct ynode *min_samples_node;
	const struct ynode *commands_node;
	const char *commands_path;
	struct tol_layer latency, cpu_total, peak_rss;
};

struct layer {
	bool has_warmup, has_runs, has_min_runs, has_max_runs, has_min_time, has_timeout;
	struct warmup warmup;
	unsigned runs, min_runs, max_runs;
	uint64_t min_time_ns, timeout_ns;
	const struct ynode *runs_node, *max_runs_node, *min_runs_node;
	const char *runs_path, *max_runs_path, *min_runs_path;
	const char *cwd;
	struct env_var *env;
	size_t env_count;
	bool has_stdout, has_stderr;
	const struct ynode *stderr_node;
	struct output out, err;
	int *exit_codes;
	size_t exit_code_count;
	bool has_cpu, cpu, has_memory, memory, has_unsupported;
	enum unsupported_policy unsupported;
	struct work work;
	const struct ynode *work_node;
	struct reg_layer reg;
};

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
			t->has_max_percent = check_percent(l, v, p, 1000, &t->t.max_percent);
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

static const char *const regression_keys[] = { "confidence", "min_samples", "max_cv",
					       "max_time",   "commands",    "latency",
					       "cpu_total",  "peak_rss",    NULL };

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
		}
	}
}

static const char *const work_keys[] = { "value", "file_size", "unit", NULL };

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
		if (!check_number(l, value, check_child(l, path, "value"), 0, 1e300, &w->value))
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
	    !check_template(l, file, check_child(l, path, "file_size"), w->file, false, NULL) ||
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

static const char *const metrics_keys[] = { "cpu", "memory", "unsupported", "throughput", NULL };

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
		if (!strcmp(k, "cpu")) {
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

/* "." , "a/..", "a/": a path whose last part can only be a directory, which
 * no run could write its output to. */
static bool names_a_directory(const char *rel)
{
	const char *last = strrchr(rel, '/');

	last = last ? last + 1 : rel;
	return !*last || !strcmp(last, ".") || !strcmp(last, "..");
}

static bool parse_output(struct loader *l, const struct ynode *n, const char *path,
			 struct output *o)
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

static void parse_env(struct loader *l, const struct ynode *n, const char *path, bool in_build,
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
		if (!v || !check_template(l, n->items[i], p, v, in_build, NULL))
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

/* The settings that layer; returns false when key is not one of them. Which
 * keys a level allows is decided by the caller's key list. */
static bool parse_setting(struct loader *l, const char *k, const struct ynode *v, const char *p,
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
	} else if (!strcmp(k, "timeout")) {
		ly->has_timeout = check_duration(l, v, p, true, &ly->timeout_ns);
	} else if (!strcmp(k, "cwd")) {
		const char *s = check_str(l, v, p);
		if (s && check_template(l, v, p, s, false, NULL) &&
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
static void layer_env(struct loader *l, struct env_var **env, size_t *count,
		      const struct env_var *add, size_t add_count)
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
		t->max_percent = o->t.max_percent;
	if (o->has_min_difference) {
		t->has_min_difference = true;
		t->min_difference = o->t.min_difference;
	}
	if (o->has_gate)
		t->gate = o->t.gate;
}

static void layer_regression(struct regression *r, const struct reg_layer *o)
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
}

/* Everything a benchmark's commands inherit, after defaults → benchmark. */
struct resolved {
	struct layer l; /* has_* flags say "set somewhere" */
	const char *cwd;
	struct env_var *env;
	size_t env_count;
	uint64_t timeout_ns;
	struct output out, err;
	const int *exit_codes;
	size_t exit_code_count;
};

static void apply_layer(struct loader *l, struct resolved *r, const struct layer *o)
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
	TAKE(has_cpu, cpu);
	TAKE(has_memory, memory);
	TAKE(has_unsupported, unsupported);
#undef TAKE
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

/* ---- commands, hooks, build ---- */

static bool parse_exec_command(struct loader *l, const struct ynode *map, const char *path,
			       bool in_build, struct exec *x)
{
	const struct ynode *cmd = ynode_get(map, "command"), *sh = ynode_get(map, "shell");
	const char *p = check_child(l, path, "command");
	bool shell = false;
	size_t i;

	if (sh && !check_bool(l, sh, check_child(l, path, "shell"), &shell))
		return false;
	if (!cmd) {
		check_problem(l, map, path, NULL, "expected a map with command, got no command");
		return false;
	}
	x->pos.line = cmd->line;
	x->pos.column = cmd->column;
	if (cmd->kind == YNODE_SEQ) {
		const char **argv;
		if (shell) {
			check_problem(l, sh, check_child(l, path, "shell"),
				      "write the command as one string, or drop shell: true",
				      "shell: true needs the command as a string, got a list");
			return false;
		}
		if (!cmd->count) {
			check_problem(l, cmd, p, NULL, "expected a non-empty argv list, got []");
			return false;
		}
		argv = arena_array(l->a, cmd->count + 1, sizeof(*argv));
		for (i = 0; i < cmd->count; i++) {
			const char *ip = check_index(l, p, i);
			const char *s = check_str(l, cmd->items[i], ip);
			if (!s || !check_template(l, cmd->items[i], ip, s, in_build, NULL))
				return false;
			if (!i && check_blank(s)) {
				check_problem(l, cmd->items[i], ip, NULL,
					      "expected a program name, got a blank string");
				return false;
			}
			argv[i] = s;
		}
		x->kind = EXEC_ARGV;
		x->argv = argv;
		x->argc = cmd->count;
		return true;
	}
	if (cmd->kind == YNODE_SCALAR && ynode_type(cmd) == YSCALAR_STR) {
		struct err e = ERR_INIT;
		size_t off;
		if (!shell) {
			check_problem(
				l, cmd, p,
				"write the command as a list [program, arg, ...], or set shell: "
				"true",
				"a command string needs shell: true");
			return false;
		}
		if (check_blank(cmd->text)) {
			check_problem(l, cmd, p, NULL,
				      "expected a shell command, got a blank string");
			return false;
		}
		if (!check_template(l, cmd, p, cmd->text, in_build, NULL))
			return false;
		if (vars_check_shell(cmd->text, &off, &e) < 0) {
			check_problem_in(
				l, cmd, off, p,
				"himorime quotes substituted values itself; remove the quotes "
				"around the variable",
				"%s", e.msg);
			return false;
		}
		x->kind = EXEC_SHELL;
		x->shell = cmd->text;
		return true;
	}
	check_problem(l, cmd, p, NULL, "expected an argv list or a string with shell: true, got %s",
		      check_found(l, cmd));
	return false;
}

static const char *const exec_keys[] = { "command", "shell", "cwd", "env", "timeout", NULL };

/* A hook or build step: own cwd, env (layered on `env`) and timeout. */
static bool parse_exec(struct loader *l, const struct ynode *n, const char *path, bool in_build,
		       const char *cwd, const struct env_var *env, size_t env_count,
		       uint64_t timeout_ns, struct exec *x)
{
	struct env_var *own_env = NULL;
	size_t own_count = 0, i;
	bool ok;

	if (!check_map(l, n, path, "a map with command"))
		return false;
	check_keys(l, n, path, exec_keys, path);
	ok = parse_exec_command(l, n, path, in_build, x);
	x->cwd = cwd;
	x->timeout_ns = timeout_ns;
	x->env = env;
	x->env_count = env_count;
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		if (!strcmp(k, "cwd")) {
			const char *s = check_str(l, v, p);
			if (s && check_template(l, v, p, s, in_build, NULL) &&
			    check_path(l, v, p, s, PATH_PROJECT))
				x->cwd = s;
		} else if (!strcmp(k, "env")) {
			parse_env(l, v, p, in_build, &own_env, &own_count);
		} else if (!strcmp(k, "timeout")) {
			check_duration(l, v, p, true, &x->timeout_ns);
		}
	}
	if (own_count) {
		struct env_var *merged = (struct env_var *)env;
		size_t count = env_count;
		layer_env(l, &merged, &count, own_env, own_count);
		x->env = merged;
		x->env_count = count;
	}
	return ok;
}

static void parse_hooks(struct loader *l, const struct ynode *n, const char *path,
			const struct resolved *r, const struct exec **out, size_t *count)
{
	struct exec *v;
	size_t i;

	if (!check_seq(l, n, path, "a list of commands"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	for (i = 0; i < n->count; i++)
		parse_exec(l, n->items[i], check_index(l, path, i), false, r->cwd, r->env,
			   r->env_count, SUITE_DEFAULT_HOOK_TIMEOUT_NS, &v[i]);
	*out = v;
	*count = n->count;
}

/* ---- budgets ---- */

static bool parse_aggregation(struct loader *l, const struct ynode *k, const char *path,
			      struct aggregation *a)
{
	struct err e = ERR_INIT;

	/* min, max, mean, median; percentiles have the suite's own rules */
	if (!aggregation_from_name(k->text, a) && a->kind != AGG_PERCENTILE)
		return true;
	if (units_percentile(k->text, &a->percentile, &e) < 0) {
		check_problem(l, k, path, "aggregations are min, max, mean, median and p1 to p99.9",
			      "expected an aggregation, got \"%s\"%s%s%s", k->text,
			      k->text[0] == 'p' ? " (" : "", k->text[0] == 'p' ? e.msg : "",
			      k->text[0] == 'p' ? ")" : "");
		return false;
	}
	a->kind = AGG_PERCENTILE;
	return true;
}

/* Past the bound operator that starts s (the longest: "<=" before "<"), with
 * *op set; NULL when s starts with none. */
static const char *skip_bound_op(const char *s, enum bound_op *op)
{
	size_t n, i, best = 0;
	const char *const *names = vocab_names(VOCAB_BOUND_OP, &n);

	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (len > best && !strncmp(s, names[i], len)) {
			best = len;
			*op = (enum bound_op)i;
		}
	}
	return best ? s + best : NULL;
}

static bool parse_bound(struct loader *l, const struct ynode *v, const char *path, enum metric m,
			const struct work *w, struct budget *b)
{
	const struct metric_info *mi = metric_info(m);
	const char *s, *rest;
	struct err e = ERR_INIT;
	double limit = 0;

	if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR) {
		check_problem(l, v, path, "quote the bound: \"<= 50ms\"",
			      "expected a bound such as \"<= 50ms\", got %s", check_found(l, v));
		return false;
	}
	s = v->text;
	while (*s == ' ')
		s++;
	rest = skip_bound_op(s, &b->op);
	if (!rest) {
		check_problem(l, v, path, "a bound starts with <, <=, > or >=",
			      "expected a bound such as \"<= 50ms\", got %s", check_found(l, v));
		return false;
	}
	while (*rest == ' ')
		rest++;
	if (mi->better == BETTER_LOWER && (b->op == BOUND_GT || b->op == BOUND_GE)) {
		check_problem(l, v, path, "lower is better for this metric: use < or <=",
			      "expected an upper bound (< or <=) for %s, got %s", mi->name,
			      check_found(l, v));
		return false;
	}
	if (mi->better == BETTER_HIGHER && (b->op == BOUND_LT || b->op == BOUND_LE)) {
		check_problem(l, v, path, "throughput budgets are floors: use > or >=",
			      "expected a lower bound (> or >=) for %s, got %s", mi->name,
			      check_found(l, v));
		return false;
	}
	switch (mi->unit) {
	case UNIT_NS: {
		uint64_t ns;
		if (units_duration(rest, &ns, &e) < 0) {
			check_problem(l, v, path, NULL,
				      "expected a duration after the operator, got %s (%s)",
				      check_found(l, v), e.msg);
			return false;
		}
		limit = (double)ns;
		break;
	}
	case UNIT_BYTES: {
		uint64_t bytes;
		if (units_size(rest, &bytes, &e) < 0) {
			check_problem(l, v, path,
				      "units: B, bytes, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
				      "expected a byte size after the operator, got %s (%s)",
				      check_found(l, v), e.msg);
			return false;
		}
		limit = (double)bytes;
		break;
	}
	case UNIT_PERCENT: {
		double f;
		if (units_percent(rest, &f, &e) < 0) {
			check_problem(l, v, path, NULL,
				      "expected a percentage after the operator, got %s",
				      check_found(l, v));
			return false;
		}
		limit = f * 100.0;
		break;
	}
	case UNIT_WORK_PER_S: {
		struct rate r;
		if (units_rate(rest, &r, &e) < 0) {
			check_problem(l, v, path, NULL,
				      "expected a rate such as \">= 50MiB/s\", got %s (%s)",
				      check_found(l, v), e.msg);
			return false;
		}
		if (w->kind != WORK_NONE && units_rate_in(&r, w->unit, &limit, &e) < 0) {
			check_problem(l, v, path,
				      "write the rate in the unit of metrics.throughput.work", "%s",
				      e.msg);
			return false;
		}
		break;
	}
	}
	if (!(limit > 0)) {
		check_problem(l, v, path, NULL, "expected a limit greater than 0, got %s",
			      check_found(l, v));
		return false;
	}
	b->limit = limit;
	b->text = v->text;
	b->pos.line = v->line;
	b->pos.column = v->column;
	return true;
}

static void parse_budgets(struct loader *l, const struct ynode *n, const char *path,
			  const struct benchmark *bm, struct command *c)
{
	struct budget *v;
	size_t i, j, total = 0, count = 0;

	if (!check_map(l, n, path, "a map of metric: {aggregation: bound}"))
		return;
	for (i = 0; i < n->count; i++)
		total += n->items[i]->kind == YNODE_MAP ? n->items[i]->count : 0;
	v = arena_array(l->a, total ? total : 1, sizeof(*v));
	for (i = 0; i < n->count; i++) {
		const struct ynode *mk = n->keys[i], *mv = n->items[i];
		const char *mp = check_child(l, path, mk->text);
		enum metric m;
		if (metric_from_name(mk->text, &m) < 0) {
			check_problem(
				l, mk, mp,
				"metrics are latency, throughput, cpu_user, cpu_system, cpu_total, "
				"cpu_utilization, peak_rss",
				"unknown metric \"%s\"", mk->text);
			continue;
		}
		if (!benchmark_measures(bm, m)) {
			check_problem(l, mk, mp,
				      m == METRIC_PEAK_RSS ? "set metrics.memory: true"
				      : m == METRIC_THROUGHPUT
					      ? "declare metrics.throughput.work in the benchmark"
					      : "set metrics.cpu: true",
				      "a budget on %s, which the benchmark does not measure",
				      mk->text);
			continue;
		}
		if (!check_map(l, mv, mp, "a map of aggregation: bound"))
			continue;
		for (j = 0; j < mv->count; j++) {
			const char *ap = check_child(l, mp, mv->keys[j]->text);
			struct budget *b = &v[count];
			b->metric = m;
			if (parse_aggregation(l, mv->keys[j], ap, &b->aggregation) &&
			    parse_bound(l, mv->items[j], ap, m, &bm->metrics.work, b))
				count++;
		}
	}
	c->budgets = v;
	c->budget_count = count;
}

static const char *const command_keys[] = { "command", "shell",	 "cwd",	       "env",	 "timeout",
					    "stdout",  "stderr", "exit_codes", "budget", NULL };

static void parse_command(struct loader *l, const struct ynode *n, const char *path,
			  const struct resolved *r, const struct benchmark *bm, struct command *c)
{
	struct layer own;
	size_t i;

	memset(&own, 0, sizeof(own));
	if (!check_map(l, n, path, "a map with command"))
		return;
	check_keys(l, n, path, command_keys, path);
	parse_exec_command(l, n, path, false, &c->exec);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		const char *const *known;
		for (known = command_keys; *known && strcmp(*known, k); known++) {
		}
		if (!*known) /* reported by check_keys */
			continue;
		if (!strcmp(k, "budget"))
			parse_budgets(l, v, p, bm, c);
		else if (strcmp(k, "command") && strcmp(k, "shell"))
			parse_setting(l, k, v, p, false, &own);
	}
	c->exec.cwd = own.cwd ? own.cwd : r->cwd;
	c->exec.timeout_ns = own.has_timeout ? own.timeout_ns : r->timeout_ns;
	{
		struct env_var *env = r->env;
		size_t count = r->env_count;
		layer_env(l, &env, &count, own.env, own.env_count);
		c->exec.env = env;
		c->exec.env_count = count;
	}
	c->out = own.has_stdout ? own.out : r->out;
	c->err = own.has_stderr ? own.err : r->err;
	if (bm->terminal) /* all output is the pty's, kept as stdout */
		c->err.kind = OUTPUT_DISCARD, c->err.path = NULL;
	if (bm->terminal && own.has_stderr)
		check_problem(l, own.stderr_node, check_child(l, path, "stderr"),
			      "a terminal benchmark's output is all on the pty; use stdout",
			      "stderr cannot be set in a terminal benchmark");
	c->exit_codes = own.exit_code_count ? own.exit_codes : r->exit_codes;
	c->exit_code_count = own.exit_code_count ? own.exit_code_count : r->exit_code_count;
}

static void parse_stdin(struct loader *l, const struct ynode *n, const char *path,
			struct stdin_spec *s)
{
	const struct ynode *v;
	const char *p;

	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_STR) {
		if (check_template(l, n, path, n->text, false, NULL) &&
		    check_path(l, n, path, n->text, PATH_PROJECT)) {
			s->kind = STDIN_FILE;
			s->value = n->text;
		}
		return;
	}
	if (n->kind != YNODE_MAP || n->count != 1 ||
	    (strcmp(n->keys[0]->text, "file") && strcmp(n->keys[0]->text, "content"))) {
		check_problem(
			l, n, path, NULL,
			"expected a path, {file: path} or {content: text} (exactly one), got %s",
			n->kind == YNODE_MAP ? "another map" : check_found(l, n));
		return;
	}
	v = n->items[0];
	p = check_child(l, path, n->keys[0]->text);
	if (!check_str(l, v, p) || !check_template(l, v, p, v->text, false, NULL))
		return;
	if (!strcmp(n->keys[0]->text, "file")) {
		if (!check_path(l, v, p, v->text, PATH_PROJECT))
			return;
		s->kind = STDIN_FILE;
	} else {
		s->kind = STDIN_CONTENT;
	}
	s->value = v->text;
}

static void parse_tags(struct loader *l, const struct ynode *n, const char *path,
		       struct benchmark *b)
{
	const char **v;
	size_t i;

	if (!check_seq(l, n, path, "a list of tags"))
		return;
	v = arena_array(l->a, n->count + 1, sizeof(*v));
	for (i = 0; i < n->count; i++) {
		const char *ip = check_index(l, path, i), *s = check_str(l, n->items[i], ip);
		if (s && !check_is_name(s)) {
			check_problem(
				l, n->items[i], ip, NULL,
				"expected a tag matching ^[A-Za-z0-9][A-Za-z0-9_.-]*$, got %s",
				check_found(l, n->items[i]));
			continue;
		}
		if (s)
			v[b->tag_count++] = s;
	}
	b->tags = v;
}

static const struct command *find_command(const struct benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->command_count; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

static void regression_defaults(struct regression *r)
{
	memset(r, 0, sizeof(*r));
	r->confidence = SUITE_DEFAULT_CONFIDENCE;
	r->min_samples = SUITE_DEFAULT_MIN_SAMPLES;
	r->max_cv = SUITE_DEFAULT_MAX_CV;
	r->latency.statistic = r->cpu_total.statistic = r->peak_rss.statistic = SIDE_MEDIAN;
	r->latency.max_percent = r->cpu_total.max_percent = SUITE_DEFAULT_MAX_PERCENT;
	r->peak_rss.max_percent = SUITE_DEFAULT_MAX_PERCENT_RSS;
	r->latency.gate = r->cpu_total.gate = r->peak_rss.gate = true;
}

static void resolved_defaults(struct resolved *r)
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

static const char *const benchmark_keys[] = {
	"name",		"description", "tags",	     "stdin",	 "terminal",   "setup",
	"prepare_each", "cleanup",     "baseline",   "commands", "warmup",     "runs",
	"min_runs",	"max_runs",    "min_time",   "timeout",	 "cwd",	       "env",
	"stdout",	"stderr",      "exit_codes", "metrics",	 "regression", NULL
};

static const char *const defaults_keys[] = { "warmup",	   "runs",    "min_runs",   "max_runs",
					     "min_time",   "timeout", "cwd",	    "env",
					     "stdout",	   "stderr",  "exit_codes", "metrics",
					     "regression", NULL };

/* Cross-checks of the resolved run counts. runs or max_runs below
 * regression.min_samples is valid here (a run or a suite new in head measures
 * it as asked); a comparison refuses it once the revisions are known
 * (session_check_looks, docs/configuration.md). */
static void check_runs(struct loader *l, const struct resolved *r, const struct benchmark *b)
{
	if ((r->l.has_min_runs || r->l.has_max_runs) && b->min_runs > b->max_runs)
		check_problem(l, r->l.has_min_runs ? r->l.min_runs_node : r->l.max_runs_node,
			      r->l.has_min_runs ? r->l.min_runs_path : r->l.max_runs_path, NULL,
			      "expected min_runs (%u) to be at most max_runs (%u)", b->min_runs,
			      b->max_runs);
}

static void parse_benchmark(struct loader *l, const struct ynode *n, const char *path,
			    const struct layer *defaults, struct benchmark *b)
{
	struct layer own;
	struct resolved r;
	const struct ynode *v;
	size_t i;

	memset(&own, 0, sizeof(own));
	b->pos.line = n->line;
	b->pos.column = n->column;
	if (!check_map(l, n, path, "a benchmark map"))
		return;
	check_keys(l, n, path, benchmark_keys, path);
	for (i = 0; i < n->count; i++)
		parse_setting(l, n->keys[i]->text, n->items[i],
			      check_child(l, path, n->keys[i]->text), true, &own);
	resolved_defaults(&r);
	apply_layer(l, &r, defaults);
	apply_layer(l, &r, &own);
	b->warmup = r.l.warmup;
	b->runs = r.l.has_runs ? r.l.runs : 0;
	b->min_runs = r.l.min_runs;
	b->max_runs = r.l.max_runs;
	b->max_runs_set = r.l.has_max_runs;
	b->min_time_ns = r.l.min_time_ns;
	b->metrics.cpu = r.l.cpu;
	b->metrics.memory = r.l.memory;
	b->metrics.unsupported = r.l.unsupported;
	b->metrics.work = own.work;
	regression_defaults(&b->regression);
	layer_regression(&b->regression, &defaults->reg);
	layer_regression(&b->regression, &own.reg);
	check_runs(l, &r, b);

	v = ynode_get(n, "name");
	if (!v)
		check_problem(l, n, path, NULL, "expected a map with name, got no name");
	else
		b->name = check_name(l, v, check_child(l, path, "name"));
	if ((v = ynode_get(n, "description")))
		b->description = check_str(l, v, check_child(l, path, "description"));
	if ((v = ynode_get(n, "tags")))
		parse_tags(l, v, check_child(l, path, "tags"), b);
	if ((v = ynode_get(n, "stdin")))
		parse_stdin(l, v, check_child(l, path, "stdin"), &b->stdin_spec);
	if ((v = ynode_get(n, "terminal")))
		check_bool(l, v, check_child(l, path, "terminal"), &b->terminal);
	if (b->terminal && r.l.has_stderr && own.has_stderr)
		check_problem(l, own.stderr_node, check_child(l, path, "stderr"),
			      "a terminal benchmark's output is all on the pty; use stdout",
			      "stderr cannot be set in a terminal benchmark");
	if ((v = ynode_get(n, "setup")))
		parse_hooks(l, v, check_child(l, path, "setup"), &r, &b->setup, &b->setup_count);
	if ((v = ynode_get(n, "prepare_each")))
		parse_hooks(l, v, check_child(l, path, "prepare_each"), &r, &b->prepare_each,
			    &b->prepare_each_count);
	if ((v = ynode_get(n, "cleanup")))
		parse_hooks(l, v, check_child(l, path, "cleanup"), &r, &b->cleanup,
			    &b->cleanup_count);

	v = ynode_get(n, "commands");
	if (!v) {
		check_problem(l, n, path, NULL, "expected a map with commands, got no commands");
	} else if (check_map(l, v, check_child(l, path, "commands"), "a map of NAME: command")) {
		struct command *cs = arena_array(l->a, v->count ? v->count : 1, sizeof(*cs));
		const char *cp = check_child(l, path, "commands");
		if (!v->count)
			check_problem(l, v, cp, NULL, "expected at least one command, got none");
		l->total_commands += v->count;
		if (l->total_commands > SUITE_MAX_COMMANDS) {
			check_problem(l, v, cp, NULL,
				      "more than %d commands in one suite file (a limit)",
				      SUITE_MAX_COMMANDS);
		} else {
			for (i = 0; i < v->count; i++) {
				const struct ynode *k = v->keys[i];
				const char *p = check_child(l, cp, k->text);
				if (!check_is_name(k->text))
					check_problem(l, k, p, NULL,
						      "expected a command name matching "
						      "^[A-Za-z0-9][A-Za-z0-9_.-]*$, got \"%s\"",
						      k->text);
				cs[i].name = k->text;
				cs[i].pos.line = k->line;
				cs[i].pos.column = k->column;
				parse_command(l, v->items[i], p, &r, b, &cs[i]);
			}
			b->commands = cs;
			b->command_count = v->count;
		}
	}
	if ((v = ynode_get(n, "baseline"))) {
		const char *s = check_str(l, v, check_child(l, path, "baseline"));
		if (s && b->commands && !find_command(b, s))
			check_problem(
				l, v, check_child(l, path, "baseline"), NULL,
				"expected the name of one of the benchmark's commands, got %s",
				check_found(l, v));
		b->baseline = s;
	}
	if (own.reg.commands_node) {
		const struct ynode *cn = own.reg.commands_node;
		const char **names = arena_array(l->a, cn->count + 1, sizeof(*names));
		for (i = 0; i < cn->count; i++) {
			const char *ip = check_index(l, own.reg.commands_path, i);
			const char *s = check_str(l, cn->items[i], ip);
			if (s && b->commands && !find_command(b, s))
				check_problem(
					l, cn->items[i], ip, NULL,
					"expected the name of one of the benchmark's commands, got "
					"%s",
					check_found(l, cn->items[i]));
			names[i] = s;
		}
		b->regression.commands = names;
		b->regression.command_count = cn->count;
	}
}

/* ---- report ---- */

static const char *const report_format_names[] = { "json", "csv", "markdown", "github",
						   "samples-csv" };

const char *report_format_name(enum report_format f)
{
	return report_format_names[f];
}

static const char *const output_keys[] = { "format", "path", "section", NULL };

/* "a/./b//c" and "a/b/c" name the same destination. */
static const char *normalize(struct loader *l, const char *p)
{
	struct strbuf sb;
	char *s;

	strbuf_init(&sb, 0);
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n && !(n == 1 && *p == '.')) {
			if (sb.len)
				strbuf_addch(&sb, '/');
			strbuf_add(&sb, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	s = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return s;
}

static void parse_outputs(struct loader *l, const struct ynode *n, const char *path,
			  struct suite *s)
{
	struct report_output *v;
	const char **norm;
	size_t i, j;

	if (!check_seq(l, n, path, "a list of outputs"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	norm = arena_array(l->a, n->count ? n->count : 1, sizeof(*norm));
	for (i = 0; i < n->count; i++) {
		const struct ynode *o = n->items[i], *f, *p, *sec;
		const char *op = check_index(l, path, i), *fs = NULL, *ps = NULL;
		size_t k;
		if (!check_map(l, o, op, "a map of format, path, section"))
			continue;
		check_keys(l, o, op, output_keys, op);
		f = ynode_get(o, "format");
		p = ynode_get(o, "path");
		sec = ynode_get(o, "section");
		if (!f || !p) {
			check_problem(l, o, op, NULL,
				      "expected a map with format and path, got no %s",
				      f ? "path" : "format");
			continue;
		}
		fs = check_str(l, f, check_child(l, op, "format"));
		for (k = 0; fs && k < sizeof(report_format_names) / sizeof(*report_format_names);
		     k++)
			if (!strcmp(fs, report_format_names[k]))
				break;
		if (fs && k == sizeof(report_format_names) / sizeof(*report_format_names)) {
			check_problem(l, f, check_child(l, op, "format"), NULL,
				      "expected json, csv, markdown, github or samples-csv, got %s",
				      check_found(l, f));
			continue;
		}
		ps = check_str(l, p, check_child(l, op, "path"));
		if (!fs || !ps || !check_path(l, p, check_child(l, op, "path"), ps, PATH_SUITE))
			continue;
		v[s->output_count].format = (enum report_format)k;
		v[s->output_count].path = ps;
		v[s->output_count].pos.line = o->line;
		v[s->output_count].pos.column = o->column;
		if (sec) {
			const char *ss = check_str(l, sec, check_child(l, op, "section"));
			if (ss && k != REPORT_MARKDOWN) {
				check_problem(l, sec, check_child(l, op, "section"), NULL,
					      "section is only allowed with format markdown");
				continue;
			}
			if (ss && !check_is_section(ss)) {
				check_problem(
					l, sec, check_child(l, op, "section"), NULL,
					"expected a section name matching ^[a-z0-9][a-z0-9-]*$, "
					"got %s",
					check_found(l, sec));
				continue;
			}
			v[s->output_count].section = ss;
		}
		norm[s->output_count] = normalize(l, ps);
		for (j = 0; j < s->output_count; j++)
			if (!strcmp(norm[j], norm[s->output_count]) &&
			    !(v[j].section && v[s->output_count].section &&
			      strcmp(v[j].section, v[s->output_count].section)))
				break;
		if (j < s->output_count) {
			check_problem(l, p, check_child(l, op, "path"), NULL,
				      "duplicate destination \"%s\" (first at %u:%u)", ps,
				      v[j].pos.line, v[j].pos.column);
			continue;
		}
		s->output_count++;
	}
	s->outputs = v;
}

static void parse_versions(struct loader *l, const struct ynode *n, const char *path,
			   struct suite *s)
{
	struct tool_version *v;
	size_t i, j;

	if (!check_map(l, n, path, "a map of TOOL: [argv...]"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	for (i = 0; i < n->count; i++) {
		const struct ynode *a = n->items[i];
		const char *p = check_child(l, path, n->keys[i]->text);
		const char **argv;
		if (check_blank(n->keys[i]->text)) {
			check_problem(l, n->keys[i], p, NULL,
				      "expected a tool name, got a blank one");
			continue;
		}
		if (!check_seq(l, a, p, "an argv list"))
			continue;
		if (!a->count) {
			check_problem(l, a, p, NULL, "expected a non-empty argv list, got []");
			continue;
		}
		argv = arena_array(l->a, a->count + 1, sizeof(*argv));
		for (j = 0; j < a->count; j++)
			argv[j] = check_str(l, a->items[j], check_index(l, p, j));
		v[s->version_count].tool = n->keys[i]->text;
		v[s->version_count].argv = argv;
		v[s->version_count].argc = a->count;
		v[s->version_count].pos.line = n->keys[i]->line;
		v[s->version_count].pos.column = n->keys[i]->column;
		s->version_count++;
	}
	s->versions = v;
}

/* ---- the file ---- */

static const char *const top_keys[] = { "version", "name",	 "description", "defaults",
					"build",   "benchmarks", "report",	NULL };

static void parse_suite(struct loader *l, const struct ynode *root, struct suite *s)
{
	const struct ynode *v;
	struct layer defaults;
	size_t i, j;

	memset(&defaults, 0, sizeof(defaults));
	if (!check_map(l, root, "", "a map with version, name and benchmarks"))
		return;
	/* x-*: a place for YAML anchors that benchmarks share, as in compose
	 * files (docs/configuration.md); nothing reads them. */
	check_keys_but(l, root, "", top_keys, "x-", "the suite");
	v = ynode_get(root, "version");
	if (!v)
		check_problem(l, root, "", "add version: \"1\" as the first key",
			      "expected a map with version, got no version");
	else if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR || strcmp(v->text, "1"))
		check_problem(l, v, "version",
			      v->kind == YNODE_SCALAR && !strcmp(v->text, "1") ? "quote it: \"1\""
									       : NULL,
			      "expected \"1\", got %s", check_found(l, v));
	v = ynode_get(root, "name");
	if (!v)
		check_problem(l, root, "", NULL, "expected a map with name, got no name");
	else
		s->name = check_name(l, v, "name");
	if ((v = ynode_get(root, "description")))
		s->description = check_str(l, v, "description");
	if ((v = ynode_get(root, "defaults")) && check_map(l, v, "defaults", "a map of settings")) {
		check_keys(l, v, "defaults", defaults_keys, "defaults");
		for (i = 0; i < v->count; i++)
			parse_setting(l, v->keys[i]->text, v->items[i],
				      check_child(l, "defaults", v->keys[i]->text), false,
				      &defaults);
	}
	if ((v = ynode_get(root, "build"))) {
		l->has_build = true;
		s->has_build = true;
		parse_exec(l, v, "build", true, "${root}", NULL, 0, SUITE_DEFAULT_BUILD_TIMEOUT_NS,
			   &s->build);
	}
	if ((v = ynode_get(root, "report")) &&
	    check_map(l, v, "report", "a map of outputs, versions")) {
		const struct ynode *o;
		check_keys(l, v, "report", (const char *const[]){ "outputs", "versions", NULL },
			   "report");
		if ((o = ynode_get(v, "outputs")))
			parse_outputs(l, o, "report.outputs", s);
		if ((o = ynode_get(v, "versions")))
			parse_versions(l, o, "report.versions", s);
	}
	v = ynode_get(root, "benchmarks");
	if (!v) {
		check_problem(l, root, "", NULL,
			      "expected a map with benchmarks, got no benchmarks");
		return;
	}
	if (!check_seq(l, v, "benchmarks", "a list of benchmarks"))
		return;
	if (!v->count) {
		check_problem(l, v, "benchmarks", NULL, "expected at least one benchmark, got []");
		return;
	}
	if (v->count > SUITE_MAX_BENCHMARKS) {
		check_problem(l, v, "benchmarks", NULL,
			      "more than %d benchmarks in one suite file (a limit)",
			      SUITE_MAX_BENCHMARKS);
		return;
	}
	{
		struct benchmark *bs = arena_array(l->a, v->count, sizeof(*bs));
		for (i = 0; i < v->count; i++) {
			parse_benchmark(l, v->items[i], check_index(l, "benchmarks", i), &defaults,
					&bs[i]);
			for (j = 0; bs[i].name && j < i; j++)
				if (bs[j].name && !strcmp(bs[j].name, bs[i].name)) {
					const struct ynode *nn = ynode_get(v->items[i], "name");
					check_problem(
						l, nn,
						arena_printf(l->a, "benchmarks[%zu].name", i), NULL,
						"duplicate benchmark name \"%s\" (first at %u:%u)",
						bs[i].name, bs[j].pos.line, bs[j].pos.column);
					break;
				}
		}
		s->benchmarks = bs;
		s->benchmark_count = v->count;
	}
}

/* Directories between the project root (nearest ancestor with .git, else the
 * suite's own directory) and the suite's directory. */
static int project_depth(const char *dir)
{
	char *real = realpath(dir, NULL);
	int depth = 0, up = 0;
	size_t len;

	if (!real)
		return 0;
	len = strlen(real);
	for (;;) {
		struct stat st;
		char *git = xasprintf("%.*s/.git", (int)len, real);
		int found_git = stat(git, &st) == 0;
		free(git);
		if (found_git) {
			depth = up;
			break;
		}
		while (len > 0 && real[len - 1] != '/')
			len--;
		if (len <= 1)
			break;
		len--;
		up++;
	}
	free(real);
	return depth;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int diag_cmp(const struct suite_diag *a, const struct suite_diag *b)
{
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->column != b->column)
		return a->column < b->column ? -1 : 1;
	return 0;
}

static bool same_diag(const struct suite_diag *a, const struct suite_diag *b)
{
	return !diag_cmp(a, b) && !strcmp(a->path, b->path) && !strcmp(a->message, b->message);
}

/* Orders one file's problems by place (stable: an insertion sort, at most
 * SUITE_MAX_DIAGS + 1 of them) and drops repeats, such as a defaults value
 * found wrong once per benchmark that inherits it. The "too many problems"
 * line stays last. */
static void sort_diags(struct suite_diags *d, size_t start)
{
	size_t i, j, end = d->count, out;

	if (end > start && !d->v[end - 1].line && !*d->v[end - 1].path &&
	    strstr(d->v[end - 1].message, "problems; stopping"))
		end--;
	for (i = start + 1; i < end; i++) {
		struct suite_diag x = d->v[i];
		for (j = i; j > start && diag_cmp(&d->v[j - 1], &x) > 0; j--)
			d->v[j] = d->v[j - 1];
		d->v[j] = x;
	}
	for (out = i = start; i < d->count; i++)
		if (out == start || i >= end || !same_diag(&d->v[out - 1], &d->v[i]))
			d->v[out++] = d->v[i];
	d->count = out;
}

int suite_load(const char *path, struct suite **out, struct suite_diags *diags, struct err *err)
{
	size_t first_diag = diags->count;
	struct suite *s = xcalloc(1, sizeof(*s));
	struct loader l;
	struct ytree tree;
	struct err rerr = ERR_INIT;
	char *text = NULL, *dir = dir_of(path);
	size_t len, i;
	int rc;

	*out = NULL;
	arena_init(&s->arena);
	memset(&l, 0, sizeof(l));
	l.a = &s->arena;
	l.diags = diags;
	l.file = path;
	s->path = arena_strdup(&s->arena, path);
	s->dir = arena_strdup(&s->arena, dir);
	l.project_depth = project_depth(dir);
	free(dir);
	rc = fsio_read_file(path, SUITE_MAX_FILE_BYTES, &text, &len, &rerr);
	if (rc < 0) {
		check_add_diag(&l, 0, 0, NULL, "",
			       rc == ERR_INVALID ? "a suite file is at most 4 MiB (a limit)" : NULL,
			       rerr.msg);
		goto done;
	}
	if (memchr(text, '\0', len)) {
		check_add_diag(&l, 0, 0, NULL, "", NULL,
			       "the file contains a NUL byte; expected YAML text");
		goto done;
	}
	l.src = text;
	l.src_len = len;
	ytree_parse(&tree, text, len, &s->arena);
	for (i = 0; i < tree.diag_count; i++)
		check_add_diag(&l, tree.diags[i].line, tree.diags[i].column, tree.diags[i].via,
			       tree.diags[i].path, NULL, tree.diags[i].message);
	free(tree.diags);
	if (!tree.fatal) {
		if (!tree.root)
			check_add_diag(
				&l, 1, 1, NULL, "", "start with version: \"1\"",
				"expected a map with version, name and benchmarks, got an empty "
				"document");
		else
			parse_suite(&l, tree.root, s);
	}
done:
	free(text);
	sort_diags(diags, first_diag);
	if (l.problems) {
		l.problems = diags->count - first_diag;
		diags->files_with_problems++;
		suite_free(s);
		return err_set(err, ERR_INVALID, "%s: %zu problem%s", path, l.problems,
			       l.problems == 1 ? "" : "s");
	}
	*out = s;
	return 0;
}

void suite_free(struct suite *s)
{
	if (!s)
		return;
	arena_release(&s->arena);
	free(s);
}

bool benchmark_measures(const struct benchmark *b, enum metric m)
{
	switch (m) {
	case METRIC_LATENCY:
		return true;
	case METRIC_THROUGHPUT:
		return b->metrics.work.kind != WORK_NONE;
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_TOTAL:
	case METRIC_CPU_UTILIZATION:
		return b->metrics.cpu;
	case METRIC_PEAK_RSS:
		return b->metrics.memory;
	case METRIC__COUNT:
		break;
	}
	return false;
}

const struct tolerance *regression_tolerance(const struct regression *r, enum metric m)
{
	switch (m) {
	case METRIC_LATENCY:
		return &r->latency;
	case METRIC_CPU_TOTAL:
		return &r->cpu_total;
	case METRIC_PEAK_RSS:
		return &r->peak_rss;
	case METRIC_THROUGHPUT:
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_UTILIZATION:
	case METRIC__COUNT:
		break;
	}
	return NULL;
}

/* A word as a shell would need it to read back the same argument. */
static void add_shell_word(struct strbuf *sb, const char *s)
{
	const char *p;

	if (*s && !s[strcspn(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")]) {
		strbuf_adds(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p; p++)
		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	strbuf_addch(sb, '\'');
}

void suite_exec_text(const struct exec *x, struct strbuf *out)
{
	size_t i;

	switch (x->kind) {
	case EXEC_SHELL:
		strbuf_adds(out, x->shell);
		return;
	case EXEC_ARGV:
		break;
	}
	for (i = 0; i < x->argc; i++) {
		if (i)
			strbuf_addch(out, ' ');
		add_shell_word(out, x->argv[i]);
	}
}
