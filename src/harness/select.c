/*
 * Filters and the selection arguments of select.h. Each harness's own
 * syntax is written from a filter's parts: its literal characters (a `\`
 * escape resolved) and its wildcards. Where the harness matches exactly
 * what the filter does (Google Benchmark's anchored regular expression),
 * nothing is left to do after the run; elsewhere the argument is a superset
 * built from the filter's literal prefix or its longest literal word, and
 * the caller filters after.
 */
#include "harness/select.h"

#include "common/alloc.h"
#include "common/strbuf.h"
#include "harness/harness_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

int harness_filter_check(const char *filter, struct err *err)
{
	size_t len = strlen(filter), i, l;
	char q[128];

	quote(q, sizeof(q), filter, len);
	if (!len)
		return err_set(err, ERR_INVALID, "filter \"\": expected a name or a glob");
	if (len > HARNESS_MAX_FILTER_BYTES)
		return err_set(err, ERR_INVALID, "filter %s: longer than %u bytes", q,
			       HARNESS_MAX_FILTER_BYTES);
	for (i = 0; i < len; i += l) {
		l = utf8_len((const unsigned char *)filter + i, len - i);
		if (!l)
			return err_set(err, ERR_INVALID, "filter %s: invalid UTF-8 at byte %zu", q,
				       i + 1);
	}
	for (i = 0; i < len; i += 1 + (filter[i] == '\\'))
		if (filter[i] == '\\' && i + 1 == len)
			return err_set(err, ERR_INVALID,
				       "filter %s: ends in a lone \\ (write \\\\ for a backslash)",
				       q);
	return 0;
}

/* One character of the name at n: its length (1 for a byte that starts none). */
static size_t char_len(const char *n)
{
	size_t l = utf8_len((const unsigned char *)n, strlen(n));

	return l ? l : 1;
}

/* Glob matching with one backtrack point: the last `*` (O(filter x name)). */
bool harness_filter_matches(const char *f, const char *n)
{
	const char *star = NULL, *resume = NULL;

	while (*n) {
		if (*f == '*') {
			star = ++f;
			resume = n;
		} else if (*f == '?') {
			f++;
			n += char_len(n);
		} else if (*f && *f == '\\' ? f[1] == *n : *f && *f == *n) {
			f += 1 + (*f == '\\');
			n++;
		} else if (star) {
			f = star;
			resume += char_len(resume);
			n = resume;
		} else {
			return false;
		}
	}
	while (*f == '*')
		f++;
	return !*f;
}

/* ---- the parts of a filter */

static bool is_wild(char ch)
{
	return ch == '*' || ch == '?';
}

/* Whether the filter has the wildcard ch (not escaped). */
static bool has_wild(const char *f, char ch)
{
	for (; *f; f++) {
		if (*f == ch)
			return true;
		if (*f == '\\')
			f++;
	}
	return false;
}

/* The filter's literal characters before its first wildcard, escapes
 * resolved; *wild says whether a wildcard follows. */
static char *literal_prefix(const char *f, bool *wild)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	*wild = false;
	for (; *f; f++) {
		if (is_wild(*f)) {
			*wild = true;
			break;
		}
		if (*f == '\\')
			f++;
		strbuf_addch(&sb, *f);
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- Google Benchmark: an anchored POSIX extended expression. `]` and `}`
 * stay bare: alone they are literal, and libstdc++ refuses them escaped. */

static void gb_regex(struct strbuf *sb, const char *f)
{
	for (; *f; f++) {
		if (*f == '*') {
			strbuf_adds(sb, ".*");
		} else if (*f == '?') {
			strbuf_adds(sb, ".{1,4}"); /* one UTF-8 character: 1 to 4 bytes */
		} else {
			if (*f == '\\')
				f++;
			if (strchr("^.[$()|*+?{\\", *f))
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *f);
		}
	}
}

static void select_google_benchmark(const char *const *filters, size_t n,
				    struct harness_selection *s)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "--benchmark_filter=^(");
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(&sb, '|');
		gb_regex(&sb, filters[i]);
		s->after = s->after || has_wild(filters[i], '?');
	}
	strbuf_adds(&sb, ")$");
	s->args[s->n_args++] = strbuf_detach(&sb, NULL);
}

/* ---- go test: one expression per level of the name, split at '/' as
 * go test splits both -bench and names. */

