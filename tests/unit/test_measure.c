/*
 * Tests of measuring a run, with real processes: the spawner (built next to
 * the test binary's build directory) and the in-process fallback, driven
 * through the public API. The helper programs in tests/helpers/ build the
 * process trees, allocations, orphans and terminal readers the checks need.
 * Tests that take a mode run twice: through the spawner and in-process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "measure/measure.h"
#include "spawner/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB	   (1024u * 1024u)
#define MS	   1000000ull
#define SPAWNER	   (&modes[0])
#define IN_PROCESS (&modes[1])

static bool modes[2] = { true, false };
static char build_dir[PATH_MAX];   /* build/ or build-san/ */
static char helpers_dir[PATH_MAX]; /* build/tests/helpers */
static struct measurer *alarm_target;

static void find_build_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (build_dir[0])
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* exe is <build>/tests/test_measure */
	snprintf(helpers_dir, sizeof(helpers_dir), "%s/helpers", dirname(exe));
	snprintf(build_dir, sizeof(build_dir), "%s", dirname(exe));
}

static char *helper(const char *name)
{
	find_build_dir();
	return xasprintf("%s/%s", helpers_dir, name);
}

static struct measurer *new_measurer(bool use_spawner)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct err err = ERR_INIT;
	struct measurer *m = NULL;
	char *path;

	find_build_dir();
	path = xasprintf("%s/himorime-spawner", build_dir);
	o.spawner_path = path;
	o.use_spawner = use_spawner;
	assert_int_equal(measurer_new(&o, &m, &err), 0);
	free(path);
	assert_int_equal(measurer_uses_spawner(m), use_spawner);
	if (use_spawner)
		assert_null(measurer_fallback_reason(m));
	return m;
}

static bool mode_of(void **state)
{
	return *(bool *)*state;
}

static void run_ok(struct measurer *m, const struct run_request *req, struct run_result *res)
{
	struct err err = ERR_INIT;

	assert_int_equal(measurer_run(m, req, 1, res, &err), 1);
}

static char *read_text(const char *path)
{
	struct err err = ERR_INIT;
	char *text = NULL;
	size_t len;

	assert_int_equal(fsio_read_file(path, 1 << 20, &text, &len, &err), 0);
	return text;
}

static char *describe(const struct run_request *req, const struct run_result *res)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	run_result_describe(req, res, &sb);
	return strbuf_detach(&sb, NULL);
}

static char *make_tmpdir(void)
{
	struct err err = ERR_INIT;
	char *dir = NULL;

	assert_int_equal(fsio_mkdtemp("himorime-test-measure-", &dir, &err), 0);
	return dir;
}

static void remove_tmpdir(char *dir)
{
	struct err err = ERR_INIT;

	assert_int_equal(fsio_remove_tree(dir, &err), 0);
	free(dir);
}

/* Whether a pid names a live process (zombies included). */
static bool alive(int pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

static void read_pids(const char *path, int pids[5])
{
	char *text = read_text(path);

	assert_int_equal(
		sscanf(text, "%d %d %d %d %d", &pids[0], &pids[1], &pids[2], &pids[3], &pids[4]),
		5);
	free(text);
}

static void test_measure__exit_codes_and_signals(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *exit3[] = { probe, "exit", "3", NULL };
	char *sig[] = { probe, "signal", "15", NULL };
	struct run_request req = { .argv = exit3 };
	struct run_result res;
	char *text;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 3);
	assert_true(res.wall_ns > 0);
	text = describe(&req, &res);
	assert_string_equal(text, "exited with code 3");
	free(text);

	req.argv = sig;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_SIGNALED);
	assert_int_equal(res.code, SIGTERM);
	text = describe(&req, &res);
	assert_string_equal(text, "killed by signal 15 (SIGTERM)");
	free(text);
	free(probe);
	measurer_free(m);
}

