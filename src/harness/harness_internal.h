/*
 * Private to src/harness: what the parsers of each harness share. A parser
 * walks its output and hands every benchmark it finds and every value of it
 * to a `struct collect`, which owns the checks that are the same for all of
 * them (names, values, units, repeated names, the limits) and, at the end,
 * takes each metric's median. Positions are `struct where`, formatted only
 * when a message needs one.
 */
#ifndef HIMORIME_HARNESS_INTERNAL_H
#define HIMORIME_HARNESS_INTERNAL_H

#include "harness/harness.h"
#include "results/json.h" /* the strict parser, and the cJSON tree it makes */

#include <stdbool.h>
#include <stdint.h>

/* A position in the output: a line (and column, 0: none) of a text, or a
 * JSON path given as a printf format taking the indexes i and j
 * ("$.benchmarks[%zu].real_time"), or both: a path in the JSON of one line
 * (`lines`). */
struct where {
	size_t line, col;
	const char *json;
	size_t i, j;
};

#define WHERE_LINE(l, c)                                                                           \
	(struct where)                                                                             \
	{                                                                                          \
		.line = (l), .col = (c)                                                            \
	}
#define WHERE_JSON(path, a, b)                                                                     \
	(struct where)                                                                             \
	{                                                                                          \
		.json = (path), .i = (a), .j = (b)                                                 \
	}

/* Benchmarks that share a name merge as repetitions only when they share
 * an identity: a harness that repeats by design (Google Benchmark's
 * repetitions of one instance, go test -count, lines) gives the same one;
 * the others give IDENT_UNIQUE, which never merges, so a repeated name is
 * an error there. */
#define IDENT_SAME   0
#define IDENT_UNIQUE UINT64_MAX

struct collect {
	struct harness_output *out;
	const char *name; /* the output's, for messages */
	struct err *err;
	const char *data; /* the output, for line:column of an offset */
	size_t len;
	size_t values;			/* so far, all metrics */
	size_t at_off, at_line, at_col; /* where_at's last answer */
	uint64_t *ident;		/* per benchmark */
	char **first;			/* per benchmark: where it was first reported */
	size_t alloc;
};

/* "<name>:<line>:<col>", "<name>:<line>", "<name>: <path>" or
 * "<name>:<line>: <path>". */
void where_format(const struct collect *c, const struct where *w, char *buf, size_t size);
/* Sets "<where>: <what>" and returns ERR_INVALID. */
int collect_bad(struct collect *c, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The line and column (from 1, in bytes) of a byte offset of the output;
 * counted on from the offset asked for before when it is not behind it, so
 * that a parser moving forward pays for each byte once. */
struct where where_at(struct collect *c, size_t off);

/* The benchmark named name[0..len) into *index, made when new: the name must
 * be 1 to HARNESS_MAX_NAME_BYTES of UTF-8 without NUL; a name seen before
 * with another identity is an error naming both places. */
int collect_benchmark(struct collect *c, const char *name, size_t len, uint64_t ident,
		      const struct where *w, size_t *index);
/* Adds one value of a metric: a finite number >= 0 in canonical units; the
 * unit and direction must be those of the metric's earlier values. */
int collect_value(struct collect *c, size_t index, const char *metric, const char *unit,
		  enum better better, double value, const struct where *w);
/* Marks the benchmark failed with the harness's message (the first kept). */
void collect_error(struct collect *c, size_t index, const char *msg, size_t len);

/* A quoted, shortened, one-line copy of s[0..len) for messages. */
void quote(char *buf, size_t size, const char *s, size_t len);

/* A strict decimal number at p (at most n bytes: -?digits[.digits][e[+-]digits],
 * no NaN, inf or hex): its length with *out set, or 0. */
size_t scan_number(const char *p, size_t n, double *out);
/* Bytes of the valid UTF-8 character at p, or 0. */
size_t utf8_len(const unsigned char *p, size_t n);

/* JSON, through results/json.h, after a scan that names NaN and Infinity
 * (which Google Benchmark and Python write) where they stand. */
int json_parse(struct collect *c, cJSON **root);
/* The whole output as an object whose `key` (at `path`, "$.benchmarks")
 * is an array, each element handed to `each` with its index. */
int json_each(struct collect *c, const char *key, const char *path,
	      int (*each)(struct collect *c, const cJSON *v, size_t i));
/* That scan alone, over data[off, off + len). */
int json_check_numbers(struct collect *c, size_t off, size_t len);
/* Typed values of a tree; each error names the path and what was there. */
int json_object(struct collect *c, const cJSON *v, const struct where *w);
int json_array(struct collect *c, const cJSON *v, const struct where *w, size_t *n);
int json_string(struct collect *c, const cJSON *v, const struct where *w, const char **out);
int json_number(struct collect *c, const cJSON *v, const struct where *w, double *out);
/* A field that must be there / one that may be missing or null (NULL). */
int json_need(struct collect *c, const cJSON *obj, const char *key, const struct where *w,
	      const cJSON **out);
const cJSON *json_field(const cJSON *obj, const char *key);

/* Multipliers of the time units the harnesses print, into ns: "ns", "us",
 * "µs", "μs", "ms", "s"; 0 for anything else. */
double time_unit_ns(const char *unit, size_t len);

/* The length of the "-N" that ends a go test name (its GOMAXPROCS), or 0. */
size_t go_procs_suffix(const char *name, size_t len);

/* One parser per kind (a row of harness.c's table). */
int parse_google_benchmark(struct collect *c);
int parse_go_test(struct collect *c);
int parse_pytest_benchmark(struct collect *c);
int parse_catch2(struct collect *c);
int parse_hyperfine(struct collect *c);
int parse_lines(struct collect *c);

#endif
