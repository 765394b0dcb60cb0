/*
 * Preparing suite execs for the measurer: see exec.h.
 */
#include "engine/exec.h"

#include "common/alloc.h"
#include "common/fsio.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

extern char **environ;

char *exec_resolve_path(const char *base, const char *path)
{
	if (path[0] == '/' || !base)
		return xstrdup(path);
	if (!strcmp(path, "."))
		return xstrdup(base);
	return xasprintf("%s/%s", base, path);
}

static char *expand(const char *tpl, const struct vars *vars, bool quote, struct err *err)
{
	struct strbuf sb;

	strbuf_init(&sb, 0);
	if (vars_expand(tpl, vars, quote, &sb, err) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* Never inherited by a measured command, a hook or a build: the token, the
 * runner's own credentials and the files through which a step talks to the
 * runner (docs/github-actions.md, "Threat model"). A suite may pass one back
 * explicitly through `env:`. */
static const char *const always_hidden[] = {
	"GITHUB_TOKEN",
	"INPUT_GITHUB-TOKEN",
	"GH_TOKEN",
	"ACTIONS_RUNTIME_TOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"ACTIONS_ID_TOKEN_REQUEST_URL",
	"ACTIONS_RUNTIME_URL",
	"ACTIONS_CACHE_URL",
	"GITHUB_OUTPUT",
	"GITHUB_STEP_SUMMARY",
	"GITHUB_ENV",
	"GITHUB_PATH",
	"GITHUB_STATE",
};

static bool name_in(const char *const *names, size_t count, const char *entry)
{
	size_t i, n = strcspn(entry, "=");

	for (i = 0; i < count; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], entry, n))
			return true;
	return false;
}

static bool is_hidden(const struct hidden_env *h, const char *entry)
{
	return name_in(always_hidden, ARRAY_SIZE(always_hidden), entry) ||
	       (h && name_in(h->names, h->count, entry));
}

static bool looks_secret(const char *name, size_t n)
{
	static const char *const words[] = { "TOKEN",  "SECRET", "PASSWORD",
					     "PASSWD", "KEY",	 "CREDENTIAL" };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		size_t w = strlen(words[i]);
		for (j = 0; j + w <= n; j++)
			if (!strncasecmp(name + j, words[i], w))
				return true;
	}
	return false;
}

static void add_secret(struct prepared *p, const char *entry)
{
	const char *eq = strchr(entry, '=');

	if (!eq || strlen(eq + 1) < 4 || !looks_secret(entry, (size_t)(eq - entry)))
		return;
	p->secrets = xrealloc(p->secrets, (p->n_secrets + 1) * sizeof(*p->secrets));
	p->secrets[p->n_secrets++] = xstrdup(eq + 1);
}

/* Sets NAME=value in a NULL-terminated heap environment, replacing an
 * existing entry. */
static void env_set(char ***envp, size_t *n, const char *name, const char *value)
{
	size_t i, len = strlen(name);
	char *entry = xasprintf("%s=%s", name, value);

	for (i = 0; i < *n; i++)
		if (!strncmp((*envp)[i], name, len) && (*envp)[i][len] == '=') {
			free((*envp)[i]);
			(*envp)[i] = entry;
			return;
		}
	*envp = xrealloc(*envp, (*n + 2) * sizeof(**envp));
	(*envp)[(*n)++] = entry;
	(*envp)[*n] = NULL;
}

char **exec_scrubbed_env(const struct hidden_env *hidden)
{
	size_t n = 0, i;
	char **env = xcalloc(1, sizeof(*env));

	for (i = 0; environ && environ[i]; i++) {
		if (is_hidden(hidden, environ[i]))
			continue;
		env = xrealloc(env, (n + 2) * sizeof(*env));
		env[n++] = xstrdup(environ[i]);
		env[n] = NULL;
	}
	return env;
}

static int build_env(const struct exec *x, const struct vars *vars, const struct hidden_env *hidden,
		     struct prepared *p, struct err *err)
{
	size_t n = 0, i;

	p->envp = exec_scrubbed_env(hidden);
	while (p->envp[n])
		n++;
	for (i = 0; i < x->env_count; i++) {
		char *v = expand(x->env[i].value, vars, false, err);
		if (!v)
			return err_wrap(err, "env %s", x->env[i].name);
		env_set(&p->envp, &n, x->env[i].name, v);
		free(v);
	}
	for (i = 0; p->envp[i]; i++)
		add_secret(p, p->envp[i]);
	return 0;
}

static int build_argv(const struct exec *x, const struct vars *vars, struct prepared *p,
		      struct err *err)
{
	size_t i;