static void test_measure__start_failures_are_reported(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *plain = xasprintf("%s/not-executable", dir);
	char *missing[] = { "/nonexistent/himorime-program", NULL };
	char *unknown[] = { "himorime-no-such-program", NULL };
	char *noexec[] = { plain, NULL };
	struct run_request req = { .argv = missing };
	struct run_result res;
	char *text;
	FILE *f;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	assert_int_equal(res.step, STEP_EXEC);
	assert_int_equal(res.code, ENOENT);
	text = describe(&req, &res);
	assert_string_equal(text,
			    "could not execute \"/nonexistent/himorime-program\": no such file or "
			    "directory");
	free(text);

	req.argv = unknown;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	assert_int_equal(res.step, STEP_LOOKUP);
	text = describe(&req, &res);
	assert_string_equal(text, "could not start \"himorime-no-such-program\": not found in the "
				  "command's PATH");
	free(text);

	f = fopen(plain, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	chmod(plain, 0644);
	req.argv = noexec;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	if (geteuid() != 0 || res.step == STEP_EXEC) {
		assert_int_equal(res.step, STEP_EXEC);
		assert_int_equal(res.code, EACCES);
		text = describe(&req, &res);
		assert_true(strstr(text, "\": permission denied") != NULL);
		free(text);
	}
	free(plain);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void test_measure__path_lookup_uses_the_childs_path(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *probe = helper("probe");
	char *link = xasprintf("%s/himorime-probe", dir);
	char *path_env = xasprintf("PATH=/nonexistent:%s", dir);
	char *env[] = { path_env, NULL };
	char *other_env[] = { "PATH=/nonexistent", NULL };
	char *argv[] = { "himorime-probe", "exit", "5", NULL };
	struct run_request req = { .argv = argv, .envp = env };
	struct run_result res;

	assert_int_equal(symlink(probe, link), 0);
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 5);

	req.envp = other_env;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	assert_int_equal(res.step, STEP_LOOKUP);
	assert_int_equal(res.code, ENOENT);
	free(path_env);
	free(link);
	free(probe);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void test_measure__relative_program_and_cwd(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *out = xasprintf("%s/out", dir);
	char *argv[] = { "./probe", "pwd", NULL };
	struct run_request req = { .argv = argv, .stdout_path = out };
	struct run_result res;
	char *text, *want;

	find_build_dir();
	req.cwd = helpers_dir;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	text = read_text(out);
	want = xasprintf("%s\n", helpers_dir);
	assert_string_equal(text, want);
	free(want);
	free(text);

	req.cwd = "/nonexistent-dir";
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	free(out);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void test_measure__streams(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *in = xasprintf("%s/in", dir), *out = xasprintf("%s/out", dir);
	char *errp = xasprintf("%s/err", dir);
	char *probe = helper("probe");
	char *cat[] = { probe, "cat", NULL };
	char *first[] = { probe, "echo", "first run", NULL };
	char *second[] = { probe, "echo", "second", NULL };
	char *oops[] = { probe, "stderr", "oops", NULL };
	char *null0[] = { probe, "devnull", "0", NULL };
	char *null1[] = { probe, "devnull", "1", NULL };
	struct run_request req = { .argv = cat, .stdin_path = in, .stdout_path = out };
	struct run_result res;
	struct err err = ERR_INIT;
	char *text;
	int i;

	assert_int_equal(fsio_write_atomic(in, "hello\n", 6, &err), 0);
	for (i = 0; i < 2; i++) { /* reopened per run: the second run reads it all again */
		run_ok(m, &req, &res);
		assert_int_equal(res.status, RUN_EXITED);
		text = read_text(out);
		assert_string_equal(text, "hello\n");
		free(text);
	}
	req.stdin_path = NULL;
	req.argv = first;
	run_ok(m, &req, &res);
	req.argv = second;
	run_ok(m, &req, &res);
	text = read_text(out); /* truncated per run: the latest output only */
	assert_string_equal(text, "second\n");
	free(text);

	req.argv = oops;
	req.stderr_path = errp;
	run_ok(m, &req, &res);
	text = read_text(errp);
	assert_string_equal(text, "oops\n");
	free(text);

	req.stdout_path = NULL; /* discarded, and no stdin: both /dev/null */
	req.argv = null0;
	run_ok(m, &req, &res);
	assert_int_equal(res.code, 0);
	req.argv = null1;
	run_ok(m, &req, &res);
	assert_int_equal(res.code, 0);

	req.stdin_path = "/nonexistent/in";
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_START_FAILED);
	assert_int_equal(res.step, STEP_STDIN);
	text = describe(&req, &res);
	assert_string_equal(text,
			    "could not open stdin \"/nonexistent/in\": no such file or directory");
	free(text);
	free(in);
	free(out);
	free(errp);
	free(probe);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* The command starts with every signal unblocked and at its default, whatever
 * the starter catches, ignores or blocks: the child resets only what is not
 * the default (docs/performance.md, "Starting a tiny static program"). */
static void test_measure__child_starts_with_default_signals(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *out = xasprintf("%s/out", dir);
	char *probe = helper("probe");
	char *argv[] = { probe, "signals", NULL };
	struct run_request req = { .argv = argv, .stdout_path = out };
	struct sigaction sa, old_usr1, old_usr2;
	sigset_t block, old_mask;
	struct run_result res;
	char *text;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, &old_usr1);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, &old_usr2);
	sigemptyset(&block);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	run_ok(m, &req, &res);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGUSR2, &old_usr2, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	text = read_text(out);
	assert_string_equal(text, "SigBlk:\t0000000000000000\n"
				  "SigIgn:\t0000000000000000\n"
				  "SigCgt:\t0000000000000000\n");
	free(text);
	free(out);
	free(probe);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* This process's Cpus_allowed_list line. */
static char *own_cpus_line(void)
{
	char *text = read_text("/proc/self/status");
	char *at = strstr(text, "Cpus_allowed_list:");
	char *line;

	assert_non_null(at);
	line = xasprintf("%.*s", (int)(strchr(at, '\n') + 1 - at), at);
	free(text);
	return line;
}

/* The spawner keeps itself on one CPU (when it may use more), but the command
 * may use every CPU himorime may: docs/performance.md, "The third process".
 * In-process the starter is this process, left as it is. */
static void test_measure__child_may_use_every_cpu(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *out = xasprintf("%s/out", dir);
	char *probe = helper("probe");
	char *argv[] = { probe, "cpus", NULL };
	struct run_request req = { .argv = argv, .stdout_path = out };
	struct run_result res;
	char *own = own_cpus_line(), *text, *starter, *expected;
	cpu_set_t cpus;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	text = read_text(out);
	starter = strchr(text, '\n') + 1;
	assert_int_equal(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	if (mode_of(state) && CPU_COUNT(&cpus) > 1) {
		/* One CPU: a number alone. */
		assert_int_equal(strspn(starter + strlen("Cpus_allowed_list:\t"), "0123456789"),
				 strlen(starter) - strlen("Cpus_allowed_list:\t") - 1);
		expected = xasprintf("%s%s", own, starter);
	} else {
		expected = xasprintf("%s%s", own, own);
	}
	assert_string_equal(text, expected);
	free(expected);
	free(text);
	free(own);
	free(out);
	free(probe);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void assert_tree_gone(const char *pidfile, bool use_spawner)
{
	int pids[5], i;

	read_pids(pidfile, pids);
	for (i = 0; i < 4; i++)
		assert_false(alive(pids[i]));
	/* The starter is the spawner, or this process in-process. */
	if (use_spawner)
		assert_int_not_equal(pids[4], getpid());
	else
		assert_int_equal(pids[4], getpid());
}

static void test_measure__timeout_kills_the_whole_tree(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *pidfile = xasprintf("%s/pids", dir);
	char *tree = helper("tree");
	char *argv[] = { tree, pidfile, "wait", NULL };
	/* long enough for the tree to be built and its pids written on a
	 * loaded machine (0.4 s once was not, at load 14) */
	struct run_request req = { .argv = argv, .timeout_ns = 1500 * MS };
	struct run_result res;
	char *text;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_TIMED_OUT);
	assert_true(res.wall_ns >= 1500 * MS);
	text = describe(&req, &res);
	assert_string_equal(text, "timed out after 1.5s");
	free(text);
	assert_tree_gone(pidfile, mode_of(state));
	free(tree);
	free(pidfile);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void test_measure__exit_kills_what_is_left(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *pidfile = xasprintf("%s/pids", dir);
	char *tree = helper("tree");
	char *argv[] = { tree, pidfile, "exit", NULL };
	struct run_request req = { .argv = argv, .timeout_ns = 10000 * MS };
	struct run_result res;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	assert_true(res.wall_ns < 5000 * MS);
	assert_tree_gone(pidfile, mode_of(state));
	free(tree);
	free(pidfile);
	remove_tmpdir(dir);
	measurer_free(m);
}

static void test_measure__orphan_cpu_is_counted(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *prog = helper("orphan_cpu");
	char *argv[] = { prog, NULL };
	struct run_request req = { .argv = argv, .timeout_ns = 20000 * MS };
	struct run_result res;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	print_message("orphan_cpu: user %.1f ms, system %.1f ms\n", (double)res.user_ns / 1e6,
		      (double)res.system_ns / 1e6);
	assert_true(res.user_ns >= 150 * MS);
	free(prog);
	measurer_free(m);
}

static void test_measure__peak_rss_and_floor(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *alloc = helper("alloc"), *noop = helper("noop_static");
	char *big[] = { alloc, "50", NULL };
	char *truth[] = { "/bin/true", NULL };
	char *tiny[] = { noop, NULL };
	struct run_request req = { .argv = big };
	struct run_result res, t, s;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	assert_true(res.peak_rss_bytes >= 50ull * MIB);
	assert_true(res.peak_rss_bytes > res.floor_bytes);

	req.argv = truth;
	run_ok(m, &req, &t);
	assert_int_equal(t.status, RUN_EXITED);
	req.argv = tiny;
	run_ok(m, &req, &s);
	assert_int_equal(s.status, RUN_EXITED);
	print_message("%s: 50 MiB alloc peak %.2f MiB; /bin/true peak %.2f MiB floor %.2f MiB; "
		      "static no-op peak %.2f MiB floor %.2f MiB\n",
		      mode_of(state) ? "spawner" : "in-process", (double)res.peak_rss_bytes / MIB,
		      (double)t.peak_rss_bytes / MIB, (double)t.floor_bytes / MIB,
		      (double)s.peak_rss_bytes / MIB, (double)s.floor_bytes / MIB);
	/* /bin/true sits at or near the floor; the 50 MiB run is far above. */
	assert_true(t.peak_rss_bytes <= t.floor_bytes + MIB);
	assert_true(s.peak_rss_bytes <= s.floor_bytes);
	if (mode_of(state)) {
		/* The spawner is never sanitized: its floor is tiny in every build,
		 * while in-process figures carry this (maybe sanitized) process. */
		assert_true(res.peak_rss_bytes > t.peak_rss_bytes + 40ull * MIB);
		assert_true(t.floor_bytes < 2ull * MIB);
		assert_true(s.floor_bytes < 2ull * MIB);
	}
	free(alloc);
	free(noop);
	measurer_free(m);
}

static void on_alarm(int sig)
{
	(void)sig;
	measurer_cancel(alarm_target);
}

static void test_measure__cancel_from_a_signal_handler(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *argv[] = { probe, "sleep", NULL };
	char *exit4[] = { probe, "exit", "4", NULL };
	struct run_request req = { .argv = argv };
	struct itimerval tv = { .it_value = { .tv_sec = 0, .tv_usec = 200000 } };
	struct sigaction sa, old;
	struct run_result res;

	alarm_target = m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &tv, NULL);
	run_ok(m, &req, &res);
	sigaction(SIGALRM, &old, NULL);
	assert_int_equal(res.status, RUN_INTERRUPTED);
	assert_true(res.wall_ns >= 150 * MS);

	/* A late cancel names the finished run: the next run is not hit. */
	measurer_cancel(m);
	req.argv = exit4;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 4);
	free(probe);
	measurer_free(m);
}

/* A batch runs one request again and again (spawner/run.h): a result per
 * run, in order; it ends after the first run that does not exit with code
 * 0, and nothing starts after it; a cancel ends it; its length is
 * bounded. */
static void test_measure__a_batch_ends_at_a_failure_or_a_cancel(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *count = xasprintf("%s/count", dir), *text;
	char *argv[] = { "/bin/sh",
			 "-c",
			 "n=$(cat \"$1\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$1\"; "
			 "test $n -ne 3 && test $n -ne 11 || exit $n",
			 "sh",
			 count,
			 NULL };
	char *sleeper[] = { "/bin/sh", "-c",  "echo started >> \"$1\"; exec sleep 10",
			    "sh",      count, NULL };
	struct run_request req = { .argv = argv };
	struct itimerval tv = { .it_value = { .tv_sec = 0, .tv_usec = 200000 } };
	struct run_result res[RUN_MAX_BATCH + 1];
	struct err err = ERR_INIT;
	struct sigaction sa, old;
	int i;

	assert_int_equal(measurer_run(m, &req, 10, res, &err), 3);
	for (i = 0; i < 2; i++) {
		assert_int_equal(res[i].status, RUN_EXITED);
		assert_int_equal(res[i].code, 0);
		assert_true(res[i].wall_ns > 0);
	}
	assert_int_equal(res[2].status, RUN_EXITED);
	assert_int_equal(res[2].code, 3);
	text = read_text(count);
	assert_string_equal(text, "3\n");
	free(text);
	/* The next batch goes on from there: runs 4 to 10 all pass. */
	assert_int_equal(measurer_run(m, &req, 7, res, &err), 7);
	assert_int_equal(res[6].code, 0);
	/* The longest batch, cut short at run 11. */
	assert_int_equal(measurer_run(m, &req, RUN_MAX_BATCH, res, &err), 1);
	assert_int_equal(res[0].code, 11);
	text = read_text(count);
	assert_string_equal(text, "11\n");
	free(text);

	/* A cancel ends the run it meets and the batch with it. */
	unlink(count);
	req.argv = sleeper;
	alarm_target = m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &tv, NULL);
	assert_int_equal(measurer_run(m, &req, 5, res, &err), 1);
	sigaction(SIGALRM, &old, NULL);
	assert_int_equal(res[0].status, RUN_INTERRUPTED);
	text = read_text(count);
	assert_string_equal(text, "started\n");
	free(text);

	assert_int_equal(measurer_run(m, &req, 0, res, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a batch is 1 to 64 runs, not 0");
	assert_int_equal(measurer_run(m, &req, RUN_MAX_BATCH + 1, res, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a batch is 1 to 64 runs, not 65");
	free(count);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* Waits up to 10 s for a child to exit; returns true if it did. */
static bool reaped_within(pid_t pid)
{
	int i, status;

	for (i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_measure__spawner_stops_when_himorime_dies(void **state)
{
	char *dir = make_tmpdir();
	char *pidfile = xasprintf("%s/pids", dir);
	char *tree = helper("tree");
	struct stat st;
	int pids[5], i;
	pid_t side;

	(void)state;
	/* Orphans of the killed side come back here, so that they can be waited for. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	side = fork();
	assert_true(side >= 0);
	if (side == 0) {
		char *argv[] = { tree, pidfile, "wait", NULL };
		struct run_request req = { .argv = argv };
		struct run_result res;
		struct err err = ERR_INIT;
		struct measurer *m = new_measurer(true);

		measurer_run(m, &req, 1, &res, &err);
		_exit(1);
	}
	for (i = 0; i < 1000 && stat(pidfile, &st) != 0; i++)
		usleep(10000);
	assert_int_equal(stat(pidfile, &st), 0);
	read_pids(pidfile, pids);
	assert_true(alive(pids[4]));
	kill(side, SIGKILL);
	assert_true(reaped_within(side));
	/* The spawner, reparented to this process, kills the tree and exits. */
	assert_true(reaped_within(pids[4]));
	for (i = 0; i < 4; i++) {
		assert_false(alive(pids[i]));
	}
	free(tree);
	free(pidfile);
	remove_tmpdir(dir);
}

/* Waits up to 10 s for a tree helper's pid file. */
static void await_pidfile(const char *pidfile)
{
	struct stat st;
	int i;

	for (i = 0; i < 1000 && stat(pidfile, &st) != 0; i++)
		usleep(10000);
	assert_int_equal(stat(pidfile, &st), 0);
}

/* Starts the spawner as himorime does (the request socket on fd 3, the
 * cancel socket on fd 4), reads its HELLO and sends one RUN of the tree
 * helper, or with twin_pidfile a DUET of two; returns its pid, with
 * himorime's ends in req_fd and cancel_fd. */
static pid_t spawner_running_a_tree(const char *pidfile, const char *twin_pidfile, int *req_fd,
				    int *cancel_fd)
{
	char *tree = helper("tree"), *path = xasprintf("%s/himorime-spawner", build_dir);
	char *argv[] = { tree, (char *)pidfile, "wait", NULL };
	char *twin[] = { tree, (char *)twin_pidfile, "wait", NULL };
	struct run_request req = { .argv = argv };
	struct duet_request duet = { .side = { { .argv = argv }, { .argv = twin } } };
	int sv[2], cv[2];
	uint32_t len, hello[2];
	char *payload;
	size_t size;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *sargv[] = { path, NULL };

		if (dup2(sv[1], PROTO_SOCKET_FD) < 0 || dup2(cv[1], PROTO_CANCEL_FD) < 0)
			_exit(126);
		execv(path, sargv);
		_exit(127);
	}
	close(sv[1]);
	close(cv[1]);
	assert_int_equal(proto_recv_header(sv[0], PROTO_HELLO, &len), 0);
	assert_int_equal(len, sizeof(hello));
	assert_int_equal(proto_read_all(sv[0], hello, sizeof(hello)), 0);
	assert_int_equal(hello[1], (uint32_t)pid);
	if (twin_pidfile) {
		assert_int_equal(measurer_duet_cpus(duet.cpu, &(struct err)ERR_INIT), 0);
		assert_int_equal(proto_encode_duet(7, &duet, &payload, &size), 0);
		assert_int_equal(proto_send(sv[0], PROTO_DUET, payload, size), 0);
		await_pidfile(twin_pidfile);
	} else {
		assert_int_equal(proto_encode_run(7, &req, 1, &payload, &size), 0);
		assert_int_equal(proto_send(sv[0], PROTO_RUN, payload, size), 0);
	}
	await_pidfile(pidfile);
	usleep(100000); /* the tree writes its five pids at once; let it finish */
	*req_fd = sv[0];
	*cancel_fd = cv[0];
	free(payload);
	free(path);
	free(tree);
	return pid;
}

/* The spawner waits for a run's end by signals (SIGCHLD, SIGIO on its
 * sockets, SIGTERM): each way of ending a run alone stops it. The client
 * hanging up (no signal sent), and SIGTERM (no hang-up): either kills the
 * tree (both trees of a duet), and the spawner exits 0 without answering
 * more. */
static void test_measure__spawner_stops_a_run_on_hangup_or_sigterm(void **state)
{
	char *dir = make_tmpdir();
	char *pidfile = xasprintf("%s/pids", dir), *twin_pidfile = xasprintf("%s/twin", dir);
	unsigned char out[PROTO_DUET_RESULT_SIZE];
	int pids[5], twin_pids[5], i, way, req_fd, cancel_fd;
	struct duet_result duet;
	struct run_result res;
	uint32_t len, id;
	bool is_duet;
	char byte;
	pid_t pid;

	(void)state;
	find_build_dir();
	for (way = 0; way < 4; way++) {
		is_duet = way >= 2;
		pid = spawner_running_a_tree(pidfile, is_duet ? twin_pidfile : NULL, &req_fd,
					     &cancel_fd);
		read_pids(pidfile, pids);
		if (is_duet)
			read_pids(twin_pidfile, twin_pids);
		assert_true(alive(pids[4]));
		if (way % 2 == 0)
			close(req_fd);
		else
			kill(pid, SIGTERM);
		assert_true(reaped_within(pid) || (kill(pid, SIGKILL), false));
		for (i = 0; i < 5; i++) {
			assert_false(alive(pids[i]));
			assert_false(is_duet && alive(twin_pids[i]));
		}
		if (way == 1) {
			/* The run's result says it was interrupted; then the end. */
			assert_int_equal(proto_recv_header(req_fd, PROTO_RESULT, &len), 0);
			assert_int_equal(len, PROTO_RESULT_SIZE);
			assert_int_equal(proto_read_all(req_fd, out, PROTO_RESULT_SIZE), 0);
			assert_int_equal(proto_decode_result(out, &id, &res), 0);
			assert_int_equal(id, 7);
			assert_int_equal(res.status, RUN_INTERRUPTED);
		} else if (way == 3) {
			assert_int_equal(proto_recv_header(req_fd, PROTO_DUET_RESULT, &len), 0);
			assert_int_equal(len, PROTO_DUET_RESULT_SIZE);
			assert_int_equal(proto_read_all(req_fd, out, sizeof(out)), 0);
			assert_int_equal(proto_decode_duet_result(out, &id, &duet), 0);
			assert_int_equal(id, 7);
			assert_int_equal(duet.side[0].status, RUN_INTERRUPTED);
			assert_int_equal(duet.side[1].status, RUN_INTERRUPTED);
			assert_false(duet.stopped_by_twin[0] || duet.stopped_by_twin[1]);
		}
		if (way % 2 == 1) {
			assert_int_equal(read(req_fd, &byte, 1), 0);
			close(req_fd);
		}
		close(cancel_fd);
		assert_int_equal(unlink(pidfile), 0);
		assert_int_equal(!is_duet || unlink(twin_pidfile) == 0, 1);
	}
	free(pidfile);
	free(twin_pidfile);
	remove_tmpdir(dir);
}

static void test_measure__falls_back_without_a_spawner(void **state)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct err err = ERR_INIT;
	struct measurer *m = NULL;
	char *probe = helper("probe");
	char *argv[] = { probe, "exit", "6", NULL };
	struct run_request req = { .argv = argv };
	struct run_result res;

	(void)state;
	o.spawner_path = "/nonexistent/himorime-spawner";
	assert_int_equal(measurer_new(&o, &m, &err), 0);
	assert_false(measurer_uses_spawner(m));
	assert_string_equal(measurer_fallback_reason(m),
			    "cannot execute \"/nonexistent/himorime-spawner\": no such file or "
			    "directory");
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 6);
	assert_true(res.floor_bytes > MIB);
	free(probe);
	measurer_free(m);
}

static void test_measure__terminal_types_one_key_at_a_time(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *in = xasprintf("%s/keys", dir), *out = xasprintf("%s/screen", dir);
	char *readkey = helper("readkey");
	char *argv[] = { readkey, NULL };
	char *sh[] = { "/bin/sh", "-i", NULL };
	struct run_request req = { .argv = argv,
				   .stdin_path = in,
				   .stdout_path = out,
				   .terminal = true,
				   .timeout_ns = 10000 * MS };
	struct run_result res;
	struct err err = ERR_INIT;
	char *text;

	assert_int_equal(fsio_write_atomic(in, "ab\xc3\xa9q", 5, &err), 0);
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 0);
	text = read_text(out);
	assert_string_equal(text, "size 80x24\r\nkey a\r\nkey b\r\nkey \xc3\xa9\r\nkey q\r\n");
	free(text);

	/* A shell reading lines in canonical mode, made to exit by its input. */
	assert_int_equal(fsio_write_atomic(in, "echo hi\nexit 7\n", 15, &err), 0);
	req.argv = sh;
	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_EXITED);
	assert_int_equal(res.code, 7);
	text = read_text(out);
	assert_true(strstr(text, "hi\r\n") != NULL);
	free(text);
	free(readkey);
	free(in);
	free(out);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* Duets (docs/design.md, "Duet runs"). Each test runs twice, the CPUs
 * swapped, so that each side is once the vfork child and once the twin:
 * which is which depends on the CPU the starter is on. */

static void duet_cpus(int cpu[2])
{
	struct err err = ERR_INIT;

	assert_int_equal(measurer_duet_cpus(cpu, &err), 0);
	assert_true(cpu[0] < cpu[1]);
}

static void duet_ok(struct measurer *m, struct duet_request *d, const int cpu[2], int k,
		    struct duet_result *res)
{
	struct err err = ERR_INIT;

	d->cpu[0] = cpu[k & 1];
	d->cpu[1] = cpu[1 - (k & 1)];
	assert_int_equal(measurer_duet(m, d, res, &err), 0);
}

static char *duet_describe(const struct duet_request *d, const struct duet_result *res, int i)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	duet_result_describe(d, res, i, &sb);
	return strbuf_detach(&sb, NULL);
}

/* Both sides run at once: each one's interval [start_ns, end_ns] (on one
 * clock) overlaps the other's, they started within the skew reported, and
 * both read the same floor. Run one after the other, two 300 ms naps could
 * not overlap. */
static void test_measure__duet_sides_overlap(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *nap[] = { probe, "nap", "300", NULL };
	struct duet_request d = { .side = { { .argv = nap }, { .argv = nap } } };
	struct duet_result res;
	int cpu[2], k, i;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		duet_ok(m, &d, cpu, k, &res);
		for (i = 0; i < 2; i++) {
			assert_int_equal(res.side[i].status, RUN_EXITED);
			assert_int_equal(res.side[i].code, 0);
			assert_false(res.stopped_by_twin[i]);
			assert_true(res.side[i].wall_ns >= 300 * MS);
			assert_int_equal(res.side[i].wall_ns,
					 res.side[i].end_ns - res.side[i].start_ns);
		}
		assert_true(res.side[0].start_ns < res.side[1].end_ns);
		assert_true(res.side[1].start_ns < res.side[0].end_ns);
		assert_int_equal(res.start_skew_ns,
				 (int64_t)(res.side[1].start_ns - res.side[0].start_ns));
		assert_true(res.start_skew_ns > -100 * (int64_t)MS &&
			    res.start_skew_ns < 100 * (int64_t)MS);
		assert_int_equal(res.side[0].floor_bytes, res.side[1].floor_bytes);
		print_message("%s: duet of two 300 ms naps on CPUs %d and %d: start skew %lld ns\n",
			      mode_of(state) ? "spawner" : "in-process", d.cpu[0], d.cpu[1],
			      (long long)res.start_skew_ns);
	}
	free(probe);
	measurer_free(m);
}

/* Each side runs alone on the CPU the request gave it, and the CPU time of
 * each tree is its own: 300 ms and 100 ms of CPU burnt, read apart. */
static void test_measure__duet_pins_each_side_and_counts_its_cpu(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *out[2] = { xasprintf("%s/out0", dir), xasprintf("%s/out1", dir) };
	char *probe = helper("probe");
	char *long_burn[] = { probe, "burn", "300", NULL };
	char *short_burn[] = { probe, "burn", "100", NULL };
	struct duet_request d = { .side = { { .argv = long_burn, .stdout_path = out[0] },
					    { .argv = short_burn, .stdout_path = out[1] } } };
	struct duet_result res;
	int cpu[2], k, i;
	char *text, *want;
	uint64_t cpu_ns;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		duet_ok(m, &d, cpu, k, &res);
		for (i = 0; i < 2; i++) {
			assert_int_equal(res.side[i].status, RUN_EXITED);
			assert_int_equal(res.side[i].code, 0);
			text = read_text(out[i]);
			want = xasprintf("cpu %d\nCpus_allowed_list:\t%d\n", d.cpu[i], d.cpu[i]);
			assert_string_equal(text, want);
			free(want);
			free(text);
			cpu_ns = res.side[i].user_ns + res.side[i].system_ns;
			assert_true(cpu_ns >= (i ? 100 : 300) * MS);
			assert_true(cpu_ns < (i ? 180 : 380) * MS);
			print_message("%s: side %d on CPU %d: cpu %.1f ms, wall %.1f ms\n",
				      mode_of(state) ? "spawner" : "in-process", i, d.cpu[i],
				      (double)cpu_ns / 1e6, (double)res.side[i].wall_ns / 1e6);
		}
	}
	free(out[0]);
	free(out[1]);
	free(probe);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* A timeout of one side stops both trees; the twin says why it stopped. */
static void test_measure__duet_timeout_stops_both(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *pidfile[2] = { xasprintf("%s/pids0", dir), xasprintf("%s/pids1", dir) };
	char *tree = helper("tree");
	char *argv0[] = { tree, pidfile[0], "wait", NULL };
	char *argv1[] = { tree, pidfile[1], "wait", NULL };
	struct duet_request d = { .side = { { .argv = argv0, .timeout_ns = 500 * MS },
					    { .argv = argv1, .timeout_ns = 20000 * MS } } };
	struct duet_result res;
	int cpu[2], k, i;
	char *text;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_TIMED_OUT);
		assert_false(res.stopped_by_twin[0]);
		assert_int_equal(res.side[1].status, RUN_INTERRUPTED);
		assert_true(res.stopped_by_twin[1]);
		assert_true(res.side[0].wall_ns >= 500 * MS);
		assert_true(res.side[1].wall_ns < 10000 * MS);
		text = duet_describe(&d, &res, 0);
		assert_string_equal(text, "timed out after 0.5s");
		free(text);
		text = duet_describe(&d, &res, 1);
		assert_string_equal(text, "stopped: the other side timed out after 0.5s");
		free(text);
		for (i = 0; i < 2; i++) {
			assert_tree_gone(pidfile[i], mode_of(state));
			assert_int_equal(unlink(pidfile[i]), 0);
		}
	}
	free(pidfile[0]);
	free(pidfile[1]);
	free(tree);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* A side that crashes ends alone: its twin runs to its own end. */
static void test_measure__duet_crash_ends_one_side(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *crash[] = { probe, "signal", "11", NULL };
	char *nap[] = { probe, "nap", "200", NULL };
	struct duet_request d = { .side = { { .argv = crash }, { .argv = nap } } };
	struct duet_result res;
	int cpu[2], k;
	char *text;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_SIGNALED);
		assert_int_equal(res.side[0].code, SIGSEGV);
		assert_int_equal(res.side[1].status, RUN_EXITED);
		assert_int_equal(res.side[1].code, 0);
		assert_false(res.stopped_by_twin[0] || res.stopped_by_twin[1]);
		assert_true(res.side[1].wall_ns >= 200 * MS);
		assert_true(res.side[0].end_ns < res.side[1].end_ns);
		text = duet_describe(&d, &res, 0);
		assert_string_equal(text, "killed by signal 11 (SIGSEGV)");
		free(text);
	}
	free(probe);
	measurer_free(m);
}

