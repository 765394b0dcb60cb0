/*
 * Finding helper programs where the measured code cannot write: see
 * helper.h.
 */
#include "measure/helper.h"

#include "common/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

/* The places the measured code is given to write: a variable's value, or
 * (env NULL) a fixed path, "." being the working directory. */
static const struct {
	const char *env, *path;
} places[] = {
	{ .path = "." },	  { .env = "GITHUB_WORKSPACE" },
	{ .env = "RUNNER_TEMP" }, { .env = "TMPDIR" },
	{ .env = "HOME" },	  { .path = "/tmp" },
	{ .path = "/var/tmp" },	  { .path = "/dev/shm" },
};

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Whether real (a real path) lies in one of the places; err says which. */
static bool in_a_place(const char *real, const char *shown, struct err *err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(places); i++) {
		const char *p = places[i].env ? getenv(places[i].env) : places[i].path;
		char *rp = p && *p ? realpath(p, NULL) : NULL;
		/* a place that is / (HOME=/ in some containers) would refuse all */
		bool hit = rp && strcmp(rp, "/") && under(real, rp);
		if (hit)
			err_set(err, ERR_METRIC,
				"\"%s\" is in a place the measured code can write (under "
				"%s%s\"%s\")",
				shown,
				places[i].env		   ? places[i].env
				: places[i].path[0] == '.' ? "the working directory"
							   : "",
				places[i].env || places[i].path[0] == '.' ? " " : "", rp);
		free(rp);
		if (hit)
			return true;
	}
	return false;
}

/* Whether the user can change path: owns it or may write to it. Root may
 * write everywhere, so for root this says nothing and is not asked. */
static bool users(const char *path)
{
	struct stat st;

	return stat(path, &st) != 0 || st.st_uid == geteuid() ||
	       faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/* The file and every directory above it: none the user's to change. */
static bool users_chain(const char *real, const char *shown, struct err *err)
{
	char *p = xstrdup(real), *slash;
	bool hit = false;

	for (;;) {
		if (users(p)) {
			err_set(err, ERR_METRIC,
				"\"%s\" could be changed by the measured code (\"%s\" is owned or "
				"writable by this user)",
				shown, p);
			hit = true;
			break;
		}
		slash = strrchr(p, '/');
		if (!slash || p[1] == '\0')
			break;
		slash[slash == p] = '\0'; /* "/usr" becomes "/", not "" */
	}
	free(p);
	return hit;
}

/* One PATH entry: 1 with *out when dir/name is a trusted program, 0 when
 * there is none, -1 with err when there is one the measured code could
 * have put or changed. */
static int candidate(const char *dir, size_t len, const char *name, char **out, struct err *err)
{
	char *shown = len ? xasprintf("%.*s/%s", (int)len, dir, name) : xasprintf("./%s", name);
	char *real = NULL;
	struct stat st;
	int rc = 0;

	if (stat(shown, &st) != 0 || !S_ISREG(st.st_mode) || access(shown, X_OK) != 0)
		goto done;
	rc = -1;
	if (len == 0 || dir[0] != '/')
		err_set(err, ERR_METRIC,
			"\"%s\" is in a relative PATH entry (the working directory)", shown);
	else if (!(real = realpath(shown, NULL)))
		err_set(err, ERR_METRIC, "cannot resolve \"%s\": %s", shown, strerror(errno));
	else if ((geteuid() == 0 || !users_chain(real, shown, err)) &&
		 !in_a_place(real, shown, err))
		rc = 1;
done:
	if (rc == 1)
		*out = xstrdup(real);
	free(real);
	free(shown);
	return rc;
}

int helper_find(const char *name, const char *path_env, char **out, struct err *err)
{
	struct err first = ERR_INIT, later = ERR_INIT;
	const char *p = path_env, *colon;

	*out = NULL;
	for (; p; p = *colon ? colon + 1 : NULL) {
		colon = strchrnul(p, ':');
		if (candidate(p, (size_t)(colon - p), name, out, first.code ? &later : &first) == 1)
			return 0;
	}
	if (first.code) {
		*err = first;
		return ERR_METRIC;
	}
	return err_set(err, ERR_METRIC, "no \"%s\" in PATH", name);
}
