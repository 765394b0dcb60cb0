/*
 * Variables: see vars.h. One scanner serves checking and expanding, so the
 * two can never disagree on what a template means.
 */
#include "suite/vars.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct var_name {
	const char *name;
	enum vars_bit bit;
};

static const struct var_name names[] = {
	{ .name = "artifact", .bit = VAR_ARTIFACT },
	{ .name = "root", .bit = VAR_ROOT },
	{ .name = "head_root", .bit = VAR_HEAD_ROOT },
	{ .name = "workdir", .bit = VAR_WORKDIR },
	{ .name = "exe", .bit = VAR_EXE },
};

static bool env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

bool vars_is_builtin(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(names[k].name, name))
			return true;
	return !strcmp(name, "env");
}

/* The index of the parameter named start[0..n), or params->n. */
static size_t find_param(const struct vars_params *params, const char *start, size_t n)
{
	size_t k;

	for (k = 0; params && k < params->n; k++)
		if (strlen(params->names[k]) == n && !strncmp(params->names[k], start, n))
			return k;
	return params ? params->n : 0;
}

/* Parses the variable at tpl[i] == '$', tpl[i+1] == '{'. Sets *bit, *end (after
 * '}') and, for env, the name span; for a parameter, *env_len is its index. */
static int scan_var(const char *tpl, size_t i, const struct vars_params *params, enum vars_bit *bit,
		    size_t *end, const char **env_name, size_t *env_len, struct err *err)
{
	const char *start = tpl + i + 2;
	const char *close = strchr(start, '}');
	size_t n, k;

	if (!close)
		return err_set(err, ERR_INVALID, "unclosed \"${\" (write $${ for a literal ${)");
	n = (size_t)(close - start);
	*end = (size_t)(close - tpl) + 1;
	if (n > 4 && !strncmp(start, "env:", 4)) {
		if (!env_name_ok(start + 4, n - 4))
			return err_set(err, ERR_INVALID,
				       "invalid environment variable name in ${%.*s}", (int)n,
				       start);
		*bit = VAR_ENV;
		*env_name = start + 4;
		*env_len = n - 4;
		return 0;
	}
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strlen(names[k].name) == n && !strncmp(names[k].name, start, n)) {
			*bit = names[k].bit;
			return 0;
		}
	if (params && (*env_len = find_param(params, start, n)) < params->n) {
		*bit = VAR_PARAM;
		return 0;
	}
	return err_set(err, ERR_INVALID, "unknown variable ${%.*s}", (int)n, start);
}

int vars_check(const char *tpl, unsigned allowed, unsigned *used, size_t *offset, struct err *err)
{
	return vars_check_params(tpl, allowed, NULL, used, offset, err);
}

int vars_check_params(const char *tpl, unsigned allowed, const struct vars_params *params,
		      unsigned *used, size_t *offset, struct err *err)
{
	size_t i = 0, end, env_len;
	const char *env_name;
	enum vars_bit bit;

	*used = 0;
	while (tpl[i]) {
		if (tpl[i] == '$' && tpl[i + 1] == '$' && tpl[i + 2] == '{') {
			i += 3;
			continue;
		}
		if (tpl[i] != '$' || tpl[i + 1] != '{') {
			i++;
			continue;
		}
		*offset = i;
		if (scan_var(tpl, i, params, &bit, &end, &env_name, &env_len, err) < 0)
			return ERR_INVALID;
		if (bit != VAR_PARAM && !(allowed & bit))
			return err_set(err, ERR_INVALID, "${%.*s} is not allowed here",
				       (int)(end - i - 3), tpl + i + 2);
		*used |= bit;
		i = end;
	}
	return 0;
}

int vars_check_shell(const char *tpl, size_t *offset, struct err *err)
{
	char quote = 0;
	size_t i;

	for (i = 0; tpl[i]; i++) {
		char c = tpl[i];
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
		} else if (c == '\\' && tpl[i + 1]) {
			i++;
			continue;
		} else if (quote == '"' && c == '"') {
			quote = 0;
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
		}
		if (c == '$' && tpl[i + 1] == '$' && tpl[i + 2] == '{') {
			i += 2;
			continue;
		}
		if (quote && c == '$' && tpl[i + 1] == '{') {
			*offset = i;
			return err_set(err, ERR_INVALID,
				       "a variable inside the command's own %s quotes",
				       quote == '\'' ? "single" : "double");
		}
	}
	return 0;
}

