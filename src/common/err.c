/*
 * Error details: see err.h.
 */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t err_escape(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		char esc[5] = { (char)c, 0, 0, 0, 0 };
		size_t k = 1;

		if (c == '\n' || c == '\r') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : 'r';
			k = 2;
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			k = 4;
		}
		if (n + k >= cap)
			break;
		memcpy(dst + n, esc, k);
		n += k;
	}
	dst[n] = '\0';
	return n;
}

int err_set(struct err *err, int code, const char *fmt, ...)
{
	char raw[ERR_MSG_BYTES];
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	err_escape(err->msg, sizeof(err->msg), raw);
	return code;
}

int err_wrap(struct err *err, const char *fmt, ...)
{
	char prefix[512];
	char old[ERR_MSG_BYTES];
	va_list ap;

	if (!err)
		return ERR_INTERNAL;
	va_start(ap, fmt);
	vsnprintf(old, sizeof(old), fmt, ap);
	va_end(ap);
	err_escape(prefix, sizeof(prefix), old);
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
