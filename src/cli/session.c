/*
 * The measuring commands' shared session: see session.h.
 */
#include "cli/session.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "common/version.h"
#include "github/actions.h"
#include "measure/sysinfo.h"
#include "render/render.h"
#include "suite/suite.h"
#include "suite/units.h"
#include "vcs/vcs.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

/* The runner a signal handler stops; set while measuring. */
static struct runner *volatile signal_target;
static volatile sig_atomic_t signals_seen;

static void on_signal(int sig)
{
	(void)sig;
	if (signals_seen++) {
		/* A second signal exits at once; the spawner sees its socket close
		 * and kills whatever is still running. */
		_exit(EXIT_EXEC);
	}
	if (signal_target)
		runner_interrupt(signal_target);
}

static void install_signals(void)
{
	/* A closed terminal (SIGHUP) and SIGQUIT stop the run like SIGTERM: the
	 * tree is stopped, temporary directories removed, exit 4. */
	static const int stopping[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stopping); i++)
		sigaction(stopping[i], &sa, NULL);
}

static char *spawner_beside_self(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xasprintf("%s/himorime-spawner", self);
}

static void progress_line(void *ctx, const char *line)
{
	char buf[1024];

	(void)ctx;
	/* Names come from the suite: one line, no escape sequences of theirs. */
	err_escape(buf, sizeof(buf), line);
	fprintf(stderr, "\r\033[K%s", buf);
	fflush(stderr);
}

uint64_t session_phase(struct session *s, enum results_phase p, uint64_t since_ns)
{
	uint64_t now = clock_monotonic_ns();

	s->doc->timings.phase_ns[p] += now - since_ns;
	return now;
}

void session_timings_total(struct session *s)
{
	s->doc->timings.total_ns = clock_monotonic_ns() - s->started_ns;
}

void session_print_timings(const struct session *s)
{
	const struct results_timings *t = &s->doc->timings;
	double total = (double)(clock_monotonic_ns() - s->started_ns), sum = 0, own;
	int p;

	if (!s->verbose)
		return;
	fprintf(stderr, "himorime: phases (wall clock, CLOCK_MONOTONIC):\n");
	for (p = 0; p < RESULTS_PHASE__COUNT; p++) {
		double ns = (double)t->phase_ns[p];
		sum += ns;
		fprintf(stderr, "himorime:   %-17s %10.1f ms %6.2f%%\n",
			results_phase_name((enum results_phase)p), ns / 1e6, 100.0 * ns / total);
	}
	fprintf(stderr, "himorime:   %-17s %10.1f ms %6.2f%%\n", "other",
		(total > sum ? total - sum : 0) / 1e6,
		total > sum ? 100.0 * (total - sum) / total : 0);
	fprintf(stderr, "himorime:   %-17s %10.1f ms\n", "total", total / 1e6);
	own = total -
	      (double)(t->phase_ns[RESULTS_PHASE_BUILD_HEAD] +
		       t->phase_ns[RESULTS_PHASE_BUILD_BASE] + t->phase_ns[RESULTS_PHASE_WARMUP] +
		       t->phase_ns[RESULTS_PHASE_ROUNDS]);
	fprintf(stderr, "himorime:   %-17s %10.1f ms %6.2f%% (all but builds, warmup and rounds)\n",
		"himorime's own", own / 1e6, 100.0 * own / total);
}

void session_log(const struct session *s, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	if (s->quiet || s->progress_tty)
		return;
	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fprintf(stderr, "himorime: %s, %.1f s elapsed\n", sb.buf,
		(double)(clock_wall_ns() - s->doc->started_at_unix_ns) / 1e9);
	fflush(stderr);
	strbuf_release(&sb);
}

static void look_line(void *ctx, const char *line)
{
	session_log(ctx, "%s", line);
}

/* A line of its own on stderr, above the progress line on a terminal. Names
 * and output come from the suite and the build: one line, no escape
 * sequences of theirs. */
static void lasting_line(const struct session *s, const char *what, const char *line)
{
	char buf[1024];

	err_escape(buf, sizeof(buf), line);
	fprintf(stderr, "%shimorime: %s%s\n", s->progress_tty ? "\r\033[K" : "", what, buf);
	fflush(stderr);
}

