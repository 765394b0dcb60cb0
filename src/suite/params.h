/*
 * Parameter matrices: a benchmark with parameters (and input sizes, the
 * parameter named "size") expands to one case per combination of values.
 * This file is the pure part: the cartesian product in declared order, the exclusions, the limit,
 * and the case labels "name[level=1,mode=compress]"; the loader turns YAML
 * into these arrays and reports positions.
 */
#ifndef HIMORIME_SUITE_PARAMS_H
#define HIMORIME_SUITE_PARAMS_H

#include "common/err.h"
#include "common/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most cases one benchmark may expand to, exclusions not counted. */
#define PARAMS_MAX_CASES 1000

/* In an exclusion: this parameter may have any value. */
#define PARAMS_ANY SIZE_MAX

struct param {
	const char *name;
	const char *const *values; /* as written, each once */
	size_t n;
};

struct params_expansion {
	size_t n_params;
	size_t count;  /* cases */
	size_t *index; /* count * n_params: case c has values[index[c * n_params + p]] of p */
};

/* A parameter's name: a letter or '_', then letters, digits or '_', at most
 * 64 characters; ERR_INVALID says why not. */
int params_check_name(const char *name, struct err *err);

/* A value must not contain ',', '=', '[', ']' or a control character (they
 * would make labels ambiguous) and must not be empty. */
int params_check_value(const char *value, struct err *err);

/* The index of `value` among p's values, or PARAMS_ANY. */
size_t params_find_value(const struct param *p, const char *value);

/*
 * The cartesian product of params[0..n) in declared order (the last parameter
 * varies fastest), without the combinations that match any exclusion (an
 * array of n indices, PARAMS_ANY matching any value). ERR_INVALID when a
 * parameter has no values or a value twice, when the product exceeds `limit`
 * (checked before anything is allocated), or when every combination is
 * excluded. n == 0 gives one case with no parameters.
 */
int params_expand(const struct param *params, size_t n, const size_t *const *exclusions,
		  size_t n_exclusions, size_t limit, struct params_expansion *out, struct err *err);
void params_expansion_release(struct params_expansion *e);

/* "bench[level=1,mode=compress]" for case c; just "bench" without params. */
void params_label(const char *bench, const struct param *params, const struct params_expansion *e,
		  size_t c, struct strbuf *out);

/* One parameter's value in one case, as a benchmark carries it. */
struct params_value {
	const char *name;
	const char *value; /* as written ("64k" for a size) */
};

/*
 * A selector picks cases by some of their values: "bench[level=9]" picks
 * every case of bench with level 9, whatever its other parameters;
 * "[level=9]" (no name) the cases of any benchmark with level 9. It is how
 * `--filter` and `cases:` name cases (docs/configuration.md, "Parameters").
 */
struct params_selector {
	char *base; /* "" when the selector has no name */
	size_t n;
	struct params_value *pairs; /* the strings point into `text` */
	char *text;
};

/* ERR_INVALID when `text` is not NAME[k=v,...] or [k=v,...] with at least
 * one pair and checked names and values; err says why. */
int params_selector_parse(const char *text, struct params_selector *out, struct err *err);
void params_selector_release(struct params_selector *s);
/* Whether a case of benchmark `base` with values v[0..n) is selected. */
bool params_selector_matches(const struct params_selector *s, const char *base,
			     const struct params_value *v, size_t n);
/* The same for a case known by its label only ("gz[level=1,mode=fast]", as
 * reports name it); a name without brackets is no case and never matches. */
bool params_selector_matches_label(const struct params_selector *s, const char *label);

#endif
