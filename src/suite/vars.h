/*
 * Variables in suite templates: ${artifact}, ${root}, ${head_root},
 * ${workdir}, ${exe}, ${env:NAME}, and $${ for a literal "${". Templates stay
 * unexpanded in the suite model; the loader checks them with vars_check and
 * the measuring side expands them with vars_expand just before a start.
 */
#ifndef HIMORIME_SUITE_VARS_H
#define HIMORIME_SUITE_VARS_H

#include "common/err.h"
#include "common/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* Which variables a template uses, or may use (a bit mask). */
enum vars_bit {
	VAR_ARTIFACT = 1 << 0,
	VAR_ROOT = 1 << 1,
	VAR_HEAD_ROOT = 1 << 2,
	VAR_WORKDIR = 1 << 3,
	VAR_EXE = 1 << 4,
	VAR_ENV = 1 << 5,
	VAR_PARAM = 1 << 6, /* a benchmark's parameter (struct vars_params) */
};
#define VARS_ALL (VAR_ARTIFACT | VAR_ROOT | VAR_HEAD_ROOT | VAR_WORKDIR | VAR_EXE | VAR_ENV)

/* The values for one start. Unset pointers expand to errors (ERR_INTERNAL:
 * the loader should have rejected the template). */
struct vars {
	const char *artifact;
	const char *root;
	const char *head_root;
	const char *workdir;
	const char *exe; /* "" on Linux */
};

/* The parameters of one case of a benchmark (suite/params.h): ${name}
 * stands for the value. The loader substitutes them as it reads the case
 * (vars_substitute), so the suite model never holds one. */
struct vars_params {
	const char *const *names;
	const char *const *values;
	size_t n;
};

/* Whether `name` is one of himorime's own variables (a parameter cannot
 * take it). */
bool vars_is_builtin(const char *name);

/* Checks a template: every "${" names a known variable and is closed, and
 * only variables in `allowed` appear. On a problem returns ERR_INVALID with
 * err->msg saying what ("unknown variable ${rot}") and *offset at the "$".
 * *used gets the variables found. */
int vars_check(const char *tpl, unsigned allowed, unsigned *used, size_t *offset, struct err *err);
/* The same, where the names of `params` (may be NULL) are known too
 * (VAR_PARAM, which `allowed` need not hold). */
int vars_check_params(const char *tpl, unsigned allowed, const struct vars_params *params,
		      unsigned *used, size_t *offset, struct err *err);

/* Appends tpl with each parameter of `params` replaced by its value and
 * everything else (other variables, $${) as written, so that the result is a
 * template again: a "${" inside a value becomes "$${". With shell_quote a
 * value that a shell would split or interpret is single-quoted. The
 * template must have passed vars_check_params. */
int vars_substitute(const char *tpl, const struct vars_params *params, bool shell_quote,
		    struct strbuf *out);

/* A shell-string template: variables must not sit inside the user's own
 * quotes, since himorime quotes substituted values itself. ERR_INVALID with
 * *offset at the variable. */
int vars_check_shell(const char *tpl, size_t *offset, struct err *err);

/* Appends the expansion of `tpl` to out. With shell_quote each substituted
 * value is single-quoted for /bin/sh. ${env:NAME} unset is ERR_EXEC. */
int vars_expand(const char *tpl, const struct vars *values, bool shell_quote, struct strbuf *out,
		struct err *err);

#endif
