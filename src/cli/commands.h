/*
 * The command table: one row per subcommand (commands.c) with everything said
 * about it once: its name and one-line summary, the text of `himorime help
 * NAME` around its flags, its flags (struct opt rows, with their help), and
 * the setup it needs. The parser, `himorime help`, `himorime help NAME` and
 * the shell completions all read these rows, so a flag cannot be parsed and
 * undocumented, or documented and refused.
 *
 * A command's flags land in its member of struct cmd_args; the measuring
 * commands (setup CMD_MEASURE) also take the session's shared flags, in
 * groups, and get a started session: flags checked, suites loaded
 * (session.h). main() finds the row and calls cli_run.
 */
#ifndef HIMORIME_CLI_COMMANDS_H
#define HIMORIME_CLI_COMMANDS_H

#include "cli/cli.h"
#include "cli/opts.h"
#include "results/results.h"

#include <stdbool.h>
#include <stddef.h>

struct session;

/* Each command's own flags, as parsed (opts.h): strings are NULL, or the
 * row's default, when not given. */
struct init_flags {
	bool force;
};
struct list_flags {
	const char *format, *filter;
	struct strlist tags, skip_tags;
};
struct compare_flags {
	const char *against, *head, *suite_from;
	bool merge_base;
};
struct calibrate_flags {
	const char *against, *suite_from;
};
struct publish_flags {
	const char *comment; /* "true" or "false" */
	const char *accept_label;
	const char *verdict_as; /* status, check or both */
	bool dry_run;
};
struct ci_flags {
	const char *against, *suite_from;
	struct publish_flags publish;
};
struct comment_flags {
	const char *event, *verdict_as;
	bool dry_run, hide_footer;
};
struct report_flags {
	struct cli_output out;
	bool check; /* exit with the stored code, not 0 */
};
struct sweep_flags {
	const char *every, *max_commits, *shard, *reference, *history_ref;
	bool first_parent, force;
};
struct history_flags {
	const char *benchmark, *metric, *format, *ref, *output, *keep;
	bool no_color;
};
struct merge_flags {
	const char *output, *ref;
	bool append;
};
struct bisect_flags {
	const char *good, *bad, *metric;
};

struct cmd_args {
	struct strlist operands; /* a measuring command's are the session's */
	union {
		struct init_flags init;
		struct list_flags list;
		struct compare_flags compare;
		struct calibrate_flags calibrate;
		struct ci_flags ci;
		struct comment_flags comment;
		struct report_flags report;
		struct sweep_flags sweep;
		struct history_flags history;
		struct merge_flags merge;
		struct bisect_flags bisect;
	} f;
};

enum cmd_setup {
	CMD_PLAIN,   /* its flags parsed; run(args) */
	CMD_MEASURE, /* the shared flags too, a started session; measure(s, args) */
};

/* The session's shared flags come in groups; a measuring command takes the
 * groups its row lists (the others are refused, or have no effect: see
 * session.c and each command). */
enum flag_group {
	FLAGS_SELECT = 1 << 0,	 /* --filter, --tag, --skip-tag */
	FLAGS_REPORT = 1 << 1,	 /* --format, --output, --section, --summary */
	FLAGS_RUNS = 1 << 2,	 /* --seed, --runs, --warmup */
	FLAGS_BUDGET = 1 << 3,	 /* --max-time, --max-total-time */
	FLAGS_GATE = 1 << 4,	 /* --fail-on-inconclusive */
	FLAGS_TERMINAL = 1 << 5, /* --quiet, --verbose */
	FLAGS_COLOUR = 1 << 6,	 /* --no-color */
	FLAGS_SCHEDULE = 1 << 7, /* --schedule */
};

struct cmd {
	const char *name;
	const char *summary;	 /* one line for `himorime help` */
	const char *synopsis;	 /* after "usage: himorime ", the usage line(s) */
	const char *about;	 /* the paragraphs before the flags */
	const struct opt *flags; /* its own flags, in the order help lists them */
	size_t n_flags;
	size_t help_column; /* where the flags' help starts */
	const char *notes;  /* the paragraphs after the flags (exit statuses), or NULL */
	enum cmd_setup setup;
	/* CMD_MEASURE: the command whose help lists the flags this one shares
	 * with it (NULL: none, this help lists them), the groups of shared
	 * flags it takes, the document it fills, and how many operands come
	 * before the PATHs (sweep's REV_RANGE). */
	const char *like;
	unsigned groups;
	enum results_mode mode;
	size_t leading;
	/* The action execs `ci`, so it writes the exit-code output of
	 * GITHUB_OUTPUT itself however it ends (cli_exit_code_output). */
	bool records_exit_code;
	int (*run)(struct cmd_args *a);			       /* CMD_PLAIN */
	int (*measure)(struct session *s, struct cmd_args *a); /* CMD_MEASURE */
};

/* The commands, one file each (cmd_<name>.c). */
int cmd_help(struct cmd_args *a);
int cmd_version(struct cmd_args *a);
int cmd_completion(struct cmd_args *a);
int cmd_init(struct cmd_args *a);
int cmd_validate(struct cmd_args *a);
int cmd_list(struct cmd_args *a);
int cmd_comment(struct cmd_args *a);
int cmd_report(struct cmd_args *a);
int cmd_history(struct cmd_args *a);
int cmd_merge(struct cmd_args *a);
int cmd_run(struct session *s, struct cmd_args *a);
int cmd_compare(struct session *s, struct cmd_args *a);
int cmd_calibrate(struct session *s, struct cmd_args *a);
int cmd_ci(struct session *s, struct cmd_args *a);
int cmd_sweep(struct session *s, struct cmd_args *a);
int cmd_bisect(struct session *s, struct cmd_args *a);

const struct cmd *cli_commands(size_t *count);
const struct cmd *cli_find(const char *name);

/* Parses the flags of c (and with a session, the shared ones of its groups)
 * into a and s, each value first set to its default; operands go to
 * *operands. ERR_USAGE with the flag and the command named. */
int cli_parse(const struct cmd *c, struct cmd_args *a, struct session *s, int argc, char **argv,
	      struct strlist *operands, struct err *err);
/* Frees what parsing c's own flags into a left there. */
void cli_args_release(const struct cmd *c, struct cmd_args *a);
/* Runs the command of argv[0] (its row c) with its setup: parses, starts the
 * session for a measuring command, runs, releases. Returns the exit code. */
int cli_run(const struct cmd *c, int argc, char **argv);

/* The rows `himorime help NAME` lists, in order: c's own flags and the
 * shared ones of its groups, less those that the help of c->like (and its
 * own like) lists already. Free the array (not the rows). */
const struct opt **cli_help_flags(const struct cmd *c, size_t *n);
/* The flags the help of c->like lists (with its own like's) that c does not
 * take: what "besides those of 'himorime help LIKE'" must except. */
const struct opt **cli_help_except(const struct cmd *c, size_t *n);
/* Every flag c takes that help lists somewhere, for completions. */
const struct opt **cli_flags(const struct cmd *c, size_t *n);

#endif
