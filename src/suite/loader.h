/*
 * The suite loader's pieces and what they share (private to src/suite/). The
 * loader reads top-down over the position-keeping tree of yamltree.c: each
 * map of the format has a table of its keys and a function that turns it
 * into a typed piece, in files by layer:
 *
 *   suite.c      the file: top-level keys, report outputs and versions,
 *                problems sorted by place; suite_load()
 *   benchmark.c  one benchmark: settings resolved, hooks, commands, the
 *                references inside it
 *   commands.c   commands, hooks and the build step
 *   budgets.c    a command's budgets
 *   defaults.c   the settings that layer (defaults, benchmark, command)
 *   cases.c      parameters: one benchmark read once per case
 *
 * Reading one node as a typed value, and saying what was wrong with it, is
 * check.h's job. Every function here records its problems in the loader and
 * goes on, so that one run lists them all.
 */
#ifndef HIMORIME_SUITE_LOADER_H
#define HIMORIME_SUITE_LOADER_H

#include "suite/check.h"
#include "suite/suite.h"
#include "suite/yamltree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One level's settings, each with a flag that says it was set there. */
struct tol_layer {
	bool has_statistic, has_max_percent, has_min_difference, has_gate;
	struct tolerance t;
};

struct reg_layer {
	bool has_confidence, has_min_samples, has_max_cv, has_max_time, has_max_total_time;
	double confidence, max_cv;
	unsigned min_samples;
	uint64_t max_time_ns, max_total_time_ns;
	const struct ynode *min_samples_node;
	const struct ynode *commands_node;
	const char *commands_path;
	struct tol_layer latency, cpu_total, peak_rss, artifact_size, instructions, allocations,
		allocated_bytes;
	bool has_exponent;
	double exponent_max_difference;
};

struct layer {
	bool has_warmup, has_runs, has_min_runs, has_max_runs, has_min_time, has_timeout;
	bool has_schedule;
	enum schedule schedule;
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
	bool has_artifact_size, artifact_size;
	const struct ynode *artifact_size_node; /* where it was set */
	const char *artifact_size_path;
	bool has_instructions, instructions, has_backend, has_count_runs;
	bool has_allocations, allocations;
	enum counter_backend backend;
	unsigned count_runs;
	enum unsupported_policy unsupported;
	struct work work;
	const struct ynode *work_node;
	struct reg_layer reg;
};

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

/* ---- defaults.c ---- */

/* The settings that layer; returns false when k is not one of them. Which
 * keys a level allows is decided by the caller's key list. */
bool parse_setting(struct loader *l, const char *k, const struct ynode *v, const char *p,
		   bool benchmark_level, struct layer *ly);
/* `metrics:` of a command: instructions, allocations and artifact_size;
 * the other metrics keys are refused with their place. */
void parse_command_metrics(struct loader *l, const struct ynode *n, const char *path,
			   struct layer *ly);
/* `env:` of a level, a hook or the build (in_build: ${artifact} is not yet
 * known, ${workdir} does not exist). */
void parse_env(struct loader *l, const struct ynode *n, const char *path, bool in_build,
	       struct env_var **out, size_t *count);
/* Adds `add` to *env (a copy in the arena); a name already there is replaced. */
void layer_env(struct loader *l, struct env_var **env, size_t *count, const struct env_var *add,
	       size_t add_count);
void layer_regression(struct regression *r, const struct reg_layer *o);
/* Lays o over r: what o sets wins. */
void apply_layer(struct loader *l, struct resolved *r, const struct layer *o);
/* The built-in defaults (docs/configuration.md). */
void regression_defaults(struct regression *r);
void resolved_defaults(struct resolved *r);

/* stdout: or stderr: "discard" or a file inside ${workdir}. */
bool parse_output(struct loader *l, const struct ynode *n, const char *path, struct output *o);

/* ---- commands.c ---- */

/* command and shell of a command, hook or build map. */
bool parse_exec_command(struct loader *l, const struct ynode *map, const char *path, bool in_build,
			struct exec *x);
/* A hook or build step: own cwd, env (layered on `env`) and timeout. */
bool parse_exec(struct loader *l, const struct ynode *n, const char *path, bool in_build,
		const char *cwd, const struct env_var *env, size_t env_count, uint64_t timeout_ns,
		struct exec *x);
/* setup, prepare_each or cleanup: a list of hooks with the benchmark's cwd
 * and env. */
void parse_hooks(struct loader *l, const struct ynode *n, const char *path,
		 const struct resolved *r, const struct exec **out, size_t *count);
/* One command of benchmark bm, its own settings over r. */
void parse_command(struct loader *l, const struct ynode *n, const char *path,
		   const struct resolved *r, const struct benchmark *bm, struct command *c);

/* ---- budgets.c ---- */

/* `budget:` of a command: only metrics that c measures (c->metrics
 * resolved). */
void parse_budgets(struct loader *l, const struct ynode *n, const char *path,
		   const struct benchmark *bm, struct command *c);

/* ---- cases.c ---- */

/* A `cases:` entry: which cases it selects and what it sets. */
struct case_override {
	struct params_selector sel;
	const struct ynode *node;
	const char *path;
};

/* A benchmark's parameters as read, and their expansion. */
struct case_spec {
	struct param *params;
	size_t n;
	size_t **exclusions;
	size_t n_exclusions;
	struct case_override *overrides; /* heap: cases_release */
	size_t n_overrides;
	struct params_expansion e;
	size_t size_param;	     /* the index of `size` (sizes:), or SIZE_MAX */
	const double *size_counts;   /* per size value: the count ("64k" is 64000) */
	const char **size_digits;    /* per size value: what ${size} gives ("64000") */
	const bool *size_no_compare; /* per size value: compare: false */
	size_t long_run;	     /* the size value `long_run:` names, or SIZE_MAX */
	bool failed;		     /* a problem in the parameters: read the benchmark once */
};

/* The case being read: its values, and the overrides that select it. */
struct case_ctx {
	struct vars_params vp;
	const struct params_value *values;
	const struct case_override *const *over;
	size_t n_over;
	bool repeat; /* not the first case: what is counted once is counted */
};

/* Reads the parameters of benchmark n; returns how many benchmarks it
 * makes (1 without parameters or with a problem in them). */
size_t cases_read(struct loader *l, const struct ynode *n, const char *path,
		  struct case_spec *spec);
void cases_release(struct case_spec *spec);
/* Reads case c of benchmark n into b; false when that recorded a problem. */
bool cases_parse(struct loader *l, const struct ynode *n, const char *path,
		 const struct layer *defaults, const struct case_spec *spec, size_t c,
		 struct benchmark *b);
/* The current case's `cases:` overrides, for parse_benchmark. */
void cases_apply_regression(struct loader *l, struct benchmark *b);
void cases_apply_budgets(struct loader *l, struct benchmark *b);

/* ---- benchmark.c ---- */

void parse_benchmark(struct loader *l, const struct ynode *n, const char *path,
		     const struct layer *defaults, struct benchmark *b);

#endif
