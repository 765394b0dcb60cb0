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
	struct run_request req = { .argv = argv, .timeout_ns = 400 * MS };
	struct run_result res;
	char *text;

	run_ok(m, &req, &res);
	assert_int_equal(res.status, RUN_TIMED_OUT);
	assert_true(res.wall_ns >= 400 * MS);
	text = describe(&req, &res);
	assert_string_equal(text, "timed out after 0.4s");
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

/* Starts the spawner as himorime does (the request socket on fd 3, the
 * cancel socket on fd 4), reads its HELLO and sends one RUN of the tree
 * helper; returns its pid, with himorime's ends in req_fd and cancel_fd. */
static pid_t spawner_running_a_tree(const char *pidfile, int *req_fd, int *cancel_fd)
{
	char *tree = helper("tree"), *path = xasprintf("%s/himorime-spawner", build_dir);
	char *argv[] = { tree, (char *)pidfile, "wait", NULL };
	struct run_request req = { .argv = argv };
	int sv[2], cv[2], i;
	uint32_t len, hello[2];
	char *payload;
	size_t size;
	struct stat st;
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
	assert_int_equal(proto_encode_run(7, &req, 1, &payload, &size), 0);
	assert_int_equal(proto_send(sv[0], PROTO_RUN, payload, size), 0);
	for (i = 0; i < 1000 && stat(pidfile, &st) != 0; i++)
		usleep(10000);
	assert_int_equal(stat(pidfile, &st), 0);
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
 * tree, and the spawner exits 0 without answering. */
static void test_measure__spawner_stops_a_run_on_hangup_or_sigterm(void **state)
{
	char *dir = make_tmpdir();
	char *pidfile = xasprintf("%s/pids", dir);
	unsigned char out[PROTO_RESULT_SIZE];
	int pids[5], i, way, req_fd, cancel_fd;
	struct run_result res;
	uint32_t len, id;
	char byte;
	pid_t pid;

	(void)state;
	find_build_dir();
	for (way = 0; way < 2; way++) {
		pid = spawner_running_a_tree(pidfile, &req_fd, &cancel_fd);
		read_pids(pidfile, pids);
		assert_true(alive(pids[4]));
		if (way == 0)
			close(req_fd);
		else
			kill(pid, SIGTERM);
		assert_true(reaped_within(pid) || (kill(pid, SIGKILL), false));
		for (i = 0; i < 5; i++)
			assert_false(alive(pids[i]));
		if (way == 1) {
			/* The run's result says it was interrupted; then the end. */
			assert_int_equal(proto_recv_header(req_fd, PROTO_RESULT, &len), 0);
			assert_int_equal(len, PROTO_RESULT_SIZE);
			assert_int_equal(proto_read_all(req_fd, out, sizeof(out)), 0);
			assert_int_equal(proto_decode_result(out, &id, &res), 0);
			assert_int_equal(id, 7);
			assert_int_equal(res.status, RUN_INTERRUPTED);
			assert_int_equal(read(req_fd, &byte, 1), 0);
			close(req_fd);
		}
		close(cancel_fd);
		assert_int_equal(unlink(pidfile), 0);
	}
	free(pidfile);
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
		cmocka_unit_test(test_measure__spawner_stops_when_himorime_dies),
		cmocka_unit_test(test_measure__spawner_stops_a_run_on_hangup_or_sigterm),
		cmocka_unit_test(test_measure__falls_back_without_a_spawner),
		cmocka_unit_test(test_measure__protocol_rejects_malformed_requests),
		cmocka_unit_test(test_measure__empty_command_is_invalid),
		cmocka_unit_test(test_measure__output_tail_keeps_the_last_lines),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
