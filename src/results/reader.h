/*
 * Private to src/results: reading typed values out of a cJSON tree for the
 * results reader and the strict parser. A `struct reader` carries the
 * document's name and the JSON path of the value being read ("$.suites[0]"),
 * so that every error says where: "<name>: <path>: expected ..., got ...".
 * Each getter returns 0 (a missing or null field leaves *out as it was, unless
 * said otherwise) or ERR_INVALID with the message set.
 */
#ifndef HIMORIME_RESULTS_READER_H
#define HIMORIME_RESULTS_READER_H

#include "common/err.h"
#include "common/metric.h"
#include "common/strbuf.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct reader {
	const char *name;
	struct strbuf path;
	struct err *err;
};

/* Sets the error "<name>: <path>: <what>" and returns ERR_INVALID. */
int reader_bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The path follows the reader into a key or an index; each returns the old
 * length, which reader_pop restores. */
size_t reader_push_key(struct reader *rd, const char *key);
size_t reader_push_index(struct reader *rd, size_t i);
void reader_pop(struct reader *rd, size_t old);

/* "expected <what>, got <a short description of v>". */
int reader_expected(struct reader *rd, const char *what, const cJSON *v);

/* The value of key, or NULL when missing or null. */
const cJSON *reader_field(const cJSON *obj, const char *key);

/* A value itself (an array element): a string of at most max bytes, a
 * finite number, an unsigned integer up to max. */
int reader_str_value(struct reader *rd, const cJSON *v, size_t max, char **out);

/* A string at key: at most max bytes, or RESULTS_MAX_STRING_BYTES. */
int reader_get_str_max(struct reader *rd, const cJSON *obj, const char *key, size_t max,
		       char **out);
int reader_get_str(struct reader *rd, const cJSON *obj, const char *key, char **out);

/* A string into a fixed char array (reasons of comparisons and budgets). */
int reader_get_chars(struct reader *rd, const cJSON *obj, const char *key, char *out, size_t size);

/* One of names[], into *out; missing or null keeps *out. */
int reader_get_name(struct reader *rd, const cJSON *obj, const char *key, const char *const *names,
		    size_t n, int *out);

/* A boolean; missing or null keeps *out. */
int reader_get_bool(struct reader *rd, const cJSON *obj, const char *key, bool *out);

/* A finite number at key. */
int reader_num_value(struct reader *rd, const cJSON *v, double *out);

/* A finite number; missing or null leaves *has false. */
int reader_get_opt_num(struct reader *rd, const cJSON *obj, const char *key, bool *has,
		       double *out);

int reader_get_num(struct reader *rd, const cJSON *obj, const char *key, double *out);

int reader_uint_value(struct reader *rd, const cJSON *v, double max, uint64_t *out);

/* An unsigned integer at key (up to max, UINT64 range, unsigned int). */
int reader_get_uint_max(struct reader *rd, const cJSON *obj, const char *key, double max,
			uint64_t *out);
int reader_get_uint(struct reader *rd, const cJSON *obj, const char *key, uint64_t *out);
int reader_get_unsigned(struct reader *rd, const cJSON *obj, const char *key, unsigned *out);

/* An int; missing or null leaves *has false. */
int reader_get_int(struct reader *rd, const cJSON *obj, const char *key, bool *has, int *out);

/* A time: an RFC 3339 UTC string, into nanoseconds since the epoch. */
int reader_get_time(struct reader *rd, const cJSON *obj, const char *key, int64_t *out);

/* A metric's name (metric_from_name). */
int reader_get_metric_name(struct reader *rd, const cJSON *obj, const char *key, enum metric *out);

/* A field we write but derive from others: when present it must say what we
 * would write. */
int reader_check_const(struct reader *rd, const cJSON *obj, const char *key, const char *want);

/* The object at key: *out NULL when missing or null. */
int reader_get_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **out);

/* Enters the object at key: 1 with *o set and the key pushed (pop it with
 * *old), 0 when it is missing or null, -1 on an error. */
int reader_enter_object(struct reader *rd, const cJSON *obj, const char *key, const cJSON **o,
			size_t *old);

/* The array at key, of at most max elements: *out NULL and *n 0 when
 * missing or null. */
int reader_get_array(struct reader *rd, const cJSON *obj, const char *key, size_t max,
		     const cJSON **out, size_t *n);

/* The parts of a document around its suites (read_context.c), timings included: each reads the
 * object at its key of root (or of a suite, for the commit) when present. */
struct results;
struct results_environment;
struct results_git;
struct results_noise;
struct results_commit;
struct results_sweep;
struct results_summary;
struct results_timings;
int reader_environment(struct reader *rd, const cJSON *root, struct results_environment *e);
int reader_git(struct reader *rd, const cJSON *root, struct results_git *g);
int reader_noise(struct reader *rd, const cJSON *root, struct results_noise *n);
int reader_commit(struct reader *rd, const cJSON *suite, struct results_commit *c);
int reader_sweep(struct reader *rd, const cJSON *root, struct results_sweep *s);
int reader_calibration(struct reader *rd, const cJSON *root, struct results *r);
int reader_summary(struct reader *rd, const cJSON *root, struct results_summary *s);
int reader_timings(struct reader *rd, const cJSON *root, struct results_timings *t);

#endif