/* Two sides that end at once may raise one SIGCHLD between them: the wait
 * must still see the second exit. Fifty duets of two static no-ops (they
 * end microseconds apart); a hang would end at the timer's cancel, as an
 * interruption. */
static void test_measure__duet_of_two_quick_exits(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *noop = helper("noop_static");
	char *argv[] = { noop, NULL };
	struct duet_request d = { .side = { { .argv = argv }, { .argv = argv } } };
	struct itimerval tv = { .it_value = { .tv_sec = 30, .tv_usec = 0 } };
	struct itimerval off = { .it_value = { 0, 0 } };
	struct sigaction sa, old;
	struct duet_result res;
	int cpu[2], k;

	duet_cpus(cpu);
	alarm_target = m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &tv, NULL);
	for (k = 0; k < 50; k++) {
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_EXITED);
		assert_int_equal(res.side[1].status, RUN_EXITED);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	free(noop);
	measurer_free(m);
}

/* Two sides that have both exited when the starter wakes end at one time:
 * ending them one after the other dated the second (always head, side 1,
 * looked at second) later by the first's reap, some 25 us, so that an A/A
 * duet leaned to head slower (docs/comparison.md). Two quick identical
 * commands both exit before the wake-up in many pairs; with the old code no
 * pair could have equal ends (two clock reads around a reap). */