/* A build's start, end and signs of life: on a terminal too, since a build
 * can take many minutes. The lines while it runs come from the engine's
 * watch thread while this one waits for the build. */
static void build_line(void *ctx, const char *line)
{
	lasting_line(ctx, "", line);
}

static void warning_line(void *ctx, const char *line)
{
	lasting_line(ctx, "warning: ", line);
}

void session_budget_start(struct session *s)
{
	runner_budget_start(s->runner, s->plan->max_total_time_ns, s->plan->budget_benchmarks);
	s->doc->max_total_time_ns = s->plan->max_total_time_ns;
}

static int check_values(struct session *s, enum results_mode mode)
{
	unsigned long long v;
	struct err err = ERR_INIT;
	enum render_format f;

	if (cli_output_check(&s->out, &f, &err) < 0)
		return cli_usage_error(s->cmd, &err);
	if (s->seed_text) {
		if (opts_uint(s->seed_text, 0, RNG_SEED_MAX, &v) < 0)
			return cli_usagef(s->cmd,
					  "--seed \"%s\": expected an integer from 0 to "
					  "9007199254740991",
					  s->seed_text);
		s->ro.seed = v;
	} else {
		s->ro.seed = rng_fresh_seed();
	}
	if (s->runs_text) {
		if (opts_uint(s->runs_text, 1, 100000, &v) < 0)
			return cli_usagef(s->cmd,
					  "--runs \"%s\": expected an integer from 1 to 100000",
					  s->runs_text);
		s->flags.has_runs = true;
		s->flags.runs = (unsigned)v;
	}
	if (s->warmup_text) {
		if (opts_uint(s->warmup_text, 0, 10000, &v) < 0)
			return cli_usagef(s->cmd,
					  "--warmup \"%s\": expected an integer from 0 to 10000",
					  s->warmup_text);
		s->flags.has_warmup = true;
		s->flags.warmup = (unsigned)v;
	}
	if (s->max_time_text) {
		uint64_t ns;
		if (mode == RESULTS_MODE_RUN)
			return cli_usagef(s->cmd, "--max-time only applies to compare and ci");
		if (units_duration(s->max_time_text, &ns, &err) < 0 || ns == 0)
			return cli_usagef(
				s->cmd,
				"--max-time \"%s\": expected a positive duration such as 10m",
				s->max_time_text);
		s->flags.max_time_ns = ns;
	}
	if (s->max_total_time_text) {
		uint64_t ns;
		if (mode == RESULTS_MODE_RUN)
			return cli_usagef(s->cmd,
					  "--max-total-time only applies to compare and ci");
		if (units_duration(s->max_total_time_text, &ns, &err) < 0 || ns == 0)
			return cli_usagef(
				s->cmd,
				"--max-total-time \"%s\": expected a positive duration such as "
				"20m",
				s->max_total_time_text);
		s->flags.max_total_time_ns = ns;
	}
	if (s->schedule_text) {
		if (schedule_from_name(s->schedule_text, &s->flags.schedule) < 0)
			return cli_usagef(s->cmd, "--schedule \"%s\": expected interleaved or duet",
					  s->schedule_text);
		s->flags.has_schedule = true;
	}
	if (s->fail_on_inconclusive && mode == RESULTS_MODE_RUN)
		return cli_usagef(s->cmd, "--fail-on-inconclusive only applies to compare and ci");
	if (selection_init(&s->sel, s->filter, &s->tags, &s->skip_tags, &err) < 0)
		return cli_usage_error(s->cmd, &err);
	s->flags.harness_command = s->sel.harness_command;
	s->flags.harness_filter = s->sel.harness_filter;
	return EXIT_OK;
}

static void fill_environment(struct results *doc)
{
	struct sysinfo_env env;
	const char *ci = getenv("GITHUB_ACTIONS");

	sysinfo_environment(&env);
	results_set_str(&doc->environment.os, env.os);
	results_set_str(&doc->environment.arch, env.arch);
	results_set_str(&doc->environment.kernel, env.kernel);
	results_set_str(&doc->environment.cpu_model, env.cpu_model[0] ? env.cpu_model : NULL);
	doc->environment.logical_cpus = env.logical_cpus;
	results_set_str(&doc->environment.libc, env.libc[0] ? env.libc : NULL);
#if defined(__clang__)
	results_set_str(&doc->environment.compiler, "clang " __clang_version__);
#elif defined(__GNUC__)
	results_set_str(&doc->environment.compiler, "gcc " __VERSION__);
#endif
	if (ci && !strcmp(ci, "true"))
		results_set_str(&doc->environment.ci, "github_actions");
	else if (getenv("CI"))
		results_set_str(&doc->environment.ci, "unknown");
	results_set_str(&doc->noise.governor, env.governor[0] ? env.governor : NULL);
}

