/*
 * Command-line options, parsed the way the reference tool does: flags may come
 * before or after operands, `--flag=value` and `--flag value` both work, `--`
 * ends flag parsing. A flag is a row of data (struct opt): its name, the kind
 * of value it takes, where that value goes, its name in help and errors, and
 * its help. The command table (commands.c) holds every row; the parser, the
 * help and the completions read the same rows.
 */
#ifndef HIMORIME_CLI_OPTS_H
#define HIMORIME_CLI_OPTS_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>

enum opt_kind {
	OPT_FLAG,   /* bool; no value */
	OPT_STRING, /* const char *; last one wins */
	OPT_LIST,   /* struct strlist; repeatable, and comma-separated values split */
};

/* The struct a flag's value lives in: the command's own flags (struct
 * cmd_args, commands.h), or the measuring session's (struct session). */
enum opt_in { OPT_IN_ARGS, OPT_IN_SESSION };

struct strlist {
	char **v;
	size_t n;
	size_t alloc;
};

struct opt {
	const char *name; /* without the leading "--" */
	char short_name;  /* 0 for none */
	enum opt_kind kind;
	enum opt_in in;
	size_t offset;	  /* of the value in its struct */
	const char *arg;  /* the value's name in help and errors: "FILE" */
	const char *dflt; /* OPT_STRING: the value when the flag is not given */
	/* What `himorime help CMD` says, lines after the first indented to
	 * the help column; NULL for a flag that help does not list (an alias). */
	const char *help;
	unsigned group; /* the session's shared flags: its group (commands.h) */
};

/* What one command line is parsed with: the command's own flags, looked up
 * first, then the shared ones; and where their values go. */
struct opts {
	const char *cmd; /* for messages */
	const struct opt *own;
	size_t n_own;
	const struct opt *shared;
	size_t n_shared;
	void *in[2]; /* by enum opt_in */
};

void strlist_push(struct strlist *l, const char *s);
void strlist_release(struct strlist *l);

/* Sets every flag's value to its default: false, NULL or dflt, an empty
 * list. */
void opts_defaults(const struct opts *o);
/* Parses argv[1..argc-1] (argv[0] is the subcommand's name). Operands go to
 * *operands. Unknown flags and missing values are ERR_USAGE with a message
 * naming the flag and the command. */
int opts_parse(const struct opts *o, int argc, char **argv, struct strlist *operands,
	       struct err *err);
/* Frees what the flags hold (their lists), in the structs o->in names
 * (rows of a struct that is NULL there are left alone). */
void opts_release(const struct opts *o);

/* Parses an unsigned decimal integer in [min, max]; -1 if it is not one. */
int opts_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);

#endif
