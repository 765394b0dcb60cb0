/*
 * Tests of finding helper programs (measure/helper.h): the first program of
 * the name in PATH that the measured code could not have put or changed is
 * taken, by its real path; one in a relative PATH entry, under TMPDIR or
 * another place the measured code writes, or (for a user other than root)
 * in a directory that user owns, is skipped, and when nothing else is found
 * the reason names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "measure/helper.h"

#include "scratch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* <scratch_dir>/<dir>/env, a copy of /usr/bin/env; returns the directory. */
static char *plant(const char *dir)
{
	char *d = xasprintf("%s/%s", scratch_dir, dir), *f = xasprintf("%s/env", d);
	char *argv[] = { (char *)"cp", (char *)"/usr/bin/env", f, NULL };

	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(scratch_run(argv, NULL), 0);
	free(f);
	return d;
}

static void test_helper__trusted_programs_are_found_by_their_real_path(void **state)
{
	struct err err = ERR_INIT;
	char *out, *want = realpath("/usr/bin/env", NULL), *links, *link;

	(void)state;
	assert_int_equal(helper_find("env", "/nonexistent:/usr/bin", &out, &err), 0);
	assert_string_equal(out, want);
	free(out);
	/* a link under TMPDIR to a trusted program: its real path is taken */
	links = xasprintf("%s/links", scratch_dir);
	link = xasprintf("%s/env", links);
	assert_int_equal(mkdir(links, 0755), 0);
	assert_int_equal(symlink("/usr/bin/env", link), 0);
	assert_int_equal(helper_find("env", links, &out, &err), 0);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(helper_find("env", NULL, &out, &err), ERR_METRIC);
	assert_null(out);
	assert_string_equal(err.msg, "no \"env\" in PATH");
	assert_int_equal(helper_find("no-such-helper", "/usr/bin:/bin", &out, &err), ERR_METRIC);
	assert_string_equal(err.msg, "no \"no-such-helper\" in PATH");
	free(links);
	free(link);
	free(want);
}

static void test_helper__places_the_measured_code_writes_are_skipped(void **state)
{
	struct err err = ERR_INIT;
	char *bin = plant("tmpbin"), *path = xasprintf("%s:/usr/bin", bin), *out, *want;
	char *tmp = realpath(scratch_dir, NULL), *saved = getenv("TMPDIR");

	(void)state;
	saved = saved ? xstrdup(saved) : NULL;
	setenv("TMPDIR", scratch_dir, 1);
	assert_int_equal(helper_find("env", path, &out, &err), 0);
	assert_string_equal(out, "/usr/bin/env");
	free(out);
	assert_int_equal(helper_find("env", bin, &out, &err), ERR_METRIC);
	want = xasprintf("\"%s/env\" is in a place the measured code can write (under TMPDIR "
			 "\"%s\")",
			 bin, tmp);
	assert_string_equal(err.msg, want);
	free(want);
	unsetenv("TMPDIR");
	assert_int_equal(helper_find("env", bin, &out, &err), ERR_METRIC);
	if (!strncmp(tmp, "/tmp/", 5)) {
		want = xasprintf("\"%s/env\" is in a place the measured code can write (under "
				 "\"/tmp\")",
				 bin);
		assert_string_equal(err.msg, want);
		free(want);
	}
	if (saved)
		setenv("TMPDIR", saved, 1);
	free(saved);
	free(tmp);
	free(path);
	free(bin);
}

static void test_helper__relative_path_entries_are_skipped(void **state)
{
	struct err err = ERR_INIT;
	char *bin = plant("cwd"), *out;
	int here = open(".", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(here >= 0);
	assert_int_equal(chdir(bin), 0);
	assert_int_equal(helper_find("env", ":/usr/bin", &out, &err), 0);
	assert_string_equal(out, "/usr/bin/env");
	free(out);
	assert_int_equal(helper_find("env", ".", &out, &err), ERR_METRIC);
	assert_string_equal(err.msg,
			    "\"./env\" is in a relative PATH entry (the working directory)");
	assert_int_equal(helper_find("env", "", &out, &err), ERR_METRIC);
	assert_string_equal(err.msg,
			    "\"./env\" is in a relative PATH entry (the working directory)");
	assert_int_equal(fchdir(here), 0);
	close(here);
	free(bin);
}

/* For a user other than root: a directory that user owns (here anywhere,
 * not only in the places) could be changed by the measured code. Run in a
 * child as nobody when the tests run as root. */
static void test_helper__a_users_own_directory_is_skipped(void **state)
{
	char *bin = plant("owned"), *want;
	struct err err = ERR_INIT;
	char *out = NULL;
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(scratch_dir, 0755), 0);
	assert_int_equal(chown(bin, 65534, 65534), 0);
	want = xasprintf("\"%s/env\" could be changed by the measured code (\"%s\" is owned or "
			 "writable by this user)",
			 bin, bin);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		if (helper_find("env", bin, &out, &err) != ERR_METRIC || strcmp(err.msg, want))
			_exit(11);
		if (helper_find("env", "/usr/bin", &out, &err) != 0 || strcmp(out, "/usr/bin/env"))
			_exit(12);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(chmod(scratch_dir, 0700), 0);
	free(want);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helper__trusted_programs_are_found_by_their_real_path),
		cmocka_unit_test(test_helper__places_the_measured_code_writes_are_skipped),
		cmocka_unit_test(test_helper__relative_path_entries_are_skipped),
		cmocka_unit_test(test_helper__a_users_own_directory_is_skipped),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
