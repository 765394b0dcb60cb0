/*
 * Errors. Functions return 0 or a negative `enum err_code`; the details go in
 * a caller-owned `struct err` passed last. There is no global "last error".
 * The CLI layer maps codes to exit statuses; nothing below it exits.
 */
#ifndef HIMORIME_COMMON_ERR_H
#define HIMORIME_COMMON_ERR_H

#include <stddef.h>

enum err_code {
	ERR_OK = 0,
	ERR_INVALID = -1,     /* bad input: suite, report, event payload (exit 2) */
	ERR_USAGE = -2,	      /* bad command line (exit 3) */
	ERR_EXEC = -3,	      /* a command, hook, build, git or I/O step failed (exit 4) */
	ERR_INTERNAL = -4,    /* a bug (exit 5) */
	ERR_METRIC = -5,      /* a metric could not be measured (exit 6) */
	ERR_INTERRUPTED = -6, /* SIGINT/SIGTERM (exit 4) */
};

#define ERR_MSG_BYTES 1024

struct err {
	int code;
	char msg[ERR_MSG_BYTES];
};

#define ERR_INIT                                                                                   \
	{                                                                                          \
		.code = ERR_OK, .msg = ""                                                          \
	}

/* Sets code and message; returns code so that `return err_set(...)` reads well.
 * The message stays one line: line breaks and control characters in it (from
 * quoted names, paths or output) are written as \n, \r and \xHH. */
int err_set(struct err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with "what: " (escaped as err_set does) and
 * keeps the code. */
int err_wrap(struct err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void err_clear(struct err *err);
/* Copies src into dst (cap bytes with the NUL, cut there), writing a line
 * break as "\n", a carriage return as "\r" and any other control character
 * but tab as "\xHH": text quoted from untrusted input (names, paths, a
 * command's output) stays on one line, which cannot start a workflow command
 * in a CI log. Returns the length written. */
size_t err_escape(char *dst, size_t cap, const char *src);

#endif