static void test_measure__duet_ends_seen_together_are_one_time(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *noop = helper("noop_static");
	char *argv[] = { noop, NULL };
	struct duet_request d = { .side = { { .argv = argv }, { .argv = argv } } };
	struct duet_result res;
	int cpu[2], k;
	bool together = false;

	/* In 2–70% of the pairs here, depending on the mode and the build
	 * (sanitizers slow the starter's own wake-up); the first one ends it. */
	duet_cpus(cpu);
	for (k = 0; k < 600 && !together; k++) {
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_EXITED);
		assert_int_equal(res.side[1].status, RUN_EXITED);
		together = res.side[0].end_ns == res.side[1].end_ns;
	}
	print_message("%s: duet %d of two no-ops ended at one time (at most 600)\n",
		      mode_of(state) ? "spawner" : "in-process", together ? k : 0);
	assert_true(together);
	free(noop);
	measurer_free(m);
}

/* Each side's peak is its own tree's: 64 MiB beside a no-op, either way
 * round. The floor is the starter's, one for both: both commands execve
 * from its memory after one reset, so each inherits the same high-water
 * mark (docs/design.md, "Duet runs"). */
static void test_measure__duet_peak_rss_per_side(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *alloc = helper("alloc"), *noop = helper("noop_static");
	char *big[] = { alloc, "64", NULL };
	char *tiny[] = { noop, NULL };
	struct duet_request d = { .side = { { .argv = big }, { .argv = tiny } } };
	struct duet_result res;
	int cpu[2], k, b;

	duet_cpus(cpu);
	for (k = 0; k < 4; k++) {
		b = k / 2; /* the side that allocates */
		d.side[b].argv = big;
		d.side[1 - b].argv = tiny;
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_EXITED);
		assert_int_equal(res.side[1].status, RUN_EXITED);
		assert_int_equal(res.side[0].code, 0);
		assert_int_equal(res.side[1].code, 0);
		assert_int_equal(res.side[0].floor_bytes, res.side[1].floor_bytes);
		assert_true(res.side[b].peak_rss_bytes >= 64ull * MIB);
		assert_true(res.side[1 - b].peak_rss_bytes <= res.side[1 - b].floor_bytes);
		if (mode_of(state))
			assert_true(res.side[b].floor_bytes < 2ull * MIB);
		print_message("%s: duet: 64 MiB peak %.2f MiB beside a static no-op's %.2f MiB, "
			      "floor %.2f MiB\n",
			      mode_of(state) ? "spawner" : "in-process",
			      (double)res.side[b].peak_rss_bytes / MIB,
			      (double)res.side[1 - b].peak_rss_bytes / MIB,
			      (double)res.side[b].floor_bytes / MIB);
	}
	free(alloc);
	free(noop);
	measurer_free(m);
}

