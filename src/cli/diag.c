/*
 * How the CLI says that something went wrong: an error line with its
 * diagnostic code (cli.h names every code), a usage error with the hint to
 * the command's help, and the last line, "himorime: exit N: why", of every
 * run that does not end with 0. The layers below return an err; cli_fail
 * turns it into all of that.
 */
#include "cli/cli.h"

#include "common/alloc.h"

#include <stdarg.h>
#include <stdio.h>

#include "common/banned.h"

/* The code printed for an error that ends with each exit status. */
static const char *const diag_for_exit[] = {
	[EXIT_OK] = "",
	[EXIT_FAILED] = "",
	[EXIT_CONFIG] = HMR_INVALID,
	[EXIT_USAGE] = HMR_USAGE,
	[EXIT_EXEC] = HMR_EXEC,
	[EXIT_INTERNAL] = HMR_INTERNAL,
	[EXIT_METRIC] = HMR_METRIC,
};

/* The exit status of an err code. */
static int exit_for(int err_code)
{
	switch ((enum err_code)err_code) {
	case ERR_OK:
		return EXIT_OK;
	case ERR_INVALID:
		return EXIT_CONFIG;
	case ERR_USAGE:
		return EXIT_USAGE;
	case ERR_EXEC:
	case ERR_INTERRUPTED:
		return EXIT_EXEC;
	case ERR_INTERNAL:
		return EXIT_INTERNAL;
	case ERR_METRIC:
		return EXIT_METRIC;
	}
	return EXIT_INTERNAL;
}

const char *cli_diag_code(int exit_code)
{
	if (exit_code < 0 || (size_t)exit_code >= ARRAY_SIZE(diag_for_exit))
		return "";
	return diag_for_exit[exit_code];
}

static void verror(const char *code, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("himorime: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " [%s]\n", code);
}

void cli_error(const char *code, const char *fmt, ...)
{
	va_list ap;

	if (cli_reader_gone())
		return;
	va_start(ap, fmt);
	verror(code, fmt, ap);
	va_end(ap);
}

int cli_exit(int exit_code, const char *fmt, ...)
{
	va_list ap;

	if (cli_reader_gone())
		return exit_code;
	fflush(stdout);
	fprintf(stderr, "himorime: exit %d: ", exit_code);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return exit_code;
}

int cli_fail(const struct err *err)
{
	int code = exit_for(err->code);

	cli_error(cli_diag_code(code), "%s", err->msg);
	switch (code) {
	case EXIT_USAGE:
		return cli_exit(code, "invalid command line");
	case EXIT_CONFIG:
		return cli_exit(code, "invalid input");
	case EXIT_METRIC:
		return cli_exit(code, "a metric could not be measured");
	case EXIT_INTERNAL:
		return cli_exit(code, "internal error");
	default:
		return cli_exit(code,
				err->code == ERR_INTERRUPTED ? "interrupted" : "execution failed");
	}
}

static int usage_exit(const char *cmd)
{
	if (!cli_reader_gone())
		fprintf(stderr, "  hint: run 'himorime help %s' for its flags\n", cmd);
	return cli_exit(EXIT_USAGE, "invalid command line");
}

int cli_usage_error(const char *cmd, const struct err *err)
{
	cli_error(HMR_USAGE, "%s", err->msg);
	return usage_exit(cmd);
}

int cli_usagef(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (!cli_reader_gone()) {
		va_start(ap, fmt);
		verror(HMR_USAGE, fmt, ap);
		va_end(ap);
	}
	return usage_exit(cmd);
}
