/*
 * Command-line option parsing: see opts.h.
 */
#include "cli/opts.h"

#include "common/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

void strlist_push(struct strlist *l, const char *s)
{
	l->v = xgrow(l->v, &l->alloc, l->n + 2, sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

void strlist_release(struct strlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

static void *value_of(const struct opts *o, const struct opt *f)
{
	return (char *)o->in[f->in] + f->offset;
}

static const struct opt *find(const struct opt *v, size_t n, const char *name, size_t len,
			      char short_name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (short_name ? v[i].short_name == short_name
			       : strlen(v[i].name) == len && !strncmp(v[i].name, name, len))
			return &v[i];
	return NULL;
}

/* A long flag (`name` of `len` bytes) or, with short_name, a short one: the
 * command's own rows first, so that one can say more than a shared row of
 * the same name. */
static const struct opt *lookup(const struct opts *o, const char *name, size_t len, char short_name)
{
	const struct opt *f = find(o->own, o->n_own, name, len, short_name);

	return f ? f : find(o->shared, o->n_shared, name, len, short_name);
}

static void store_list(struct strlist *l, const char *value)
{
	const char *p = value;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n) {
			char *part = xstrndup(p, n);
			strlist_push(l, part);
			free(part);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
}

static void store(const struct opts *o, const struct opt *f, const char *value)
{
	void *at = value_of(o, f);

	switch (f->kind) {
	case OPT_FLAG:
		*(bool *)at = true;
		break;
	case OPT_STRING:
		*(const char **)at = value;
		break;
	case OPT_LIST:
		store_list(at, value);
		break;
	}
}

static void each_row(const struct opts *o, void (*fn)(const struct opts *, const struct opt *))
{
	size_t i;

	for (i = 0; i < o->n_own; i++)
		fn(o, &o->own[i]);
	for (i = 0; i < o->n_shared; i++)
		fn(o, &o->shared[i]);
}

static void set_default(const struct opts *o, const struct opt *f)
{
	void *at = value_of(o, f);

	switch (f->kind) {
	case OPT_FLAG:
		*(bool *)at = false;
		break;
	case OPT_STRING:
		*(const char **)at = f->dflt;
		break;
	case OPT_LIST:
		memset(at, 0, sizeof(struct strlist));
		break;
	}
}

void opts_defaults(const struct opts *o)
{
	each_row(o, set_default);
}

static void release_row(const struct opts *o, const struct opt *f)
{
	if (f->kind == OPT_LIST && o->in[f->in])
		strlist_release(value_of(o, f));
}

void opts_release(const struct opts *o)
{
	each_row(o, release_row);
}

/* The flag `a` names (with its `=value`, if any, in *value). */
static const struct opt *flag_of(const struct opts *o, const char *a, const char **value)
{
	const char *eq;
	size_t len;

	if (a[1] != '-')
		return a[2] == '\0' ? lookup(o, NULL, 0, a[1]) : NULL;
	eq = strchr(a + 2, '=');
	len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	if (eq)
		*value = eq + 1;
	return lookup(o, a + 2, len, 0);
}

int opts_parse(const struct opts *o, int argc, char **argv, struct strlist *operands,
	       struct err *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *f;
		const char *value = NULL;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				strlist_push(operands, argv[i]);
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			strlist_push(operands, a);
			continue;
		}
		f = flag_of(o, a, &value);
		if (!f)
			return err_set(err, ERR_USAGE,
				       "unknown flag \"%s\" for \"%s\" (see 'himorime help %s')", a,
				       o->cmd, o->cmd);
		if (f->kind == OPT_FLAG) {
			if (value)
				return err_set(err, ERR_USAGE, "flag --%s takes no value", f->name);
			store(o, f, NULL);
			continue;
		}
		if (!value) {
			if (i + 1 >= argc)
				return err_set(err, ERR_USAGE, "flag --%s needs a value (%s)",
					       f->name, f->arg ? f->arg : "VALUE");
			value = argv[++i];
		}
		store(o, f, value);
	}
	return 0;
}

int opts_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