/* The plan's name of a measuring command. */
static enum plan_verb verb_of(const char *cmd)
{
	static const struct {
		const char *name;
		enum plan_verb verb;
	} verbs[] = {
		{ .name = "compare", .verb = PLAN_COMPARE },
		{ .name = "calibrate", .verb = PLAN_CALIBRATE },
		{ .name = "ci", .verb = PLAN_CI },
		{ .name = "sweep", .verb = PLAN_SWEEP },
		{ .name = "bisect", .verb = PLAN_BISECT },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(verbs[i].name, cmd))
			return verbs[i].verb;
	return PLAN_RUN;
}

/* Moves the first n operands to s->leading. */
static int take_leading(struct session *s, size_t n)
{
	struct strlist rest = { .v = NULL, .n = 0, .alloc = 0 };
	size_t i;

	if (s->operands.n < n)
		return cli_usagef(s->cmd, "%s needs a revision range such as main~20..main",
				  s->cmd);
	for (i = 0; i < s->operands.n; i++)
		strlist_push(i < n ? &s->leading : &rest, s->operands.v[i]);
	strlist_release(&s->operands);
	s->operands = rest;
	return EXIT_OK;
}

int session_start(struct session *s, const struct cmd *c, struct cmd_args *a, int argc, char **argv)
{
	struct runner_options ro = RUNNER_OPTIONS_INIT;
	struct plan_flags flags = PLAN_FLAGS_INIT;
	const struct cli_output out = CLI_OUTPUT_INIT;
	struct err err = ERR_INIT;
	enum results_mode mode = c->mode;
	uint64_t loaded;
	int code;

	memset(s, 0, sizeof(*s));
	s->started_ns = clock_monotonic_ns();
	s->out = out;
	s->cmd = c->name;
	s->ro = ro;
	s->flags = flags;
	s->flags.verb = verb_of(c->name);
	if (cli_parse(c, a, s, argc, argv, &s->operands, &err) < 0)
		return cli_usage_error(c->name, &err);
	code = check_values(s, mode);
	if (code == EXIT_OK && c->leading)
		code = take_leading(s, c->leading);
	if (code != EXIT_OK)
		return code;
	loaded = clock_monotonic_ns();
	code = cli_load_suites(&s->operands, &s->suites);
	if (code != EXIT_OK)
		return code;
	s->progress_tty = !s->quiet && isatty(STDERR_FILENO);
	s->spawner_path = spawner_beside_self();
	s->flags.spawner = s->spawner_path;
	s->doc = results_new(mode);
	s->doc->timings.present = true;
	session_phase(s, RESULTS_PHASE_LOAD, loaded);
	s->doc->seed = s->ro.seed;
	s->doc->started_at_unix_ns = clock_wall_ns();
	fill_environment(s->doc);
	return EXIT_OK;
}

bool session_selected(const struct session *s, size_t i, bool *selected)
{
	return session_selected_in(s, s->suites.v[i], selected);
}

bool session_selected_in(const struct session *s, const struct suite *suite, bool *selected)
{
	bool any = false;
	size_t k;

	for (k = 0; k < suite->benchmark_count; k++) {
		const struct benchmark *b = &suite->benchmarks[k];
		selected[k] = selection_keeps(&s->sel, b);
		any |= selected[k];
	}
	return any;
}

void session_not_started(struct session *s, size_t from)
{
	size_t i;

	for (i = from; i < s->plan->n_suites; i++)
		if (s->plan->suites[i].n_selected)
			runner_not_started(&s->plan->suites[i], s->doc);
}