	switch (x->kind) {
	case EXEC_SHELL:
		p->argv = xcalloc(4, sizeof(*p->argv));
		p->argv[0] = xstrdup("/bin/sh");
		p->argv[1] = xstrdup("-c");
		p->argv[2] = expand(x->shell, vars, true, err);
		return p->argv[2] ? 0 : ERR_EXEC;
	case EXEC_ARGV:
		p->argv = xcalloc(x->argc + 1, sizeof(*p->argv));
		for (i = 0; i < x->argc; i++) {
			p->argv[i] = expand(x->argv[i], vars, false, err);
			if (!p->argv[i])
				return ERR_EXEC;
		}
		return 0;
	}
	return err_set(err, ERR_INTERNAL, "unknown exec kind");
}

int exec_prepare(const struct exec *x, const struct vars *vars, const char *root,
		 const struct hidden_env *hidden, struct prepared *out, struct err *err)
{
	char *cwd;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = build_argv(x, vars, out, err);
	if (rc < 0)
		return rc;
	rc = build_env(x, vars, hidden, out, err);
	if (rc < 0)
		return rc;
	cwd = expand(x->cwd ? x->cwd : "${root}", vars, false, err);
	if (!cwd)
		return ERR_EXEC;
	out->cwd = exec_resolve_path(root, cwd);
	free(cwd);
	out->req.argv = out->argv;
	out->req.envp = out->envp;
	out->req.cwd = out->cwd;
	out->req.timeout_ns = x->timeout_ns;
	return 0;
}

void exec_default_env(struct prepared *p, const struct exec *x, const char *name, const char *value)
{
	size_t i, n = 0;

	for (i = 0; i < x->env_count; i++)
		if (!strcmp(x->env[i].name, name))
			return;
	while (p->envp[n])
		n++;
	env_set(&p->envp, &n, name, value);
	p->req.envp = p->envp;
}

static void free_vec(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void exec_env_free(char **envp)
{
	free_vec(envp);
}

void exec_append_args(struct prepared *p, char *const *args, size_t n)
{
	size_t argc = 0, i;

	while (p->argv[argc])
		argc++;
	p->argv = xrealloc(p->argv, (argc + n + 1) * sizeof(*p->argv));
	for (i = 0; i < n; i++)
		p->argv[argc + i] = xstrdup(args[i]);
	p->argv[argc + n] = NULL;
	p->req.argv = p->argv;
}

void exec_release(struct prepared *p)
{
	size_t i;

	if (!p)
		return;
	free_vec(p->argv);
	free_vec(p->envp);
	free(p->cwd);
	for (i = 0; i < p->n_secrets; i++)
		free(p->secrets[i]);
	free(p->secrets);
	memset(p, 0, sizeof(*p));
}

static void mask(struct strbuf *sb, const char *secret)
{
	size_t n = strlen(secret);
	char *hit;

	while ((hit = strstr(sb->buf, secret))) {
		struct strbuf tmp;
		strbuf_init(&tmp, 0);
		strbuf_add(&tmp, sb->buf, (size_t)(hit - sb->buf));
		strbuf_adds(&tmp, "***");
		strbuf_adds(&tmp, hit + n);
		strbuf_release(sb);
		*sb = tmp;
	}
}

void exec_stderr_tail(const char *path, size_t cap, const struct prepared *p, struct strbuf *out)
{
	struct stat st;
	struct strbuf sb;
	char *buf;
	ssize_t n;
	off_t from;
	size_t i;
	struct err err = ERR_INIT;
	/* The measured command can put a FIFO in its stderr file's place:
	 * opened without blocking, and only when regular. */
	int fd = fsio_open_regular(path, &err);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	/* Read a little more than the cap so that a secret cut by the cap's
	 * edge is still masked, then keep the cap's worth. */
	from = st.st_size > (off_t)(cap + 256) ? st.st_size - (off_t)(cap + 256) : 0;
	buf = xmalloc(cap + 257);
	n = pread(fd, buf, cap + 256, from);
	close(fd);
	if (n <= 0) {
		free(buf);
		return;
	}
	strbuf_init(&sb, 0);
	strbuf_add(&sb, buf, (size_t)n);
	free(buf);
	for (i = 0; p && i < p->n_secrets; i++)
		mask(&sb, p->secrets[i]);
	if (sb.len > cap)
		strbuf_add(out, sb.buf + sb.len - cap, cap);
	else
		strbuf_add(out, sb.buf, sb.len);
	strbuf_release(&sb);
}