/* An orphan's CPU is counted on the side whose process group it is in. */
static void test_measure__duet_orphan_cpu_counts_on_its_side(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *orphan = helper("orphan_cpu"), *noop = helper("noop_static");
	char *argv0[] = { orphan, NULL };
	char *argv1[] = { noop, NULL };
	struct duet_request d = { .side = { { .argv = argv0 }, { .argv = argv1 } } };
	struct duet_result res;
	int cpu[2], k;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[0].status, RUN_EXITED);
		assert_int_equal(res.side[1].status, RUN_EXITED);
		assert_true(res.side[0].user_ns >= 150 * MS);
		assert_true(res.side[1].user_ns + res.side[1].system_ns < 50 * MS);
	}
	free(orphan);
	free(noop);
	measurer_free(m);
}

/* A cancel stops both sides, and both trees go. */
static void test_measure__duet_cancel_stops_both(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *pidfile[2] = { xasprintf("%s/pids0", dir), xasprintf("%s/pids1", dir) };
	char *tree = helper("tree");
	char *argv0[] = { tree, pidfile[0], "wait", NULL };
	char *argv1[] = { tree, pidfile[1], "wait", NULL };
	struct duet_request d = { .side = { { .argv = argv0 }, { .argv = argv1 } } };
	struct itimerval tv = { .it_value = { .tv_sec = 0, .tv_usec = 300000 } };
	struct sigaction sa, old;
	struct duet_result res;
	int cpu[2], k, i;

	duet_cpus(cpu);
	alarm_target = m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	for (k = 0; k < 2; k++) {
		setitimer(ITIMER_REAL, &tv, NULL);
		duet_ok(m, &d, cpu, k, &res);
		for (i = 0; i < 2; i++) {
			assert_int_equal(res.side[i].status, RUN_INTERRUPTED);
			assert_false(res.stopped_by_twin[i]);
			assert_true(res.side[i].wall_ns >= 200 * MS);
			assert_tree_gone(pidfile[i], mode_of(state));
			assert_int_equal(unlink(pidfile[i]), 0);
		}
	}
	sigaction(SIGALRM, &old, NULL);
	free(pidfile[0]);
	free(pidfile[1]);
	free(tree);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* A side that cannot start stops its twin, before or after the twin's
 * execve: at the lookup (in the starter), at its directory (in its child)
 * and at its execve (when the twin may already run). */
static void test_measure__duet_start_failure_stops_the_twin(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *nap[] = { probe, "nap", "20000", NULL };
	char *unknown[] = { "himorime-no-such-program", NULL };
	char *missing[] = { "/nonexistent/himorime-program", NULL };
	struct duet_request d = { .side = { { .argv = nap, .timeout_ns = 60000 * MS },
					    { .argv = unknown } } };
	struct duet_result res;
	int cpu[2], k;
	char *text;

	duet_cpus(cpu);
	for (k = 0; k < 2; k++) {
		d.side[1].argv = unknown;
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[1].status, RUN_START_FAILED);
		assert_int_equal(res.side[1].step, STEP_LOOKUP);
		assert_int_equal(res.side[0].status, RUN_INTERRUPTED);
		assert_true(res.stopped_by_twin[0]);
		assert_false(res.stopped_by_twin[1]);
		text = duet_describe(&d, &res, 0);
		assert_string_equal(text, "stopped: the other side could not start "
					  "\"himorime-no-such-program\": not found in the "
					  "command's PATH");
		free(text);

		d.side[1].argv = nap;
		d.side[1].cwd = "/nonexistent-dir";
		duet_ok(m, &d, cpu, k, &res);
		d.side[1].cwd = NULL;
		assert_int_equal(res.side[1].status, RUN_START_FAILED);
		assert_int_equal(res.side[1].step, STEP_CHDIR);
		assert_int_equal(res.side[1].code, ENOENT);
		assert_int_equal(res.side[0].status, RUN_INTERRUPTED);
		assert_true(res.stopped_by_twin[0]);

		d.side[1].argv = missing;
		duet_ok(m, &d, cpu, k, &res);
		assert_int_equal(res.side[1].status, RUN_START_FAILED);
		assert_int_equal(res.side[1].step, STEP_EXEC);
		assert_int_equal(res.side[1].code, ENOENT);
		assert_int_equal(res.side[0].status, RUN_INTERRUPTED);
		assert_true(res.stopped_by_twin[0]);
		assert_true(res.side[0].wall_ns < 10000 * MS);
		text = duet_describe(&d, &res, 0);
		assert_string_equal(text, "stopped: the other side could not execute "
					  "\"/nonexistent/himorime-program\": no such file or "
					  "directory");
		free(text);
	}
	free(probe);
	measurer_free(m);
}