bool **session_selection(const struct session *s)
{
	bool **selected = xcalloc(s->suites.count + 1, sizeof(*selected));
	size_t i;

	for (i = 0; i < s->suites.count; i++) {
		selected[i] = xcalloc(s->suites.v[i]->benchmark_count + 1, sizeof(bool));
		session_selected(s, i, selected[i]);
	}
	return selected;
}

void session_selection_free(bool **selected, size_t n)
{
	size_t i;

	for (i = 0; selected && i < n; i++)
		free(selected[i]);
	free(selected);
}

int session_select_check(const struct session *s, bool **selected)
{
	size_t i, k;

	for (i = 0; i < s->suites.count; i++)
		for (k = 0; k < s->suites.v[i]->benchmark_count; k++)
			if (selected[i][k])
				return EXIT_OK;
	cli_error(HMR_USAGE, "no benchmark matches the selection");
	fprintf(stderr, "  hint: check --filter, --tag and --skip-tag against 'himorime list'\n");
	return cli_exit(EXIT_USAGE, "empty selection");
}

/* Prints the plan's problems: each at its suite position, or the one of
 * --runs; returns the exit code. */
static int print_problems(const struct session *s, const struct plan_problems *pr,
			  const char *const *where)
{
	size_t i;

	for (i = 0; i < pr->n; i++) {
		const struct plan_problem *p = &pr->v[i];
		if (p->flag) {
			cli_error(HMR_USAGE, "%s", p->text);
			return cli_exit(EXIT_USAGE, "invalid command line");
		}
		fprintf(stderr, "%s:%u:%u: %s%s\n", s->suites.v[p->input]->path, p->line, p->column,
			p->text, where && where[p->input] ? where[p->input] : "");
	}
	return cli_exit(EXIT_CONFIG, "%zu problem%s in the comparison settings", pr->n,
			pr->n == 1 ? "" : "s");
}

int session_plan_inputs(struct session *s, const struct plan_input *in, const char *const *where)
{
	struct plan_problems pr = PLAN_PROBLEMS_INIT;
	int code = EXIT_OK;

	if (plan_build(&s->flags, in, s->suites.count, &s->plan, &pr) < 0)
		code = print_problems(s, &pr, where);
	plan_problems_release(&pr);
	return code;
}

int session_plan(struct session *s, bool **selected, const bool *skip)
{
	struct plan_input *in = xcalloc(s->suites.count + 1, sizeof(*in));
	size_t i;
	int code;

	for (i = 0; i < s->suites.count; i++) {
		in[i].suite = s->suites.v[i];
		in[i].selected = selected[i];
		in[i].compared = s->flags.verb != PLAN_RUN && !(skip && skip[i]);
	}
	code = session_plan_inputs(s, in, NULL);
	free(in);
	return code;
}

bool session_builds(const struct session *s, size_t i, bool **selected)
{
	size_t k;

	if (!s->suites.v[i]->has_build)
		return false;
	for (k = 0; k < s->suites.v[i]->benchmark_count; k++)
		if (selected[i][k])
			return true;
	return false;
}

/* The lock file of the tree holding dir, and the tree's name for messages. */
static char *lock_path(const char *dir, char **tree)
{
	struct vcs *vcs = NULL;
	struct err err = ERR_INIT;
	char *path = NULL;

	if (vcs_may_be_in_work_tree(dir) && vcs_open(dir, &vcs, &err) == 0 && vcs_workdir(vcs)) {
		path = xasprintf("%shimorime.lock", vcs_git_dir(vcs));
		*tree = xstrdup(vcs_workdir(vcs));
	}
	vcs_free(vcs);
	if (path)
		return path;
	*tree = xstrdup(dir);
	return xasprintf("%s/.himorime.lock", dir);
}

int session_lock_tree(struct session *s, const char *dir)
{
	struct treelock l = TREELOCK_INIT;
	struct err err = ERR_INIT;
	char *tree = NULL, *path = lock_path(dir, &tree);
	size_t i;
	int code = EXIT_OK;

	for (i = 0; i < s->n_locks; i++)
		if (!strcmp(s->locks[i].path, path))
			goto done;
	if (treelock_take(&l, path, tree, &err) == 0) {
		s->locks = xrealloc(s->locks, (s->n_locks + 1) * sizeof(*s->locks));
		s->locks[s->n_locks++] = l;
	} else if (l.busy) {
		cli_error(HMR_EXEC, "%s", err.msg);
		fprintf(stderr, "  hint: two runs on one tree build over each other: wait for that "
				"one to end, or measure a copy of the tree (git worktree add)\n");
		code = cli_exit(EXIT_EXEC, "the working tree is in use");
	} else {
		fprintf(stderr,
			"himorime: warning: %s: another himorime could build in \"%s\" at the "
			"same time\n",
			err.msg, tree);
	}
done:
	free(path);
	free(tree);
	return code;
}

