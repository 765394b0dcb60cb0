/*
 * The command-line layer: the only code that prints to the terminal or
 * decides the process's exit status. Each subcommand is one row of the table
 * in commands.c and one file cmd_<name>.c; it returns an exit code. This
 * header holds what the commands share: the exit statuses and diagnostic
 * codes and the functions that print errors (diag.c), where a report goes
 * (output.c), GitHub Actions' quoting, the token, and loading suites.
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
 * turns them into these numbers (cli_fail, cli_summarize). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_FAILED = 1,   /* budget broken, gated regression, inconclusive with the flag */
	EXIT_CONFIG = 2,   /* invalid suite; nothing executed */
	EXIT_USAGE = 3,	   /* bad command line */
	EXIT_EXEC = 4,	   /* execution, git, I/O failure, interruption */
	EXIT_INTERNAL = 5, /* a bug */
	EXIT_METRIC = 6,   /* a metric could not be measured */
};

/* The diagnostic codes printed in brackets after an error message, each
 * spelled here and nowhere else in src/ (docs/design.md#exit-statuses-and-
 * diagnostic-codes lists them; tests/cli/test_lint.py checks both ways). */
#define HMR_INVALID   "HMR2001" /* exit 2: a suite, report or event that is not valid */
#define HMR_USAGE     "HMR3001" /* exit 3: the command line */
#define HMR_EXEC      "HMR4001" /* exit 4: a command, build, git or I/O step failed */
#define HMR_UNWRITTEN "HMR4003" /* exit 4: the report could not be written */
#define HMR_INTERNAL  "HMR5001" /* exit 5: a bug */
#define HMR_METRIC    "HMR6001" /* exit 6: a metric could not be measured */

/* Summarizes doc (runner_summarize), stores the exit status of its outcome in
 * doc->summary.exit_code and returns it. */
int cli_summarize(struct results *doc, bool fail_on_inconclusive);
/* The diagnostic code of an error that ends with this exit status:
 * HMR_INVALID and so on; "" for 0 and 1. */
const char *cli_diag_code(int exit_code);
/* "himorime: error: <message> [code]" on stderr (nothing once the reader of
 * stdout went away: see cli_reader_gone). */
void cli_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
/* Prints a usage error with a hint naming `himorime help CMD`, and the last
 * line; returns 3. */
int cli_usage_error(const char *cmd, const struct err *err);
int cli_usagef(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
		.format = "table", .output = NULL, .section = NULL, .summary = NULL                \
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

/* GitHub Actions' GITHUB_OUTPUT for `ci`, which the action execs, so that no
 * shell is left above it to record its exit code (docs/github-actions.md,
 * "Threat model"): cli_outputs_tried marks that ci appended its outputs
 * (or failed to), cli_exit_code_output writes exit-code=CODE at the end
 * unless that happened or the file has one already. */
void cli_outputs_tried(void);
void cli_exit_code_output(int code);

#endif
