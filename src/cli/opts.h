/*
 * Command-line options, parsed the way the reference tool does: flags may come
 * before or after operands, `--flag=value` and `--flag value` both work, `--`
 * ends flag parsing. Each subcommand describes its flags in a table; the parser
 * fills the variables the table points at and returns the operands.
 */
#ifndef HIMORIME_CLI_OPTS_H
#define HIMORIME_CLI_OPTS_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>

enum opt_kind {
	OPT_FLAG,   /* bool *; no value */
	OPT_STRING, /* const char **; last one wins */
	OPT_LIST,   /* struct strlist *; repeatable, and comma-separated values split */
};

struct strlist {
	char **v;
	size_t n;
	size_t alloc;
};

struct opt {
	const char *name; /* without the leading "--" */
	char short_name;  /* 0 for none */
	enum opt_kind kind;
	void *value;
	const char *arg;  /* placeholder in usage, e.g. "FILE" */
	const char *help; /* one line */
};

void strlist_push(struct strlist *l, const char *s);
void strlist_release(struct strlist *l);

/* Parses argv[1..argc-1] (argv[0] is the subcommand's name). Operands go to
 * *operands. Unknown flags and missing values are ERR_USAGE with a message
 * naming the flag and the command. */
int opts_parse(const char *cmd, const struct opt *opts, size_t nopts, int argc, char **argv,
	       struct strlist *operands, struct err *err);

/* Parses an unsigned decimal integer in [min, max]; -1 if it is not one. */
int opts_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);

#endif