static void go_quote(struct strbuf *sb, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (strchr("\\.+*?()|[]{}^$", s[i]))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, s[i]);
	}
}

/* The levels of one filter; false when it selects every benchmark. */
static bool go_levels(struct strbuf *sb, const char *f)
{
	bool wild;
	char *p = literal_prefix(f, &wild);
	const char *seg = p, *slash;
	size_t len, suffix;
	bool any = false;

	for (;; seg = slash + 1) {
		slash = strchr(seg, '/');
		len = slash ? (size_t)(slash - seg) : strlen(seg);
		if (!slash && wild && !len)
			break;
		strbuf_adds(sb, any ? "/^" : "^");
		any = true;
		if (slash || !wild) {
			/* A name printed with go test's -N kept (several -cpu values)
			 * names a benchmark go test knows without it. */
			suffix = slash ? 0 : go_procs_suffix(seg, len);
			go_quote(sb, seg, len - suffix);
			if (suffix) {
				strbuf_addch(sb, '(');
				go_quote(sb, seg + len - suffix, suffix);
				strbuf_adds(sb, ")?");
			}
			strbuf_addch(sb, '$');
		} else {
			go_quote(sb, seg, len);
		}
		if (!slash)
			break;
	}
	free(p);
	return any;
}

static void select_go_test(const char *const *filters, size_t n, struct harness_selection *s)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	strbuf_adds(&sb, "-test.bench=");
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(&sb, '|');
		if (!go_levels(&sb, filters[i])) {
			strbuf_release(&sb);
			return;
		}
	}
	s->args[s->n_args++] = strbuf_detach(&sb, NULL);
}

/* ---- pytest -k: case-insensitive substrings of the names of a test's
 * nodes (module, classes, function with its parameters). A word of the
 * filter after its first "::" lies in one of those names, so the longest
 * such word selects a superset. */

static bool word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

static bool is_operator(const char *w, size_t len)
{
	return (len == 3 && (!memcmp(w, "and", 3) || !memcmp(w, "not", 3))) ||
	       (len == 2 && !memcmp(w, "or", 2));
}

/* The longest literal word after the filter's first literal "::". */
static void pytest_word(const char *f, const char **word, size_t *len)
{
	const char *p = f, *start = NULL;
	bool after = false;

	*word = NULL;
	*len = 0;
	for (; *p; p++) {
		bool lit = !is_wild(*p), esc = *p == '\\';
		char ch = esc ? p[1] : *p;
		if (after && lit && !esc && word_char(ch)) {
			if (!start)
				start = p;
		} else {
			if (start && (size_t)(p - start) > *len &&
			    !is_operator(start, (size_t)(p - start))) {
				*word = start;
				*len = (size_t)(p - start);
			}
			start = NULL;
		}
		if (!after && p[0] == ':' && p[1] == ':') {
			after = true;
			p++;
		}
		p += esc;
	}
	if (start && (size_t)(p - start) > *len && !is_operator(start, (size_t)(p - start))) {
		*word = start;
		*len = (size_t)(p - start);
	}
}

static void select_pytest_benchmark(const char *const *filters, size_t n,
				    struct harness_selection *s)
{
	struct strbuf sb;
	const char *word;
	size_t i, len;

	strbuf_init(&sb, 0);
	for (i = 0; i < n; i++) {
		pytest_word(filters[i], &word, &len);
		if (!word) {
			strbuf_release(&sb);
			return;
		}
		if (i)
			strbuf_adds(&sb, " or ");
		strbuf_add(&sb, word, len);
	}
	s->args[s->n_args++] = xstrdup("-k");
	s->args[s->n_args++] = strbuf_detach(&sb, NULL);
}

/* ---- Catch2: a test spec of test-case names, `*` at the end, every
 * character its parser treats specially escaped with `\`. A benchmark's
 * name starts with its test case's and a '/', so the filter's literal
 * prefix up to its first '/' begins the test case's name. */

static bool catch2_pattern(struct strbuf *sb, const char *f)
{
	bool wild;
	char *p = literal_prefix(f, &wild), *q;
	bool ok;

	q = strchr(p, '/');
	if (q)
		*q = '\0';
	/* Unwritable: a leading `*` is a wildcard even escaped, and
	 * "exclude:" negates even escaped; nothing: everything. */
	ok = *p && *p != '*' && strncmp(p, "exclude:", 8);
	for (q = p; ok && *q; q++) {
		if (strchr("\\,[]\"~*", *q))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *q);
	}
	if (ok)
		strbuf_addch(sb, '*');
	free(p);
	return ok;
}

