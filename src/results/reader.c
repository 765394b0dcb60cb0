/*
 * The primitives of reading a document field by field: each reads one typed
 * value at a key and, on anything else, fails with the JSON path of the bad
 * value (results/reader.h).
 */
#include "results/reader.h"

#include "common/alloc.h"
#include "results/results.h"
#include "results/results_internal.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

int reader_bad(struct reader *rd, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(rd->err, ERR_INVALID, "%s: %s: %s", rd->name, rd->path.buf, what);
}

size_t reader_push_key(struct reader *rd, const char *key)
{
	size_t old = rd->path.len;

	strbuf_addf(&rd->path, ".%s", key);
	return old;
}

size_t reader_push_index(struct reader *rd, size_t i)
{
	size_t old = rd->path.len;

	strbuf_addf(&rd->path, "[%zu]", i);
	return old;
}

void reader_pop(struct reader *rd, size_t old)
{
	strbuf_setlen(&rd->path, old);
}

/* A short, one-line description of a value for messages: "x", 42, an object. */
static void describe(const cJSON *v, char *buf, size_t size)
{
	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;
		size_t n = strlen(s), i, o = 0;
		bool cut = n > 40;
		if (cut)
			n = 40;
		while (cut && n && (((unsigned char)s[n]) & 0xc0) == 0x80)
			n--;
		buf[o++] = '"';
		for (i = 0; i < n && o + 8 < size; i++)
			buf[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
		if (cut) {
			memcpy(buf + o, "...", 3);
			o += 3;
		}
		buf[o++] = '"';
		buf[o] = 0;
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (!isfinite(d))
			snprintf(buf, size, "a number out of range");
		else if (d == trunc(d) && fabs(d) < 1e18)
			snprintf(buf, size, "%.0f", d); /* 2^53 reads better than 9.007e+15 */
		else
			results_format_double(d, buf, size);
	} else if (cJSON_IsTrue(v)) {
		snprintf(buf, size, "true");
	} else if (cJSON_IsFalse(v)) {
		snprintf(buf, size, "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, size, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, size, "an array");
	} else {
		snprintf(buf, size, "an object");
	}
}

int reader_expected(struct reader *rd, const char *what, const cJSON *v)
{
	char got[64];

	describe(v, got, sizeof(got));
	return reader_bad(rd, "expected %s, got %s", what, got);
}

/* The value of key, or NULL when missing or null. */
const cJSON *reader_field(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNull(v) ? NULL : v;
}

int reader_str_value(struct reader *rd, const cJSON *v, size_t max, char **out)
{
	if (!cJSON_IsString(v))
		return reader_expected(rd, "a string", v);
	if (strlen(v->valuestring) > max)
		return reader_bad(rd, "string longer than %zu bytes", max);
	free(*out);
	*out = xstrdup(v->valuestring);
	return 0;
}

int reader_get_str_max(struct reader *rd, const cJSON *obj, const char *key, size_t max, char **out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc;

	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	rc = reader_str_value(rd, v, max, out);
	reader_pop(rd, old);
	return rc;
}

int reader_get_str(struct reader *rd, const cJSON *obj, const char *key, char **out)
{
	return reader_get_str_max(rd, obj, key, RESULTS_MAX_STRING_BYTES, out);
}

/* A string into a fixed char array (reasons of comparisons and budgets). */
int reader_get_chars(struct reader *rd, const cJSON *obj, const char *key, char *out, size_t size)
{
	char *s = NULL;
	int rc = reader_get_str_max(rd, obj, key, size - 1, &s);

	if (!rc && s)
		snprintf(out, size, "%s", s);
	free(s);
	return rc;
}

/* One of names[], into *out; missing or null keeps *out. */
int reader_get_name(struct reader *rd, const cJSON *obj, const char *key, const char *const *names,
		    size_t n, int *out)
{
	const cJSON *v = reader_field(obj, key);
	struct strbuf list;
	size_t old, i;
	int idx, rc = 0;

	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	idx = cJSON_IsString(v) ? results_name_index(names, n, v->valuestring) : -1;
	if (idx >= 0) {
		*out = idx;
		goto done;
	}
	strbuf_init(&list, 0);
	for (i = 0; i < n; i++)
		strbuf_addf(&list, "%s\"%s\"", i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
	rc = reader_expected(rd, list.buf, v);
	strbuf_release(&list);
done:
	reader_pop(rd, old);
	return rc;
}

int reader_get_bool(struct reader *rd, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc = 0;

	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	if (cJSON_IsBool(v))
		*out = cJSON_IsTrue(v);
	else
		rc = reader_expected(rd, "true or false", v);
	reader_pop(rd, old);
	return rc;
}

int reader_num_value(struct reader *rd, const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return reader_expected(rd, "a finite number", v);
	*out = v->valuedouble;
	return 0;
}

/* A finite number; missing or null leaves *has false. */
int reader_get_opt_num(struct reader *rd, const cJSON *obj, const char *key, bool *has, double *out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc;

	*has = false;
	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	rc = reader_num_value(rd, v, out);
	reader_pop(rd, old);
	*has = !rc;
	return rc;
}

int reader_get_num(struct reader *rd, const cJSON *obj, const char *key, double *out)
{
	bool has;

	return reader_get_opt_num(rd, obj, key, &has, out);
}

int reader_uint_value(struct reader *rd, const cJSON *v, double max, uint64_t *out)
{
	char what[80];

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= max &&
	    v->valuedouble == trunc(v->valuedouble)) {
		*out = (uint64_t)v->valuedouble;
		return 0;
	}
	snprintf(what, sizeof(what), "an integer from 0 to %.0f", max);
	return reader_expected(rd, what, v);
}

int reader_get_uint_max(struct reader *rd, const cJSON *obj, const char *key, double max,
			uint64_t *out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc;

	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	rc = reader_uint_value(rd, v, max, out);
	reader_pop(rd, old);
	return rc;
}

int reader_get_uint(struct reader *rd, const cJSON *obj, const char *key, uint64_t *out)
{
	return reader_get_uint_max(rd, obj, key, RESULTS_MAX_INTEGER, out);
}

int reader_get_unsigned(struct reader *rd, const cJSON *obj, const char *key, unsigned *out)
{
	uint64_t v = *out;
	int rc = reader_get_uint_max(rd, obj, key, UINT_MAX, &v);

	*out = (unsigned)v;
	return rc;
}

int reader_get_int(struct reader *rd, const cJSON *obj, const char *key, bool *has, int *out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc = 0;

	if (has)
		*has = false;
	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	if (cJSON_IsNumber(v) && v->valuedouble >= INT_MIN && v->valuedouble <= INT_MAX &&
	    v->valuedouble == trunc(v->valuedouble)) {
		*out = (int)v->valuedouble;
		if (has)
			*has = true;
	} else {
		rc = reader_expected(rd, "an integer from -2147483648 to 2147483647", v);
	}
	reader_pop(rd, old);
	return rc;
}

int reader_get_time(struct reader *rd, const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc = 0;

	if (!v)
		return 0;
	old = reader_push_key(rd, key);
	if (!cJSON_IsString(v) || results_parse_time(v->valuestring, out) < 0)
		rc = reader_expected(rd, "an RFC 3339 UTC time such as \"2026-01-02T03:04:05.5Z\"",
				     v);
	reader_pop(rd, old);
	return rc;
}

int reader_get_metric_name(struct reader *rd, const cJSON *obj, const char *key, enum metric *out)
{
	const char *names[METRIC__COUNT];
	int m = (int)*out;

	for (int i = 0; i < METRIC__COUNT; i++)
		names[i] = metric_info((enum metric)i)->name;
	if (reader_get_name(rd, obj, key, names, METRIC__COUNT, &m))
		return -1;
	*out = (enum metric)m;
	return 0;
}

/* A field we write but derive from others: when present it must say what we
 * would write. */
int reader_check_const(struct reader *rd, const cJSON *obj, const char *key, const char *want)
{
	const char *names[1] = { want };
	int dummy = 0;

	return reader_get_name(rd, obj, key, names, 1, &dummy);
}

/* The object at key: *out NULL when missing or null. */
int reader_get_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = reader_field(obj, key);
	size_t old;
	int rc = 0;

	*out = NULL;
	if (!v)
		return 0;
	if (cJSON_IsObject(v)) {
		*out = v;
		return 0;
	}
	old = reader_push_key(rd, key);
	rc = reader_expected(rd, "an object", v);
	reader_pop(rd, old);
	return rc;
}

/* Enters the object at key: 1 with *o set and the key pushed (pop it with
 * *old), 0 when it is missing or null, -1 on an error. */
int reader_enter_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **o,
			size_t *old)
{
	if (reader_get_object(rd, obj, key, o))
		return -1;
	if (!*o)
		return 0;
	*old = reader_push_key(rd, key);
	return 1;
}

int reader_get_array(struct reader *rd, const cJSON *obj, const char *key, size_t max,
		     const cJSON **out, size_t *n)
{
	const cJSON *v = reader_field(obj, key), *c;
	size_t old = reader_push_key(rd, key);
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (v && !cJSON_IsArray(v)) {
		rc = reader_expected(rd, "an array", v);
	} else if (v) {
		for (c = v->child; c; c = c->next)
			(*n)++;
		if (*n > max)
			rc = reader_bad(rd, "more than %zu items", max);
		else
			*out = v;
	}
	reader_pop(rd, old);
	return rc;
}
