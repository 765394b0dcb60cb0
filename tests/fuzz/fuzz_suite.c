/*
 * libFuzzer harness for the suite loader: any bytes as a suite file, through
 * suite_load (YAML, every key and rule), which must answer with a suite or
 * with problems, never crash, leak or hang. The bytes go through a real file,
 * as a suite always does. See docs/github-actions.md, "Threat model", and
 * `make fuzz`.
 */
#include "common/alloc.h"
#include "common/err.h"
#include "common/fsio.h"
#include "suite/suite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *suite_path;

static void remove_dir(void)
{
	struct err err = ERR_INIT;
	char *dir = xstrdup(suite_path);

	*strrchr(dir, '/') = '\0';
	fsio_remove_tree(dir, &err);
	free(dir);
}

static const char *path_for_input(void)
{
	struct err err = ERR_INIT;
	char *dir;

	if (suite_path)
		return suite_path;
	if (fsio_mkdtemp("himorime-fuzz-", &dir, &err) < 0) {
		fprintf(stderr, "fuzz_suite: %s\n", err.msg);
		abort();
	}
	suite_path = xasprintf("%s/himorime.yaml", dir);
	free(dir);
	atexit(remove_dir);
	return suite_path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite_diags diags;
	struct suite *s = NULL;
	struct err err = ERR_INIT;
	const char *path = path_for_input();
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	suite_diags_init(&diags);
	if (suite_load(path, &s, &diags, &err) == 0 && !s)
		abort(); /* success always gives a suite */
	suite_free(s);
	suite_diags_release(&diags);
	return 0;
}
