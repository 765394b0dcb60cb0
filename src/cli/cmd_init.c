/*
 * `himorime init [--force] [PATH]`: writes a small runnable suite and, beside
 * it, the suite's JSON Schema (himorime.schema.json, this himorime's own:
 * schema_text.h), which the suite's first line points editors at. When the
 * directory (or one above it, up to the repository's top) shows how the
 * project builds (suite/recipes.h), the suite gets a `build` that leaves the
 * program at ${artifact} and a benchmark that runs it. An existing suite is
 * never replaced without --force (exit 3: the command line must say so);
 * the schema file is this himorime's and is always written.
 */
#include "cli/commands.h"

#include "cli/opts.h"
#include "cli/schema_text.h"
#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "suite/recipes.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

#define SCHEMA_FILE "himorime.schema.json"

static const char head_text[] =
	"# yaml-language-server: $schema=" SCHEMA_FILE "\n"
	"version: \"1\"\n"
	"name: my-project\n"
	"description: What this suite measures; see docs/configuration.md for "
	"every key.\n"
	"\n";

static const char defaults_text[] = "defaults:\n"
				    "  warmup: 1\n"
				    "  timeout: 1m\n"
				    "\n";

static const char plain_benchmarks[] = "benchmarks:\n"
				       "  - name: startup\n"
				       "    tags: [smoke]\n"
				       "    commands:\n"
				       "      true:\n"
				       "        command: [\"true\"]\n"
				       "        budget:\n"
				       "          latency: {median: \"<= 100ms\"}\n";

static const char built_benchmarks[] = "benchmarks:\n"
				       "  - name: startup\n"
				       "    tags: [smoke]\n"
				       "    commands:\n"
				       "      version:\n"
				       "        # replace with what your program does\n"
				       "        command: [\"${artifact}\", --version]\n"
				       "        budget:\n"
				       "          latency: {median: \"<= 100ms\"}\n";

/* A YAML single-quoted scalar: any text of one line, quotes doubled. */
static void yaml_quoted(struct strbuf *sb, const char *text)
{
	const char *p;

	strbuf_addch(sb, '\'');
	for (p = text; *p; p++) {
		if (*p == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

/* The `build` for the recipe found `up` levels above the suite's dir. */
static void build_step(struct strbuf *sb, const struct recipe *r, const char *marker_dir,
		       unsigned up)
{
	char *target = recipes_target(r, marker_dir);
	struct strbuf cmd;
	unsigned i;

	strbuf_init(&cmd, 0);
	recipes_command(r, target, &cmd);
	strbuf_addf(sb,
		    "# Found %s (%s). The build runs in each revision's own tree (your\n"
		    "# working tree; in a comparison, a temporary one for the base) and\n"
		    "# must leave the program at ${artifact}, the file the commands run.\n",
		    r->system, r->marker);
	if (!target)
		strbuf_addf(sb, "# Put your program's name where it says %s.\n", r->unknown_target);
	else if (r->target && strcmp(r->system, "Go"))
		strbuf_addf(sb, "# Check the program's name: %s.\n", target);
	strbuf_adds(sb, "build:\n  command: ");
	yaml_quoted(sb, cmd.buf);
	strbuf_adds(sb, "\n  shell: true\n");
	for (i = 0; i < up; i++)
		strbuf_adds(sb, i ? "/.." : "  cwd: ..");
	if (up)
		strbuf_addch(sb, '\n');
	/* a whole project's build outlasts the default 10m */
	strbuf_adds(sb, "  timeout: 30m\n\n");
	strbuf_release(&cmd);
	free(target);
}

/* The directory `levels` above dir (dir itself for 0). */
static char *up_from(const char *dir, unsigned levels)
{
	char *d = xstrdup(dir), *slash;

	while (levels-- && (slash = strrchr(d, '/')) && slash != d)
		*slash = '\0';
	return d;
}

/* The suite's text for the directory it goes in; *r the recipe used. */
static void suite_text(const char *dir, struct strbuf *sb, const struct recipe **r)
{
	unsigned up = 0;

	*r = recipes_find(dir, &up);
	strbuf_adds(sb, head_text);
	if (*r) {
		char *marker_dir = up_from(dir, up);
		build_step(sb, *r, marker_dir, up);
		free(marker_dir);
	}
	strbuf_adds(sb, defaults_text);
	strbuf_adds(sb, *r ? built_benchmarks : plain_benchmarks);
}

/* The absolute directory the suite goes in. */
static char *suite_dir(const char *path)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/'), real[PATH_MAX];
	char *dir;

	if (slash)
		*slash = '\0';
	dir = realpath(slash ? (*copy ? copy : "/") : ".", real) ? xstrdup(real) : xstrdup(".");
	free(copy);
	return dir;
}

static int write_files(const char *path)
{
	struct err err = ERR_INIT;
	struct strbuf sb;
	const struct recipe *r;
	char *dir = suite_dir(path), *schema = xasprintf("%s/" SCHEMA_FILE, dir);
	int code = EXIT_OK;

	strbuf_init(&sb, 0);
	suite_text(dir, &sb, &r);
	if (fsio_write_atomic(path, sb.buf, sb.len, &err) < 0 ||
	    fsio_write_atomic(schema, (const char *)cli_suite_schema, cli_suite_schema_len, &err) <
		    0) {
		code = cli_fail(&err);
	} else {
		printf("wrote %s", path);
		if (r)
			printf(" (with a build step for the %s found: check it)", r->marker);
		printf(" and %s; check it with 'himorime validate %s'\n", SCHEMA_FILE, path);
	}
	strbuf_release(&sb);
	free(schema);
	free(dir);
	return code;
}

int cmd_init(struct cmd_args *a)
{
	struct stat st;
	const char *path;

	if (a->operands.n > 1)
		return cli_usagef("init", "init takes at most one PATH, got %zu", a->operands.n);
	path = a->operands.n ? a->operands.v[0] : "himorime.yaml";
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_usagef("init", "\"%s\" is a directory; give the suite file's path",
				  path);
	if (!a->f.init.force && stat(path, &st) == 0) {
		cli_error(HMR_USAGE, "\"%s\" already exists", path);
		fprintf(stderr, "  hint: run 'himorime init --force %s' to overwrite it\n", path);
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	return write_files(path);
}