/* The process that starts commands: the spawner (this process's only
 * child), or this process in-process. */
static int starter_pid(bool use_spawner)
{
	char path[64], *text;
	int pid = 0, n = 0;

	if (!use_spawner)
		return (int)getpid();
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	text = read_text(path);
	assert_int_equal(sscanf(text, "%d %n", &pid, &n), 1);
	assert_int_equal(text[n], '\0');
	free(text);
	return pid;
}

/* The children of a single-threaded process, live or not yet reaped, as
 * its /proc file lists them ("" for none). */
static char *children_of(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	return read_text(path);
}

/* A side whose execve fails after its twin was told to go leaves nothing
 * running. The vfork side says go right before its execve, so when that
 * execve fails the twin may already run its command: here a static program
 * that at once forks a child which leaves its process group (setsid). The
 * failing side's arguments (1.5 MB, which the kernel copies before it finds
 * that the file is no program) give the twin time to fork first. When the
 * call returns, the starter has no child left, and each side says why it
 * ended. Eight duets, the CPUs alternating, so that the failing side is the
 * vfork child in four and the twin in four. */
static void test_measure__duet_failed_execve_leaves_nothing_running(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *dir = make_tmpdir();
	char *bad = xasprintf("%s/not-a-program", dir), *escape = helper("escape_static");
	char *escape_argv[] = { escape, NULL };
	char *bad_argv[14] = { bad }, *arg = xmalloc(127 * 1024 + 1), *text, *want;
	struct duet_request d = { .side = { { .argv = escape_argv, .timeout_ns = 60000 * MS },
					    { .argv = bad_argv } } };
	struct duet_result res;
	struct err err = ERR_INIT;
	int cpu[2], k, i, starter;

	assert_int_equal(fsio_write_atomic(bad, "not a program\n", 14, &err), 0);
	assert_int_equal(chmod(bad, 0755), 0);
	memset(arg, 'x', 127 * 1024);
	arg[127 * 1024] = '\0';
	for (i = 1; i < 13; i++)
		bad_argv[i] = arg;
	duet_cpus(cpu);
	starter = starter_pid(mode_of(state));
	for (k = 0; k < 8; k++) {
		duet_ok(m, &d, cpu, k, &res);
		text = children_of(starter);
		assert_string_equal(text, "");
		free(text);
		assert_int_equal(res.side[1].status, RUN_START_FAILED);
		assert_int_equal(res.side[1].step, STEP_EXEC);
		assert_int_equal(res.side[1].code, ENOEXEC);
		assert_false(res.stopped_by_twin[1]);
		assert_int_equal(res.side[0].status, RUN_INTERRUPTED);
		assert_true(res.stopped_by_twin[0]);
		text = duet_describe(&d, &res, 1);
		want = xasprintf("could not execute \"%s\": exec format error", bad);
		assert_string_equal(text, want);
		free(text);
		free(want);
		text = duet_describe(&d, &res, 0);
		want = xasprintf("stopped: the other side could not execute \"%s\": exec format "
				 "error",
				 bad);
		assert_string_equal(text, want);
		free(text);
		free(want);
	}
	free(arg);
	free(escape);
	free(bad);
	remove_tmpdir(dir);
	measurer_free(m);
}

