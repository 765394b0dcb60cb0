/*
 * `himorime validate [PATH...]`: loads every suite file the operands name,
 * prints one "ok" line per good file, or every problem of every file and
 * exits 2. Also home of the suite-file collection shared by list (and later
 * run, compare, ci): operands are files or directories (a directory gives its
 * himorime.yaml and every *.himorime.yaml, sorted); the default is
 * himorime.yaml.
 */
#include "cli/commands.h"

#include "cli/opts.h"
#include "common/alloc.h"
#include "common/strbuf.h"
#include "suite/suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* Adds the suite files of a directory; returns how many. */
static size_t add_dir(const char *dir, struct strlist *files)
{
	struct strlist found = { .v = NULL, .n = 0, .alloc = 0 };
	struct dirent *e;
	struct stat st;
	size_t i, n = 0;
	DIR *d = opendir(dir);
	char *main_file = join(dir, "himorime.yaml");

	if (stat(main_file, &st) == 0 && S_ISREG(st.st_mode)) {
		strlist_push(files, main_file);
		n++;
	}
	free(main_file);
	if (!d)
		return n;
	while ((e = readdir(d)))
		if (has_suffix(e->d_name, ".himorime.yaml") && e->d_name[0] != '.')
			strlist_push(&found, e->d_name);
	closedir(d);
	if (found.n)
		qsort(found.v, found.n, sizeof(*found.v), cmp_str);
	for (i = 0; i < found.n; i++) {
		char *p = join(dir, found.v[i]);
		strlist_push(files, p);
		free(p);
	}
	n += found.n;
	strlist_release(&found);
	return n;
}

/* Every part may quote the suite (a pull request's file in CI): one line. */
static const char *oneline(char *buf, size_t cap, const char *text)
{
	err_escape(buf, cap, text);
	return buf;
}

static void print_diag(const struct suite_diag *d)
{
	char buf[2048];

	if (d->line)
		fprintf(stderr, "%s:%u:%u: ", oneline(buf, sizeof(buf), d->file), d->line,
			d->column);
	else
		fprintf(stderr, "%s: ", oneline(buf, sizeof(buf), d->file));
	if (*d->path)
		fprintf(stderr, "%s: ", oneline(buf, sizeof(buf), d->path));
	fprintf(stderr, "%s [" HMR_INVALID "]\n", oneline(buf, sizeof(buf), d->message));
	if (d->hint)
		fprintf(stderr, "  hint: %s\n", oneline(buf, sizeof(buf), d->hint));
}

void cli_suites_release(struct cli_suites *s)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		suite_free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->count = 0;
}

/* Whether the default suite file is missing altogether (not merely
 * invalid): the first run in a repository, which `init` is for. */
static bool no_default_suite(void)
{
	struct stat st;

	return lstat("himorime.yaml", &st) < 0 && errno == ENOENT;
}

int cli_load_suites(const struct strlist *operands, struct cli_suites *out)
{
	struct strlist files = { .v = NULL, .n = 0, .alloc = 0 };
	struct suite_diags diags;
	size_t i, empty_dirs = 0;
	int code = EXIT_OK;

	memset(out, 0, sizeof(*out));
	suite_diags_init(&diags);
	if (!operands->n)
		strlist_push(&files, "himorime.yaml");
	for (i = 0; i < operands->n; i++) {
		struct stat st;
		const char *op = operands->v[i];
		if (stat(op, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!add_dir(op, &files)) {
				fprintf(stderr,
					"%s: expected a directory with himorime.yaml or "
					"*.himorime.yaml files, found none [" HMR_INVALID "]\n",
					op);
				empty_dirs++;
			}
		} else {
			strlist_push(&files, op);
		}
	}
	out->v = xcalloc(files.n ? files.n : 1, sizeof(*out->v));
	for (i = 0; i < files.n; i++) {
		struct suite *s;
		struct err err = ERR_INIT;
		if (suite_load(files.v[i], &s, &diags, &err) == 0)
			out->v[out->count++] = s;
	}
	for (i = 0; i < diags.count; i++)
		print_diag(&diags.v[i]);
	if (!operands->n && diags.count && no_default_suite())
		fprintf(stderr, "  hint: no himorime.yaml here: 'himorime init' writes one (with a "
				"build step for the build system it finds), or name a suite file "
				"or directory\n");
	if (diags.files_with_problems || empty_dirs) {
		size_t problems = diags.count + empty_dirs;
		size_t nfiles = diags.files_with_problems + empty_dirs;
		code = cli_exit(EXIT_CONFIG, "%zu problem%s in %zu suite file%s", problems,
				problems == 1 ? "" : "s", nfiles, nfiles == 1 ? "" : "s");
		cli_suites_release(out);
	}
	suite_diags_release(&diags);
	strlist_release(&files);
	return code;
}

int cmd_validate(struct cmd_args *a)
{
	struct cli_suites suites;
	struct strbuf out;
	size_t i, j, commands;
	int code;

	code = cli_load_suites(&a->operands, &suites);
	if (code != EXIT_OK)
		return code;
	strbuf_init(&out, 0);
	for (i = 0; i < suites.count; i++) {
		const struct suite *s = suites.v[i];
		for (commands = 0, j = 0; j < s->benchmark_count; j++)
			commands += s->benchmarks[j].command_count;
		strbuf_addf(&out, "%s: ok (%zu benchmark%s, %zu command%s)\n", s->path,
			    s->benchmark_count, s->benchmark_count == 1 ? "" : "s", commands,
			    commands == 1 ? "" : "s");
	}
	/* A file name comes from the pull request: in Actions, quoted. */
	if (cli_print_untrusted(out.buf, false) < 0)
		code = cli_exit(EXIT_EXEC, "cannot write to standard output");
	strbuf_release(&out);
	cli_suites_release(&suites);
	return code;
}
