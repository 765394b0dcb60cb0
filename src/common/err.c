/*
 * Error details: see err.h.
 */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int err_wrap(struct err *err, const char *fmt, ...)
{
	char prefix[512];
	char old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return ERR_INTERNAL;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	{
		/* Truncation is acceptable here: messages are one line for humans. */
		size_t n = strlen(prefix);
		if (n > sizeof(err->msg) - 3)
			n = sizeof(err->msg) - 3;
		memcpy(err->msg, prefix, n);
		memcpy(err->msg + n, ": ", 2);
		n += 2;
		size_t rest = strlen(old);
		if (rest > sizeof(err->msg) - 1 - n)
			rest = sizeof(err->msg) - 1 - n;
		memcpy(err->msg + n, old, rest);
		err->msg[n + rest] = '\0';
	}
	return err->code;
}

void err_clear(struct err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
