/*
 * The command-line layer: the only code that prints to the terminal or
 * decides the process's exit status. Each subcommand is one row of the table
 * in main.c and one file cmd_<name>.c; it returns an exit code.
 */
#ifndef HIMORIME_CLI_CLI_H
#define HIMORIME_CLI_CLI_H

#include "common/err.h"
#include "common/types.h"
#include "render/render.h"

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses, stable and shared with the reference tool (README.md). One
 * enum, here: the layers below report outcomes and errors, and the CLI alone
 * turns them into these numbers (cli_exit_for, cli_exit_for_outcome). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_FAILED = 1,   /* budget broken, gated regression, inconclusive with the flag */
	EXIT_CONFIG = 2,   /* invalid suite; nothing executed */
	EXIT_USAGE = 3,	   /* bad command line */
	EXIT_EXEC = 4,	   /* execution, git, I/O failure, interruption */
	EXIT_INTERNAL = 5, /* a bug */
	EXIT_METRIC = 6,   /* a metric could not be measured */
};

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for `himorime help` */
	const char *usage;   /* the full text of `himorime help NAME` */
};

const struct cmd *cli_commands(size_t *count);
const struct cmd *cli_find(const char *name);

/* Maps an err code to its exit status. */
int cli_exit_for(int err_code);
/* Summarizes doc (runner_summarize), stores the exit status of its outcome in
 * doc->summary.exit_code and returns it. */
int cli_summarize(struct results *doc, bool fail_on_inconclusive);
/* The diagnostic code for an exit status: "HMR2001" and so on; "" for 0 and 1. */
const char *cli_diag_code(int exit_code);
/* Prints "himorime: exit N: <why>" as the last line of a non-zero run and
 * returns N. */
int cli_exit(int exit_code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints an error message with its diagnostic code, then the last line;
 * returns the exit status for err->code. */
int cli_fail(const struct err *err);

/* Called first in main(): marks the process non-dumpable and takes
 * GITHUB_TOKEN, INPUT_GITHUB-TOKEN and GH_TOKEN out of the environment
 * (overwritten in place, then unset). See secrets.c. */
void cli_secrets_take(void);
/* The token taken at start: GITHUB_TOKEN if non-empty, else
 * INPUT_GITHUB-TOKEN, else NULL. */
const char *cli_token(void);

/* GITHUB_ACTIONS is "true". */
bool cli_in_actions(void);
/* Prints text that quotes untrusted data (names, output, a pull request's
 * report) on stdout: in GitHub Actions, or with `quote`, wrapped in
 * ::stop-commands::<random token> ... ::<token>:: so that no line of it is
 * obeyed as a workflow command. -1 when stdout cannot be written. */
int cli_print_untrusted(const char *text, bool quote);
/* Whether a write to stdout met EPIPE (SIGPIPE is ignored): the reader went
 * away, so cli_exit and cli_fail clean up quietly, with no message. */
bool cli_reader_gone(void);

struct strlist;
struct suite;

/* The suites named by PATH operands, loaded and checked. */
struct cli_suites {
	struct suite **v;
	size_t count;
};

/* Loads every suite file the operands name (files, or directories with
 * himorime.yaml and *.himorime.yaml; default himorime.yaml). On any problem
 * prints all of them and the last line, and returns EXIT_CONFIG with *out
 * empty; else EXIT_OK. */
int cli_load_suites(const struct strlist *operands, struct cli_suites *out);
void cli_suites_release(struct cli_suites *s);
/* Prints a usage error with a hint naming `himorime help CMD`; returns 3. */
int cli_usage_error(const char *cmd, const struct err *err);
/* Where a rendering goes; run, compare, ci and report share it (the flags
 * --format, --output, --section, --summary, --no-color). */
struct cli_output {
	const char *format;  /* a render_format name */
	const char *output;  /* NULL: standard output; else written atomically */
	const char *section; /* with markdown and output: replace only this section */
	const char *summary; /* NULL, or a file the github rendering is appended to */
	bool no_color;	     /* colour is also off without a terminal or with NO_COLOR */
	/* Standard output wrapped in ::stop-commands:: (GitHub Actions). */
	bool quote_workflow_commands;
};

#define CLI_OUTPUT_INIT                                                                            \
	{                                                                                          \
		"table", NULL, NULL, NULL, false, false                                            \
	}

/* Whether standard output takes ANSI colour: a terminal, NO_COLOR unset or
 * empty, and no --no-color (`no_color`). */
bool cli_colour(bool no_color);

/* ERR_USAGE for an unknown format, a bad section name, or --section without
 * --format markdown and --output; sets *format. */
int cli_output_check(const struct cli_output *o, enum render_format *format, struct err *err);
/* Renders `r` and writes it where `o` says; ERR_EXEC when writing fails (a
 * file written before keeps its previous content), ERR_USAGE as above. */
int cli_output_write(const struct results *r, const struct cli_output *o, struct err *err);

int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_ci(int argc, char **argv);
int cmd_comment(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_bisect(int argc, char **argv);

#endif
