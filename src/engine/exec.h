/*
 * From a suite's `exec` (a command, hook or build step) to a run request the
 * measurer can start: variables expanded (shell-quoted for shell strings),
 * relative paths resolved against the revision's root, and the child's
 * environment built from himorime's own, less the names no child may see,
 * plus the layered `env` of the suite.
 */
#ifndef HIMORIME_ENGINE_EXEC_H
#define HIMORIME_ENGINE_EXEC_H

#include "common/err.h"
#include "common/strbuf.h"
#include "measure/measure.h"
#include "suite/suite.h"
#include "suite/vars.h"

#include <stddef.h>

/* Everything a request points at, owned here. */
struct prepared {
	struct run_request req;
	char **argv;
	char **envp;
	char *cwd;
	/* Values of secret-looking environment variables (TOKEN, SECRET,
	 * PASSWORD, KEY in the name), masked in stderr tails. */
	char **secrets;
	size_t n_secrets;
};

/* Names hidden from children on top of the fixed list in exec.c (tokens,
 * the runner's credentials and files). */
struct hidden_env {
	const char *const *names;
	size_t count;
};

/* Prepares x for a start. root resolves relative paths (cwd); the request's
 * streams and timeout are left for the caller (timeout = x->timeout_ns). */
int exec_prepare(const struct exec *x, const struct vars *vars, const char *root,
		 const struct hidden_env *hidden, struct prepared *out, struct err *err);
void exec_release(struct prepared *p);
/* Adds n arguments (copied) at the end of the prepared command line. */
void exec_append_args(struct prepared *p, char *const *args, size_t n);

/* himorime's environment less the names no child may see: the environment
 * of a helper program himorime runs itself, such as `valgrind --version`,
 * as of the measured commands. A NULL-terminated heap vector for
 * exec_env_free. */
char **exec_scrubbed_env(const struct hidden_env *hidden);
void exec_env_free(char **envp);

/* Sets name=value in the prepared environment unless the exec's own `env`
 * sets name (the suite's word wins). */
void exec_default_env(struct prepared *p, const struct exec *x, const char *name,
		      const char *value);

/* "a/b" relative to base, unless absolute. A heap string. */
char *exec_resolve_path(const char *base, const char *path);

/* The last `cap` bytes of a file, with every secret replaced by "***". */
void exec_stderr_tail(const char *path, size_t cap, const struct prepared *p, struct strbuf *out);

#endif
