/*
 * The strict JSON parser of results/json.h: what cJSON does not check is
 * checked before cJSON parses, and what it keeps (duplicate keys, trailing
 * text) is refused after.
 */
#include "results/json.h"

#include "common/alloc.h"
#include "results/reader.h"
#include "results/results.h"
#include "results/results_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define MAX_NUMBER_CHARS 63 /* cJSON 1.7.15 copies at most 63 into its buffer */

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* cJSON keeps duplicate keys and lookups find the first: a document where
 * two readers could see different values is refused. */
static int check_duplicates(struct reader *rd, const cJSON *v)
{
	const cJSON *c;
	size_t n = 0, i = 0;
	int rc = 0;

	for (c = v->child; c; c = c->next)
		n++;
	if (cJSON_IsObject(v) && n > 1) {
		const char **keys = xcalloc(n, sizeof(*keys));
		for (c = v->child; c; c = c->next)
			keys[i++] = c->string;
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (i = 1; !rc && i < n; i++)
			if (!strcmp(keys[i - 1], keys[i]))
				rc = reader_bad(rd, "duplicate key \"%.64s\"", keys[i]);
		free((void *)keys);
	}
	i = 0;
	for (c = v->child; !rc && c; c = c->next, i++) {
		size_t old = cJSON_IsObject(v) ? reader_push_key(rd, c->string)
					       : reader_push_index(rd, i);
		rc = check_duplicates(rd, c);
		reader_pop(rd, old);
	}
	return rc;
}

static void line_col(const char *data, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int bad_at(struct reader *rd, const char *data, size_t off, const char *what)
{
	size_t line, col;

	line_col(data, off, &line, &col);
	return err_set(rd->err, ERR_INVALID, "%s:%zu:%zu: %s", rd->name, line, col, what);
}

/* Strict JSON number syntax at p; returns its length or 0. */
static size_t number_len(const char *p, size_t n)
{
	size_t i = 0;

	if (i < n && p[i] == '-')
		i++;
	if (i < n && p[i] == '0') {
		i++;
	} else if (i < n && p[i] >= '1' && p[i] <= '9') {
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
	} else {
		return 0;
	}
	if (i < n && p[i] == '.') {
		size_t start = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		size_t start;
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		start = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	if (i < n && (p[i] == '.' || p[i] == 'e' || p[i] == 'E' || p[i] == '+' || p[i] == '-' ||
		      (p[i] >= '0' && p[i] <= '9')))
		return 0;
	return i;
}

/* What cJSON does not check: UTF-8, NUL bytes, control characters and \u0000
 * in strings, strict numbers, nesting depth. Structure is left to cJSON. */
static int scan(struct reader *rd, const char *data, size_t len, size_t max_values)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t i = 0, depth = 0, values = 0;
	bool in_string = false;

	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		return bad_at(rd, data, 0, "starts with a byte order mark; expected plain UTF-8");
	while (i < len) {
		size_t l;
		if (!p[i])
			return bad_at(rd, data, i, "NUL byte");
		l = results_utf8_len(p + i, len - i);
		if (!l)
			return bad_at(rd, data, i, "invalid UTF-8");
		if (in_string) {
			if (p[i] < 0x20)
				return bad_at(rd, data, i, "control character in a string");
			if (p[i] == '\\' && i + 1 < len) {
				if (p[i + 1] == 'u' && i + 5 < len &&
				    !memcmp(data + i + 2, "0000", 4))
					return bad_at(rd, data, i, "\\u0000 in a string");
				l = 2;
			} else if (p[i] == '"') {
				in_string = false;
			}
		} else if (strchr("\"{[tfn-0123456789", p[i]) && ++values > max_values) {
			char what[64];
			snprintf(what, sizeof(what), "more than %zu values", max_values);
			return bad_at(rd, data, i, what);
		} else if (p[i] == '"') {
			in_string = true;
		} else if (p[i] == '{' || p[i] == '[') {
			if (++depth > RESULTS_MAX_DEPTH)
				return bad_at(rd, data, i, "nested deeper than 64 levels");
		} else if (p[i] == '}' || p[i] == ']') {
			if (depth)
				depth--;
		} else if (p[i] == '-' || (p[i] >= '0' && p[i] <= '9')) {
			l = number_len(data + i, len - i);
			if (!l)
				return bad_at(rd, data, i, "malformed number");
			if (l > MAX_NUMBER_CHARS)
				return bad_at(rd, data, i, "number longer than 63 characters");
		}
		i += l;
	}
	if (in_string || depth)
		return bad_at(rd, data, len, "unexpected end of the document");
	return 0;
}

int results_json_parse(const char *data, size_t len, const char *name, size_t max_values,
		       cJSON **out, struct err *err)
{
	struct reader rd = { .name = name, .path = STRBUF_INIT, .err = err };
	const char *end = NULL;
	cJSON *root = NULL;
	size_t off;
	int rc;

	*out = NULL;
	strbuf_init(&rd.path, 4096);
	strbuf_adds(&rd.path, "$");
	rc = scan(&rd, data, len, max_values);
	if (rc)
		goto done;
	root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (!root) {
		off = end && end >= data && end <= data + len ? (size_t)(end - data) : 0;
		rc = bad_at(&rd, data, off, len ? "invalid JSON" : "empty document");
		goto done;
	}
	off = (size_t)(end - data);
	while (off < len &&
	       (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r'))
		off++;
	if (off < len) {
		rc = bad_at(&rd, data, off, "unexpected text after the document");
		goto done;
	}
	if (check_duplicates(&rd, root)) {
		rc = ERR_INVALID;
		goto done;
	}
	*out = root;
	root = NULL;
done:
	cJSON_Delete(root);
	strbuf_release(&rd.path);
	return rc;
}