int session_runner(struct session *s, const char *const *hidden, size_t n_hidden)
{
	struct err err = ERR_INIT;
	const char *fallback;
	uint64_t t = clock_monotonic_ns();
	size_t swept;

	/* What a killed run left behind (its pid is in the names). */
	fsio_sweep_stale("himorime-run-", &swept, &err);
	fsio_sweep_stale("himorime-build-", &swept, &err);
	s->ro.hidden_env = hidden;
	s->ro.hidden_env_count = n_hidden;
	if (s->progress_tty)
		s->ro.progress = progress_line;
	s->ro.look_line = look_line;
	if (!s->quiet) {
		s->ro.build_line = build_line;
		/* a log has no progress line: the build's last output instead */
		s->ro.build_tick_ns = s->progress_tty ? 0 : SESSION_BUILD_TICK_NS;
	}
	s->ro.warning = warning_line;
	s->ro.progress_ctx = s;
	if (runner_new(&s->ro, s->plan, &s->runner, &err) < 0)
		return cli_fail(&err);
	fallback = runner_fallback_reason(s->runner);
	if (fallback)
		fprintf(stderr,
			"himorime: warning: the spawner could not start (%s): commands are started "
			"from himorime itself and the peak RSS floor is higher\n",
			fallback);
	signal_target = s->runner;
	install_signals();
	session_phase(s, RESULTS_PHASE_SETUP, t);
	return EXIT_OK;
}

/* Creates the directories leading to `path` (report.outputs paths are
 * checked at load time to stay inside the suite's directory). */
static void make_parents(const char *path)
{
	char *p = xstrdup(path);
	char *slash;

	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0777);
		*slash = '/';
	}
	free(p);
}

