/*
 * Expanding a benchmark's parameters into cases (suite/params.h).
 */
#include "suite/params.h"

#include "common/alloc.h"
#include "suite/units.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

#define PARAMS_MAX_NAME 64

int params_check_name(const char *name, struct err *err)
{
	size_t i, len = strlen(name);

	if (!len || len > PARAMS_MAX_NAME)
		return err_set(err, ERR_INVALID, "a parameter's name has 1 to %d characters",
			       PARAMS_MAX_NAME);
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return err_set(err, ERR_INVALID,
			       "a parameter's name starts with a letter or '_', got \"%s\"", name);
	for (i = 1; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return err_set(err, ERR_INVALID,
				       "a parameter's name has only letters, digits and '_', got "
				       "\"%s\"",
				       name);
	return 0;
}

int params_check_value(const char *value, struct err *err)
{
	const unsigned char *p;

	if (!*value)
		return err_set(err, ERR_INVALID, "a parameter's value cannot be empty");
	for (p = (const unsigned char *)value; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return err_set(err, ERR_INVALID,
				       "a parameter's value cannot hold a control character");
		if (strchr(",=[]", *p))
			return err_set(err, ERR_INVALID,
				       "a parameter's value cannot hold '%c' (it would make the "
				       "case's label ambiguous)",
				       *p);
	}
	return 0;
}

size_t params_find_value(const struct param *p, const char *value)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->values[i], value))
			return i;
	return PARAMS_ANY;
}

/* Every parameter has values, each once, and the product fits the limit. */
static int check_product(const struct param *params, size_t n, size_t limit, size_t *product,
			 struct err *err)
{
	size_t i, j, k;

	*product = 1;
	for (i = 0; i < n; i++) {
		if (!params[i].n)
			return err_set(err, ERR_INVALID, "parameter \"%s\" has no values",
				       params[i].name);
		for (j = 0; j < params[i].n; j++)
			for (k = 0; k < j; k++)
				if (!strcmp(params[i].values[j], params[i].values[k]))
					return err_set(err, ERR_INVALID,
						       "parameter \"%s\" has the value \"%s\" "
						       "twice",
						       params[i].name, params[i].values[j]);
		if (params[i].n > limit / *product)
			return err_set(err, ERR_INVALID,
				       "the parameters make more than %zu cases before "
				       "exclude; split the benchmark",
				       limit);
		*product *= params[i].n;
	}
	return 0;
}

static bool excluded(const size_t *idx, size_t n, const size_t *const *exclusions,
		     size_t n_exclusions)
{
	size_t x, p;

	for (x = 0; x < n_exclusions; x++) {
		for (p = 0; p < n; p++)
			if (exclusions[x][p] != PARAMS_ANY && exclusions[x][p] != idx[p])
				break;
		if (p == n)
			return true;
	}
	return false;
}

/* The next combination in declared order (an odometer); false after the last. */
static bool next_combination(const struct param *params, size_t n, size_t *idx)
{
	size_t p;

	for (p = n; p-- > 0;) {
		if (++idx[p] < params[p].n)
			return true;
		idx[p] = 0;
	}
	return false;
}

int params_expand(const struct param *params, size_t n, const size_t *const *exclusions,
		  size_t n_exclusions, size_t limit, struct params_expansion *out, struct err *err)
{
	size_t product, *idx;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = check_product(params, n, limit, &product, err);
	if (rc)
		return rc;
	out->n_params = n;
	out->index = xcalloc(product * (n ? n : 1), sizeof(*out->index));
	idx = xcalloc(n ? n : 1, sizeof(*idx));
	do {
		if (excluded(idx, n, exclusions, n_exclusions))
			continue;
		memcpy(out->index + out->count * n, idx, n * sizeof(*idx));
		out->count++;
	} while (n && next_combination(params, n, idx));
	free(idx);
	if (!out->count) {
		params_expansion_release(out);
		return err_set(err, ERR_INVALID, "exclude removes every combination");
	}
	return 0;
}

void params_expansion_release(struct params_expansion *e)
{
	free(e->index);
	memset(e, 0, sizeof(*e));
}

void params_label(const char *bench, const struct param *params, const struct params_expansion *e,
		  size_t c, struct strbuf *out)
{
	size_t p;

	strbuf_adds(out, bench);
	if (!e->n_params)
		return;
	strbuf_addch(out, '[');
	for (p = 0; p < e->n_params; p++)
		strbuf_addf(out, "%s%s=%s", p ? "," : "", params[p].name,
			    params[p].values[e->index[c * e->n_params + p]]);
	strbuf_addch(out, ']');
}

/* Splits text (writable) at each ',' inside the brackets into k=v pairs. */
static int split_pairs(char *inner, struct params_selector *out, struct err *err)
{
	char *p = inner, *comma, *eq;
	size_t alloc = 1;

	for (comma = inner; *comma; comma++)
		alloc += *comma == ',';
	out->pairs = xcalloc(alloc, sizeof(*out->pairs));
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		eq = strchr(p, '=');
		if (!eq)
			return err_set(err, ERR_INVALID, "expected name=value, got \"%s\"", p);
		*eq = '\0';
		if (params_check_name(p, err) < 0 || params_check_value(eq + 1, err) < 0)
			return ERR_INVALID;
		out->pairs[out->n].name = p;
		out->pairs[out->n++].value = eq + 1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int params_selector_parse(const char *text, struct params_selector *out, struct err *err)
{
	size_t len = strlen(text);
	char *open;
	int rc;

	memset(out, 0, sizeof(*out));
	out->text = xstrdup(text);
	open = strchr(out->text, '[');
	if (!open || len < 2 || text[len - 1] != ']' || strchr(open + 1, '[') ||
	    strchr(open, ']') != out->text + len - 1) {
		rc = err_set(err, ERR_INVALID, "expected NAME[name=value,...] or [name=value,...]");
		goto fail;
	}
	*open = '\0';
	out->text[len - 1] = '\0';
	out->base = out->text;
	rc = split_pairs(open + 1, out, err);
	if (rc)
		goto fail;
	return 0;
fail:
	params_selector_release(out);
	return rc;
}

void params_selector_release(struct params_selector *s)
{
	if (!s)
		return;
	free(s->pairs);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Whether a selector's value picks a case's: as written, or for `size` as
 * the same count ("10k", "10000" and "10.0k" are one size). */
static bool same_value(const char *name, const char *want, const char *have)
{
	struct err err = ERR_INIT;
	double a, b;

	if (!strcmp(want, have))
		return true;
	return !strcmp(name, "size") && units_count(want, &a, &err) == 0 &&
	       units_count(have, &b, &err) == 0 && a == b;
}

bool params_selector_matches(const struct params_selector *s, const char *base,
			     const struct params_value *v, size_t n)
{
	size_t i, j;

	if (*s->base && strcmp(s->base, base))
		return false;
	for (i = 0; i < s->n; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(s->pairs[i].name, v[j].name) &&
			    same_value(v[j].name, s->pairs[i].value, v[j].value))
				break;
		if (j == n)
			return false;
	}
	return true;
}

bool params_selector_matches_label(const struct params_selector *s, const char *label)
{
	struct params_selector l;
	struct err err = ERR_INIT;
	bool match;

	if (params_selector_parse(label, &l, &err) < 0)
		return false;
	match = params_selector_matches(s, l.base, l.pairs, l.n);
	params_selector_release(&l);
	return match;
}
