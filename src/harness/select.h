/*
 * Choosing harness benchmarks by name. A filter is a benchmark's name as
 * the harness reports it (harness.h), or a glob of one: `*` stands for any
 * run of characters, '/' included (so "BM_Sort/" and a star is every
 * BM_Sort instance),
 * `?` for any one character, and `\` makes the next character literal;
 * everything else, `.`, `+`, `(` and `[` included, is itself. Budgets,
 * tolerances and selections all match with harness_filter_matches.
 *
 * harness_select turns filters into the harness's own selection arguments,
 * so that benchmarks nobody asked for do not run: an anchored regular
 * expression for Google Benchmark (--benchmark_filter, exact), a regular
 * expression per name level for go test (-bench), a keyword for pytest
 * (-k), a test spec for Catch2; hyperfine and `lines` have none. Where the
 * harness's selection can run more than the filters match (Go's levels,
 * pytest's substrings, Catch2's test cases), the selection says so and the
 * caller keeps only the benchmarks harness_filter_matches accepts. Pure.
 */
#ifndef HIMORIME_HARNESS_SELECT_H
#define HIMORIME_HARNESS_SELECT_H

#include "common/err.h"
#include "harness/harness.h"

#include <stdbool.h>
#include <stddef.h>

#define HARNESS_MAX_FILTER_BYTES 1024u
#define HARNESS_MAX_FILTERS	 1000u

/* ERR_INVALID when the filter is empty, longer than HARNESS_MAX_FILTER_BYTES,
 * not UTF-8, holds NUL or ends in a lone `\`: "filter \"...\": why". */
int harness_filter_check(const char *filter, struct err *err);
/* Whether the whole name matches the (checked) filter. */
bool harness_filter_matches(const char *filter, const char *name);

struct harness_selection {
	/* Arguments to add to the harness's command line (owned), none when
	 * the harness cannot select or every benchmark is wanted. */
	char *args[2];
	size_t n_args;
	/* The harness may report benchmarks no filter matches: keep only
	 * those that one matches. */
	bool after;
};

#define HARNESS_SELECTION_INIT                                                                     \
	{                                                                                          \
		{ NULL, NULL }, 0, false                                                           \
	}

/* The selection of the benchmarks any of filters[0..n) matches (n >= 1,
 * each checked), as `kind` takes it: "--benchmark_filter=RE", "-bench=RE",
 * "-k" and "EXPR", or one Catch2 test spec. *out is released first. */
int harness_select(enum harness_kind kind, const char *const *filters, size_t n,
		   struct harness_selection *out, struct err *err);
void harness_selection_release(struct harness_selection *s);

/*
 * Two selections that must both hold: the suite's filters (select[0..n),
 * none: every benchmark) and one more filter (`also`, NULL: none), the
 * glob of the command line's --filter. A benchmark is kept when one of the
 * suite's filters and `also` match it (harness_filters_keep). The harness
 * is told the exact intersection where one side is names without
 * wildcards (the names of it the other side matches); otherwise it is told
 * `also` and the suite's filters are applied after the run. Nothing to
 * select (n == 0 and no `also`) leaves *out empty.
 */
int harness_select_both(enum harness_kind kind, const char *const *select, size_t n,
			const char *also, struct harness_selection *out, struct err *err);
bool harness_filters_keep(const char *const *select, size_t n, const char *also, const char *name);

#endif