/* Whether `path` is the same file as `other` (both existing). */
static bool same_file(const struct stat *st, const char *other)
{
	struct stat o;

	return stat(other, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* Whether `path` names the suite file or a stdin file of its benchmarks. */
static bool is_suite_input(const struct suite *suite, const struct stat *st)
{
	size_t k;
	bool found = same_file(st, suite->path);

	for (k = 0; !found && k < suite->benchmark_count; k++) {
		const struct stdin_spec *in = &suite->benchmarks[k].stdin_spec;
		char *p;

		if (in->kind != STDIN_FILE || strstr(in->value, "${"))
			continue;
		p = xasprintf("%s/%s", suite->dir, in->value);
		found = same_file(st, p);
		free(p);
	}
	return found;
}

/* An output is checked when it is written, not only as text at load time:
 * its directory, symbolic links followed, must lie inside the suite's
 * directory, and the file must be neither a link nor an input of the suite. */
static int check_output_target(const struct suite *suite, const char *path, struct err *err)
{
	char root[PATH_MAX], parent[PATH_MAX];
	char *dir = xstrdup(path);
	struct stat st;
	size_t n;
	int rc = 0;

	*strrchr(dir, '/') = '\0';
	/* The nearest existing directory: what is missing is created inside it. */
	while (!realpath(dir, parent) && errno == ENOENT && strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (!realpath(suite->dir, root) || !realpath(dir, parent)) {
		rc = err_set(err, ERR_EXEC,
			     "report.outputs \"%s\": cannot resolve its directory: %s", path,
			     strerror(errno));
		goto done;
	}
	n = strlen(root);
	if (strncmp(parent, root, n) || (parent[n] != '/' && parent[n] != '\0')) {
		rc = err_set(err, ERR_EXEC,
			     "report.outputs \"%s\": its directory is \"%s\", outside the suite's "
			     "directory \"%s\"",
			     path, parent, root);
		goto done;
	}
	if (lstat(path, &st) < 0)
		goto done;
	if (!S_ISREG(st.st_mode))
		rc = err_set(err, ERR_EXEC, "report.outputs \"%s\": not a regular file (%s)", path,
			     fsio_kind_name(st.st_mode));
	else if (is_suite_input(suite, &st))
		rc = err_set(err, ERR_EXEC,
			     "report.outputs \"%s\": is an input of the suite (the suite file or "
			     "a stdin file)",
			     path);
done:
	free(dir);
	return rc;
}

/* report.outputs of every suite, relative to the suite file. */
static int write_suite_outputs(struct session *s, struct err *err)
{
	size_t i, j;

	for (i = 0; i < s->suites.count; i++) {
		const struct suite *suite = s->suites.v[i];
		for (j = 0; j < suite->output_count; j++) {
			const struct report_output *o = &suite->outputs[j];
			struct cli_output out = CLI_OUTPUT_INIT;
			char *path = xasprintf("%s/%s", suite->dir, o->path);
			int rc;
			out.format = report_format_name(o->format);
			out.output = path;
			out.section = o->section;
			rc = check_output_target(suite, path, err);
			if (rc == 0) {
				make_parents(path);
				rc = cli_output_write(s->doc, &out, err);
			}
			free(path);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

int cli_summarize(struct results *doc, bool fail_on_inconclusive)
{
	switch (runner_summarize(doc, fail_on_inconclusive)) {
	case OUTCOME_OK:
		doc->summary.exit_code = EXIT_OK;
		break;
	case OUTCOME_FAILED:
		doc->summary.exit_code = EXIT_FAILED;
		break;
	case OUTCOME_METRIC_FAILED:
		doc->summary.exit_code = EXIT_METRIC;
		break;
	case OUTCOME_NOT_RUN:
		doc->summary.exit_code = EXIT_EXEC;
		break;
	}
	return doc->summary.exit_code;
}

/* Renders and writes the report and the suites' report.outputs. The
 * document's timings end where its rendering begins: a document cannot hold
 * the time spent writing it (docs/reports.md#timings). */
static int write_outputs(struct session *s, struct err *err)
{
	uint64_t t = clock_monotonic_ns();
	int rc;

	session_timings_total(s);
	rc = cli_output_write(s->doc, &s->out, err);
	if (rc == 0)
		rc = write_suite_outputs(s, err);
	session_phase(s, RESULTS_PHASE_RENDERING, t);
	return rc;
}

int session_verdicts(struct session *s)
{
	uint64_t t;
	int code;

	if (s->progress_tty)
		fputs("\r\033[K", stderr);
	s->doc->finished_at_unix_ns = clock_wall_ns();
	t = clock_monotonic_ns();
	code = cli_summarize(s->doc, s->fail_on_inconclusive);
	session_phase(s, RESULTS_PHASE_JUDGING, t);
	return code;
}

int session_write(struct session *s)
{
	struct err err = ERR_INIT;

	if (write_outputs(s, &err) < 0) {
		cli_error(HMR_UNWRITTEN, "%s", err.msg);
		s->doc->summary.exit_code = EXIT_EXEC;
		return cli_exit(EXIT_EXEC, "the report could not be written");
	}
	return EXIT_OK;
}

int session_conclude(struct session *s, int code)
{
	struct strbuf why;

	session_print_timings(s);
	if (code == EXIT_OK)
		return EXIT_OK;
	strbuf_init(&why, 0);
	runner_exit_reason(s->doc, &why);
	code = cli_exit(code, "%s", why.buf);
	strbuf_release(&why);
	return code;
}

int session_finish(struct session *s)
{
	int code = session_verdicts(s);
	int written = session_write(s);

	return written == EXIT_OK ? session_conclude(s, code) : written;
}

void session_release(struct session *s)
{
	size_t i;

	signal_target = NULL;
	runner_free(s->runner);
	plan_free(s->plan);
	/* after the runner: nothing of this session builds or runs any more */
	for (i = 0; i < s->n_locks; i++)
		treelock_release(&s->locks[i]);
	free(s->locks);
	results_free(s->doc);
	cli_suites_release(&s->suites);
	strlist_release(&s->tags);
	strlist_release(&s->skip_tags);
	strlist_release(&s->operands);
	strlist_release(&s->leading);
	selection_release(&s->sel);
	free(s->spawner_path);
}