/* What cannot be a duet is refused before anything starts, one line each. */
static void test_measure__duet_refuses_what_it_cannot_run(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *probe = helper("probe");
	char *nap[] = { probe, "nap", "1", NULL };
	struct duet_request d = { .side = { { .argv = nap }, { .argv = nap } } };
	struct duet_result res;
	struct err err = ERR_INIT;
	cpu_set_t all, one;
	int cpu[2], got[2], want;
	char *msg;

	duet_cpus(cpu);
	d.cpu[0] = cpu[0];
	d.cpu[1] = cpu[1];
	d.side[1].terminal = true;
	assert_int_equal(measurer_duet(m, &d, &res, &err), ERR_INVALID);
	msg = xasprintf("command \"%s\" runs on a terminal (terminal: true), which a duet run "
			"cannot give both sides: use the interleaved schedule",
			probe);
	assert_string_equal(err.msg, msg);
	free(msg);
	d.side[1].terminal = false;

	d.side[0].stdout_path = d.side[1].stdout_path = "/tmp/himorime-duet-shared-out";
	assert_int_equal(measurer_duet(m, &d, &res, &err), ERR_INVALID);
	assert_string_equal(err.msg, "both sides of a duet run write to "
				     "\"/tmp/himorime-duet-shared-out\": each needs its own file");
	d.side[0].stdout_path = d.side[1].stdout_path = NULL;

	d.cpu[1] = cpu[0];
	assert_int_equal(measurer_duet(m, &d, &res, &err), ERR_INVALID);
	msg = xasprintf("a duet run needs two CPUs, not CPU %d for both sides", cpu[0]);
	assert_string_equal(err.msg, msg);
	free(msg);
	d.cpu[1] = CPU_SETSIZE;
	assert_int_equal(measurer_duet(m, &d, &res, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a duet run cannot use CPU 1024: himorime may not run there");
	d.cpu[1] = cpu[1];

	/* Kept to one CPU (as a one-CPU machine is): refused, with the reason. */
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	want = cpu[1];
	CPU_ZERO(&one);
	CPU_SET(want, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(measurer_duet_cpus(got, &err), ERR_INVALID);
	msg = xasprintf("duet runs need two CPUs, and himorime may use only CPU %d (its affinity "
			"mask): use the interleaved schedule",
			want);
	assert_string_equal(err.msg, msg);
	err_clear(&err);
	assert_int_equal(measurer_duet(m, &d, &res, &err), ERR_INVALID);
	assert_string_equal(err.msg, msg);
	free(msg);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);

	/* Nothing ran; the measurer still works. */
	duet_ok(m, &d, cpu, 0, &res);
	assert_int_equal(res.side[0].status, RUN_EXITED);
	assert_int_equal(res.side[1].status, RUN_EXITED);
	free(probe);
	measurer_free(m);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Not a timing assertion (the machine is shared): prints the per-run latency
 * of a static no-op for docs/performance.md, and checks only that every run
 * of it succeeded. */
static void test_measure__latency_of_a_static_noop(void **state)
{
	struct measurer *m = new_measurer(mode_of(state));
	char *noop = helper("noop_static");
	char *argv[] = { noop, NULL };
	struct run_request req = { .argv = argv };
	struct run_result res;
	uint64_t wall[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wall); i++) {
		run_ok(m, &req, &res);
		assert_int_equal(res.status, RUN_EXITED);
		wall[i] = res.wall_ns;
	}
	qsort(wall, ARRAY_SIZE(wall), sizeof(wall[0]), compare_u64);
	print_message("%s: static no-op, %zu runs: median %.3f ms, min %.3f ms\n",
		      mode_of(state) ? "spawner" : "in-process", ARRAY_SIZE(wall),
		      (double)wall[ARRAY_SIZE(wall) / 2] / 1e6, (double)wall[0] / 1e6);
	free(noop);
	measurer_free(m);
}

static void test_measure__protocol_rejects_malformed_requests(void **state)
{
	char *argv[] = { "prog", "arg", NULL };
	char *env[] = { "A=1", NULL };
	struct run_request req = { .argv = argv, .envp = env, .cwd = "/tmp", .timeout_ns = 5 };
	struct run_request back;
	char **vec = NULL, *payload = NULL;
	uint32_t id = 0, runs = 0, huge = 0x7fffffff;
	size_t len;

	(void)state;
	assert_int_equal(proto_encode_run(42, &req, RUN_MAX_BATCH, &payload, &len), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(proto_decode_run(payload, len, &id, &back, &runs, &vec), 0);
	assert_int_equal(id, 42);
	assert_int_equal(runs, RUN_MAX_BATCH);
	assert_string_equal(back.argv[1], "arg");
	assert_null(back.argv[2]);
	assert_string_equal(back.envp[0], "A=1");
	assert_string_equal(back.cwd, "/tmp");
	assert_null(back.stdin_path);
	assert_int_equal(back.timeout_ns, 5);
	free(vec);
	/* A batch of none, a batch too long. */
	free(payload);
	assert_int_equal(proto_encode_run(42, &req, 0, &payload, &len), 0);
	assert_int_equal(proto_decode_run(payload, len, &id, &back, &runs, &vec), EPROTO);
	free(payload);
	assert_int_equal(proto_encode_run(42, &req, RUN_MAX_BATCH + 1, &payload, &len), 0);
	assert_int_equal(proto_decode_run(payload, len, &id, &back, &runs, &vec), EPROTO);
	free(payload);
	/* A string cut short, a count larger than the payload, a short header. */
	assert_int_equal(proto_encode_run(42, &req, 1, &payload, &len), 0);
	assert_int_equal(proto_decode_run(payload, len - 1, &id, &back, &runs, &vec), EPROTO);
	memcpy(payload + 16, &huge, 4);
	assert_int_equal(proto_decode_run(payload, len, &id, &back, &runs, &vec), EPROTO);
	assert_int_equal(proto_decode_run(payload, 10, &id, &back, &runs, &vec), EPROTO);
	assert_null(vec);
	free(payload);
}

/* A duet on the wire: both requests and both results, the flags and the
 * skew; a terminal, a batch, CPUs equal or out of range, a side's part
 * cut short, and flags or results out of range are refused. */
static void test_measure__protocol_carries_duets(void **state)
{
	char *argv0[] = { "prog0", "a", NULL }, *argv1[] = { "prog1", NULL };
	char *env[] = { "A=1", NULL };
	struct duet_request req = { .side = { { .argv = argv0, .envp = env, .timeout_ns = 5 },
					      { .argv = argv1, .envp = env, .cwd = "/tmp" } },
				    .cpu = { 1, 0 } };
	struct duet_request back;
	struct duet_result res, got;
	unsigned char wire[PROTO_DUET_RESULT_SIZE];
	char **vec[2], *payload = NULL, *run = NULL;
	uint32_t id = 0, bad = 4;
	int32_t cpu;
	size_t len, run_len;

	(void)state;
	assert_int_equal(proto_encode_duet(9, &req, &payload, &len), 0);
	assert_int_equal(proto_decode_duet(payload, len, &id, &back, vec), 0);
	assert_int_equal(id, 9);
	assert_int_equal(back.cpu[0], 1);
	assert_int_equal(back.cpu[1], 0);
	assert_string_equal(back.side[0].argv[1], "a");
	assert_int_equal(back.side[0].timeout_ns, 5);
	assert_null(back.side[0].cwd);
	assert_string_equal(back.side[1].argv[0], "prog1");
	assert_string_equal(back.side[1].cwd, "/tmp");
	free(vec[0]);
	free(vec[1]);
	/* The same CPU twice, one out of range, side 0's part longer than all. */
	cpu = 1;
	memcpy(payload + 8, &cpu, 4);
	assert_int_equal(proto_decode_duet(payload, len, &id, &back, vec), EPROTO);
	cpu = CPU_SETSIZE;
	memcpy(payload + 8, &cpu, 4);
	assert_int_equal(proto_decode_duet(payload, len, &id, &back, vec), EPROTO);
	cpu = 0;
	memcpy(payload + 8, &cpu, 4);
	assert_int_equal(proto_decode_duet(payload, len - 1, &id, &back, vec), EPROTO);
	assert_int_equal(proto_decode_duet(payload, 12, &id, &back, vec), EPROTO);
	assert_null(vec[0]);
	assert_null(vec[1]);
	free(payload);
	/* A terminal, or a batch, inside a duet. */
	req.side[1].terminal = true;
	assert_int_equal(proto_encode_duet(9, &req, &payload, &len), 0);
	assert_int_equal(proto_decode_duet(payload, len, &id, &back, vec), EPROTO);
	free(payload);
	req.side[1].terminal = false;
	assert_int_equal(proto_encode_duet(9, &req, &payload, &len), 0);
	assert_int_equal(proto_encode_run(9, &req.side[0], 2, &run, &run_len), 0);
	memcpy(payload + 16, run, run_len); /* side 0's part, now a batch of 2 */
	assert_int_equal(proto_decode_duet(payload, len, &id, &back, vec), EPROTO);
	free(run);
	free(payload);

	memset(&res, 0, sizeof(res));
	res.side[0] = (struct run_result){
		.status = RUN_TIMED_OUT, .wall_ns = 7, .start_ns = 100, .end_ns = 107
	};
	res.side[1] = (struct run_result){ .status = RUN_INTERRUPTED, .start_ns = 99 };
	res.stopped_by_twin[1] = true;
	res.start_skew_ns = -1;
	proto_encode_duet_result(9, &res, wire);
	assert_int_equal(proto_decode_duet_result(wire, &id, &got), 0);
	assert_int_equal(id, 9);
	assert_int_equal(got.side[0].status, RUN_TIMED_OUT);
	assert_int_equal(got.side[0].start_ns, 100);
	assert_int_equal(got.side[0].end_ns, 107);
	assert_int_equal(got.side[1].status, RUN_INTERRUPTED);
	assert_false(got.stopped_by_twin[0]);
	assert_true(got.stopped_by_twin[1]);
	assert_int_equal(got.start_skew_ns, -1);
	memcpy(wire + 4, &bad, 4);
	assert_int_equal(proto_decode_duet_result(wire, &id, &got), EPROTO);
	bad = 3;
	memcpy(wire + 4, &bad, 4);
	bad = RUN_INTERRUPTED + 1;
	memcpy(wire + 16 + PROTO_RESULT_SIZE + 4, &bad, 4); /* side 1's status */
	assert_int_equal(proto_decode_duet_result(wire, &id, &got), EPROTO);
}

static void test_measure__empty_command_is_invalid(void **state)
{
	struct measurer *m = new_measurer(false);
	char *argv[] = { NULL };
	struct run_request req = { .argv = argv };
	struct run_result res;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(measurer_run(m, &req, 1, &res, &err), ERR_INVALID);
	assert_string_equal(err.msg, "a command needs a program to run");
	measurer_free(m);
}

static void test_measure__output_tail_keeps_the_last_lines(void **state)
{
	char *dir = make_tmpdir();
	char *path = xasprintf("%s/err", dir), *want;
	struct err err = ERR_INIT;
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 0);
	assert_int_equal(fsio_write_atomic(path, "a\nb\nc\nd\ne\n", 10, &err), 0);
	assert_int_equal(run_output_tail(path, 2, &sb, &err), 0);
	assert_string_equal(sb.buf, "d\ne\n");
	strbuf_reset(&sb);
	assert_int_equal(run_output_tail(path, 9, &sb, &err), 0);
	assert_string_equal(sb.buf, "a\nb\nc\nd\ne\n");
	strbuf_reset(&sb);
	assert_int_equal(fsio_write_atomic(path, "x\ny\nno newline", 15, &err), 0);
	assert_int_equal(run_output_tail(path, 2, &sb, &err), 0);
	assert_string_equal(sb.buf, "y\nno newline");
	strbuf_reset(&sb);
	assert_int_equal(fsio_write_atomic(path, "", 0, &err), 0);
	assert_int_equal(run_output_tail(path, 3, &sb, &err), 0);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
	assert_int_equal(run_output_tail("/nonexistent/err", 3, &sb, &err), ERR_EXEC);
	assert_string_equal(err.msg, "cannot read \"/nonexistent/err\": no such file or directory");
	/* the command may have put a FIFO there: refused, not waited on */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(run_output_tail(path, 3, &sb, &err), ERR_EXEC);
	want = xasprintf("cannot read \"%s\": not a regular file", path);
	assert_string_equal(err.msg, want);
	free(want);
	strbuf_release(&sb);
	free(path);
	remove_tmpdir(dir);
}

#define BOTH(fn) cmocka_unit_test_prestate(fn, SPAWNER), cmocka_unit_test_prestate(fn, IN_PROCESS)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_measure__exit_codes_and_signals),
		BOTH(test_measure__start_failures_are_reported),
		BOTH(test_measure__path_lookup_uses_the_childs_path),
		BOTH(test_measure__relative_program_and_cwd),
		BOTH(test_measure__streams),
		BOTH(test_measure__child_starts_with_default_signals),
		BOTH(test_measure__child_may_use_every_cpu),
		BOTH(test_measure__timeout_kills_the_whole_tree),
		BOTH(test_measure__exit_kills_what_is_left),
		BOTH(test_measure__orphan_cpu_is_counted),
		BOTH(test_measure__peak_rss_and_floor),
		BOTH(test_measure__cancel_from_a_signal_handler),
		BOTH(test_measure__a_batch_ends_at_a_failure_or_a_cancel),
		BOTH(test_measure__terminal_types_one_key_at_a_time),
		BOTH(test_measure__latency_of_a_static_noop),
		BOTH(test_measure__duet_sides_overlap),
		BOTH(test_measure__duet_pins_each_side_and_counts_its_cpu),
		BOTH(test_measure__duet_timeout_stops_both),
		BOTH(test_measure__duet_crash_ends_one_side),
		BOTH(test_measure__duet_of_two_quick_exits),
		BOTH(test_measure__duet_ends_seen_together_are_one_time),
		BOTH(test_measure__duet_peak_rss_per_side),
		BOTH(test_measure__duet_orphan_cpu_counts_on_its_side),
		BOTH(test_measure__duet_cancel_stops_both),
		BOTH(test_measure__duet_start_failure_stops_the_twin),
		BOTH(test_measure__duet_failed_execve_leaves_nothing_running),
		BOTH(test_measure__duet_refuses_what_it_cannot_run),
		cmocka_unit_test(test_measure__spawner_stops_when_himorime_dies),
		cmocka_unit_test(test_measure__spawner_stops_a_run_on_hangup_or_sigterm),
		cmocka_unit_test(test_measure__falls_back_without_a_spawner),
		cmocka_unit_test(test_measure__protocol_rejects_malformed_requests),
		cmocka_unit_test(test_measure__protocol_carries_duets),
		cmocka_unit_test(test_measure__empty_command_is_invalid),
		cmocka_unit_test(test_measure__output_tail_keeps_the_last_lines),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
