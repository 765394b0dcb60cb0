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

static const struct opt *find_long(const struct opt *opts, size_t nopts, const char *name,
				   size_t len)
{
	size_t i;

	for (i = 0; i < nopts; i++)
		if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
			return &opts[i];
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, size_t nopts, char c)
{
	size_t i;

	for (i = 0; i < nopts; i++)
		if (opts[i].short_name && opts[i].short_name == c)
			return &opts[i];
	return NULL;
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

static void store(const struct opt *o, const char *value)
{
	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)o->value = true;
		break;
	case OPT_STRING:
		*(const char **)o->value = value;
		break;
	case OPT_LIST:
		store_list(o->value, value);
		break;
	}
}

int opts_parse(const char *cmd, const struct opt *opts, size_t nopts, int argc, char **argv,
	       struct strlist *operands, struct err *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o;
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
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			o = find_long(opts, nopts, a + 2, len);
			if (eq)
				value = eq + 1;
		} else {
			o = a[2] == '\0' ? find_short(opts, nopts, a[1]) : NULL;
		}
		if (!o)
			return err_set(err, ERR_USAGE,
				       "unknown flag \"%s\" for \"%s\" (see 'himorime help %s')", a,
				       cmd, cmd);
		if (o->kind == OPT_FLAG) {
			if (value)
				return err_set(err, ERR_USAGE, "flag --%s takes no value", o->name);
			store(o, NULL);
			continue;
		}
		if (!value) {
			if (i + 1 >= argc)
				return err_set(err, ERR_USAGE, "flag --%s needs a value (%s)",
					       o->name, o->arg ? o->arg : "VALUE");
			value = argv[++i];
		}
		store(o, value);
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
