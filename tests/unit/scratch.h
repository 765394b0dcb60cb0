/*
 * For unit tests that build and run real programs: a private temporary
 * directory (`scratch_dir`, removed at the end) and an in-process measurer
 * to run commands with. Use scratch_setup and scratch_teardown as the
 * group's setup and teardown.
 */
#ifndef HIMORIME_TESTS_UNIT_SCRATCH_H
#define HIMORIME_TESTS_UNIT_SCRATCH_H

#include "common/alloc.h"
#include "common/fsio.h"
#include "measure/measure.h"

#include <stdlib.h>

static char *scratch_dir;
static struct measurer *scratch_measurer;

static int scratch_setup(void **state)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct err err = ERR_INIT;

	(void)state;
	o.use_spawner = false;
	assert_int_equal(fsio_mkdtemp("himorime-test.", &scratch_dir, &err), 0);
	assert_int_equal(measurer_new(&o, &scratch_measurer, &err), 0);
	return 0;
}

static int scratch_teardown(void **state)
{
	struct err err = ERR_INIT;

	(void)state;
	measurer_free(scratch_measurer);
	assert_int_equal(fsio_remove_tree(scratch_dir, &err), 0);
	free(scratch_dir);
	return 0;
}

/* Runs argv to its end, its standard output to stdout_path (NULL: discarded);
 * returns its exit code. */
static int scratch_run(char *const *argv, const char *stdout_path)
{
	struct run_request req = { 0 };
	struct run_result res;
	struct err err = ERR_INIT;

	req.argv = argv;
	req.stdout_path = stdout_path;
	assert_int_equal(measurer_run(scratch_measurer, &req, 1, &res, &err), 1);
	assert_int_equal(res.status, RUN_EXITED);
	return res.code;
}

#endif
