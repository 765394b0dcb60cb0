/*
 * `himorime init [--force] [PATH]`: writes a small runnable suite whose first
 * line points editors at the JSON Schema. An existing file is never replaced
 * without --force (exit 3: the command line must say so).
 */
#include "cli/cli.h"

#include "cli/opts.h"
#include "common/fsio.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

#define SCHEMA_URL                                                                                 \
	"https://raw.githubusercontent.com/himorime/himorime/main/docs/schema/suite.schema.json"

static const char suite_text[] =
	"# yaml-language-server: $schema=" SCHEMA_URL "\n"
	"version: \"1\"\n"
	"name: my-project\n"
	"description: What this suite measures; see docs/configuration.md for every key.\n"
	"\n"
	"defaults:\n"
	"  warmup: 1\n"
	"  timeout: 1m\n"
	"\n"
	"benchmarks:\n"
	"  - name: startup\n"
	"    tags: [smoke]\n"
	"    commands:\n"
	"      true:\n"
	"        command: [\"true\"]\n"
	"        budget:\n"
	"          latency: {median: \"<= 100ms\"}\n";

int cmd_init(int argc, char **argv)
{
	bool force = false;
	const struct opt opts[] = {
		{ "force", 'f', OPT_FLAG, &force, NULL, "overwrite an existing file" },
	};
	struct strlist operands = { NULL, 0, 0 };
	struct err err = ERR_INIT;
	struct stat st;
	const char *path;
	int code = EXIT_OK;

	if (opts_parse("init", opts, sizeof(opts) / sizeof(opts[0]), argc, argv, &operands, &err) <
	    0) {
		strlist_release(&operands);
		return cli_usage_error("init", &err);
	}
	if (operands.n > 1) {
		err_set(&err, ERR_USAGE, "init takes at most one PATH, got %zu", operands.n);
		strlist_release(&operands);
		return cli_usage_error("init", &err);
	}
	path = operands.n ? operands.v[0] : "himorime.yaml";
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_set(&err, ERR_USAGE, "\"%s\" is a directory; give the suite file's path", path);
		code = cli_usage_error("init", &err);
	} else if (!force && stat(path, &st) == 0) {
		fprintf(stderr, "himorime: error: \"%s\" already exists [HMR3001]\n", path);
		fprintf(stderr, "  hint: run 'himorime init --force %s' to overwrite it\n", path);
		code = cli_exit(EXIT_USAGE, "invalid command line");
	} else if (fsio_write_atomic(path, suite_text, strlen(suite_text), &err) < 0) {
		code = cli_fail(&err);
	} else {
		printf("wrote %s; check it with 'himorime validate %s'\n", path, path);
	}
	strlist_release(&operands);
	return code;
}