static int add_value(struct strbuf *out, const char *v, bool shell_quote)
{
	const char *p;
	int rc = 0;

	if (!shell_quote)
		return strbuf_adds(out, v);
	rc |= strbuf_addch(out, '\'');
	for (p = v; *p; p++)
		rc |= *p == '\'' ? strbuf_adds(out, "'\\''") : strbuf_addch(out, *p);
	rc |= strbuf_addch(out, '\'');
	return rc;
}

int vars_expand(const char *tpl, const struct vars *values, bool shell_quote, struct strbuf *out,
		struct err *err)
{
	size_t i = 0, end, env_len;
	const char *env_name, *v = NULL;
	enum vars_bit bit;
	char name[256];

	while (tpl[i]) {
		if (tpl[i] == '$' && tpl[i + 1] == '$' && tpl[i + 2] == '{') {
			if (strbuf_adds(out, "${") < 0)
				return err_set(err, ERR_INVALID, "expanded text is too long");
			i += 3;
			continue;
		}
		if (tpl[i] != '$' || tpl[i + 1] != '{') {
			if (strbuf_addch(out, tpl[i++]) < 0)
				return err_set(err, ERR_INVALID, "expanded text is too long");
			continue;
		}
		if (scan_var(tpl, i, NULL, &bit, &end, &env_name, &env_len, err) < 0)
			return err_set(err, ERR_INTERNAL, "unchecked template: %s", err->msg);
		switch (bit) {
		case VAR_ARTIFACT:
			v = values->artifact;
			break;
		case VAR_ROOT:
			v = values->root;
			break;
		case VAR_HEAD_ROOT:
			v = values->head_root;
			break;
		case VAR_WORKDIR:
			v = values->workdir;
			break;
		case VAR_EXE:
			v = values->exe;
			break;
		case VAR_PARAM: /* substituted by the loader; scan_var never sets it here */
			return err_set(err, ERR_INTERNAL, "unsubstituted parameter");
		case VAR_ENV:
			if (env_len >= sizeof(name))
				return err_set(err, ERR_EXEC, "environment variable name too long");
			memcpy(name, env_name, env_len);
			name[env_len] = '\0';
			v = getenv(name);
			if (!v)
				return err_set(err, ERR_EXEC,
					       "environment variable \"%s\" is not set (used as "
					       "${env:%s})",
					       name, name);
			break;
		}
		if (!v)
			return err_set(err, ERR_INTERNAL, "no value for ${%.*s}",
				       (int)(end - i - 3), tpl + i + 2);
		if (add_value(out, v, shell_quote) < 0)
			return err_set(err, ERR_INVALID, "expanded text is too long");
		i = end;
	}
	return 0;
}

/* A value as one shell word: as is when it has only characters no shell
 * treats specially, else single-quoted. */
static int add_param_value(struct strbuf *out, const char *v, bool shell_quote)
{
	bool quote =
		shell_quote && v[strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					   "0123456789_-.,/:+=@%")];
	const char *p;
	int rc = 0;

	if (quote)
		rc |= strbuf_addch(out, '\'');
	for (p = v; *p; p++) {
		if (quote && *p == '\'')
			rc |= strbuf_adds(out, "'\\'");
		if (p[0] == '$' && p[1] == '{')
			rc |= strbuf_addch(out, '$');
		rc |= strbuf_addch(out, *p);
	}
	if (quote)
		rc |= strbuf_addch(out, '\'');
	return rc;
}

int vars_substitute(const char *tpl, const struct vars_params *params, bool shell_quote,
		    struct strbuf *out)
{
	size_t i = 0, end, index;
	const char *env_name;
	enum vars_bit bit;
	struct err e = ERR_INIT;
	int rc = 0;

	while (tpl[i]) {
		if (tpl[i] == '$' && tpl[i + 1] == '$' && tpl[i + 2] == '{') {
			rc |= strbuf_adds(out, "$${");
			i += 3;
			continue;
		}
		if (tpl[i] != '$' || tpl[i + 1] != '{' ||
		    scan_var(tpl, i, params, &bit, &end, &env_name, &index, &e) < 0) {
			rc |= strbuf_addch(out, tpl[i++]);
			continue;
		}
		if (bit == VAR_PARAM)
			rc |= add_param_value(out, params->values[index], shell_quote);
		else
			rc |= strbuf_add(out, tpl + i, end - i);
		i = end;
	}
	return rc < 0 ? -1 : 0;
}