static void select_catch2(const char *const *filters, size_t n, struct harness_selection *s)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb, 0);
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(&sb, ',');
		if (!catch2_pattern(&sb, filters[i])) {
			strbuf_release(&sb);
			return;
		}
	}
	s->args[s->n_args++] = strbuf_detach(&sb, NULL);
}

static void select_none(const char *const *filters, size_t n, struct harness_selection *s)
{
	(void)filters;
	(void)n;
	(void)s;
}

static const struct {
	void (*select)(const char *const *filters, size_t n, struct harness_selection *s);
	bool after; /* the harness's selection can be wider than the filters */
} selectors[HARNESS__COUNT] = {
	[HARNESS_GOOGLE_BENCHMARK] = { select_google_benchmark, false },
	[HARNESS_GO_TEST] = { select_go_test, true },
	[HARNESS_PYTEST_BENCHMARK] = { select_pytest_benchmark, true },
	[HARNESS_CATCH2] = { select_catch2, true },
	[HARNESS_HYPERFINE] = { select_none, true },
	[HARNESS_LINES] = { select_none, true },
};

int harness_select(enum harness_kind kind, const char *const *filters, size_t n,
		   struct harness_selection *out, struct err *err)
{
	size_t i;

	harness_selection_release(out);
	if (!n || n > HARNESS_MAX_FILTERS)
		return err_set(err, ERR_INVALID, "expected 1 to %u filters, got %zu",
			       HARNESS_MAX_FILTERS, n);
	for (i = 0; i < n; i++)
		if (harness_filter_check(filters[i], err))
			return ERR_INVALID;
	out->after = selectors[kind].after;
	selectors[kind].select(filters, n, out);
	return 0;
}

void harness_selection_release(struct harness_selection *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_args; i++)
		free(s->args[i]);
	*s = (struct harness_selection)HARNESS_SELECTION_INIT;
}

/* ---- two selections that must both hold */

static bool any_matches(const char *const *filters, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (harness_filter_matches(filters[i], name))
			return true;
	return false;
}

bool harness_filters_keep(const char *const *select, size_t n, const char *also, const char *name)
{
	return (!n || any_matches(select, n, name)) &&
	       (!also || harness_filter_matches(also, name));
}

static bool is_literal(const char *f)
{
	return !has_wild(f, '*') && !has_wild(f, '?');
}

/* The literal filters of lits[0..n) the other side keeps, as filters;
 * false when one of lits is not literal or none is kept. */
static bool literal_meet(const char *const *lits, size_t n, const char *const *other,
			 size_t n_other, const char **kept, size_t *n_kept)
{
	size_t i;
	char *name;

	*n_kept = 0;
	for (i = 0; i < n; i++)
		if (!is_literal(lits[i]))
			return false;
	for (i = 0; i < n; i++) {
		bool wild;
		name = literal_prefix(lits[i], &wild);
		if (any_matches(other, n_other, name))
			kept[(*n_kept)++] = lits[i];
		free(name);
	}
	return *n_kept > 0;
}

int harness_select_both(enum harness_kind kind, const char *const *select, size_t n,
			const char *also, struct harness_selection *out, struct err *err)
{
	const char **kept;
	size_t n_kept;
	int rc;

	harness_selection_release(out);
	if (!also)
		return n ? harness_select(kind, select, n, out, err) : 0;
	if (harness_filter_check(also, err))
		return ERR_INVALID;
	if (!n)
		return harness_select(kind, &also, 1, out, err);
	if (n > HARNESS_MAX_FILTERS)
		return harness_select(kind, select, n, out, err);
	kept = xcalloc(n, sizeof(*kept));
	if (literal_meet(select, n, &also, 1, kept, &n_kept) ||
	    literal_meet(&also, 1, select, n, kept, &n_kept)) {
		rc = harness_select(kind, kept, n_kept, out, err);
	} else {
		rc = harness_select(kind, &also, 1, out, err);
		out->after = true;
	}
	free(kept);
	return rc;
}
