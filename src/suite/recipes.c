/*
 * Build recipes: see recipes.h. One row per build system, most specific
 * first (a CMake project may have a Makefile beside its CMakeLists.txt; an
 * autotools one a Makefile.am and, once configured, a Makefile).
 */
#include "suite/recipes.h"

#include "common/alloc.h"
#include "common/fsio.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

#define MARKER_CAP (1 << 20) /* a marker file read for its target */
#define UP_MAX	   16	     /* directories searched above the suite's */

/* Only names a shell takes as they are: anything else stays unknown. */
static char *safe_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 128 || s[0] == '-')
		return NULL;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/+-", s[i]))
			return NULL;
	return xstrndup(s, n);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The quoted string at p ('x' or "x"), or NULL. */
static char *quoted(const char *p)
{
	const char *end;
	char q = *p;

	if (q != '"' && q != '\'')
		return NULL;
	end = strchr(p + 1, q);
	return end ? safe_name(p + 1, (size_t)(end - p - 1)) : NULL;
}

/* Cargo.toml: the first [[bin]]'s name, else [package]'s. */
static char *cargo_target(const char *dir, const char *text)
{
	const char *p = text;
	char *package = NULL;
	bool in_bin = false, in_package = false;

	(void)dir;
	while (*p) {
		const char *line = skip_space(p), *eq;
		size_t n = strcspn(p, "\n");
		if (*line == '[') {
			in_bin = !strncmp(line, "[[bin]]", 7);
			in_package = !strncmp(line, "[package]", 9);
		} else if ((in_bin || in_package) && !strncmp(line, "name", 4) &&
			   *(eq = skip_space(line + 4)) == '=') {
			char *name = quoted(skip_space(eq + 1));
			if (name && in_bin) {
				free(package);
				return name;
			}
			if (name && !package)
				package = name;
			else
				free(name);
		}
		p += n;
		if (*p)
			p++;
	}
	return package;
}

static bool has_main_package(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *path, *text = NULL;
		size_t len;
		struct err err = ERR_INIT;
		if (n < 4 || strcmp(e->d_name + n - 3, ".go") || strstr(e->d_name, "_test.go"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (fsio_read_file(path, MARKER_CAP, &text, &len, &err) == 0)
			found = !strncmp(text, "package main", 12) ||
				strstr(text, "\npackage main");
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	return found;
}

/* go.mod: "." when the top is package main, else the first ./cmd/NAME. */
static char *go_target(const char *dir, const char *text)
{
	char *cmd = xasprintf("%s/cmd", dir), *first = NULL;
	struct dirent *e;
	DIR *d;

	(void)text;
	if (has_main_package(dir)) {
		free(cmd);
		return xstrdup(".");
	}
	d = opendir(cmd);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && e->d_type == DT_DIR &&
		    (!first || strcmp(e->d_name, first) < 0)) {
			free(first);
			first = xstrdup(e->d_name);
		}
	if (d)
		closedir(d);
	free(cmd);
	if (!first)
		return NULL;
	cmd = xasprintf("./cmd/%s", first);
	free(first);
	first = safe_name(cmd, strlen(cmd));
	free(cmd);
	return first;
}

/* The first argument of the first `call(` in text: a bare word, or a
 * quoted string; NULL when it is a variable or anything else. */
static char *first_argument(const char *text, const char *call)
{
	const char *p = strstr(text, call), *end;

	if (!p)
		return NULL;
	p = skip_space(p + strlen(call));
	if (*p == '[') /* m4 quoting: AC_INIT([jq], ...) */
		p++;
	if (*p == '"' || *p == '\'')
		return quoted(p);
	end = p;
	while (*end && (isalnum((unsigned char)*end) || strchr("._+-", *end)))
		end++;
	return safe_name(p, (size_t)(end - p));
}

static char *cmake_target(const char *dir, const char *text)
{
	(void)dir;
	return first_argument(text, "add_executable(");
}

static char *meson_target(const char *dir, const char *text)
{
	(void)dir;
	return first_argument(text, "executable(");
}

/* AC_INIT([jq], ...): the package's name, which is the program's for most
 * single-program packages. */
static char *autoconf_target(const char *dir, const char *text)
{
	char *name = first_argument(text, "AC_INIT(");
	size_t i;

	(void)dir;
	for (i = 0; name && name[i]; i++)
		name[i] = (char)tolower((unsigned char)name[i]);
	return name;
}

/* A Makefile names no program: the directory's name is the usual guess. */
static char *make_target(const char *dir, const char *text)
{
	const char *slash = strrchr(dir, '/');

	(void)text;
	return safe_name(slash ? slash + 1 : dir, strlen(slash ? slash + 1 : dir));
}

/* package.json: "bin": "cli.js", or "bin": {"name": "cli.js"}. */
static char *npm_target(const char *dir, const char *text)
{
	const char *p = strstr(text, "\"bin\"");

	(void)dir;
	if (!p || *(p = skip_space(p + 5)) != ':')
		return NULL;
	p = skip_space(p + 1);
	if (*p == '{') { /* the first entry's value */
		p = strchr(p, ':');
		if (!p)
			return NULL;
		p = skip_space(p + 1);
	}
	return quoted(p);
}

static const struct recipe recipes[] = {
	{
		.system = "Cargo",
		.marker = "Cargo.toml",
		.command = "cargo build --release && cp target/release/{target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = cargo_target,
	},
	{
		.system = "Go",
		.marker = "go.mod",
		.command = "go build -o ${artifact} {target}",
		.unknown_target = ".",
		.target = go_target,
	},
	{
		.system = "CMake",
		.marker = "CMakeLists.txt",
		.command = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build "
			   "--parallel && cp build/{target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = cmake_target,
	},
	{
		.system = "Meson",
		.marker = "meson.build",
		.command = "{ test -d build || meson setup build --buildtype=release; } && meson "
			   "compile -C build && cp build/{target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = meson_target,
	},
	/* the base is a fresh checkout: configure is generated on both sides */
	{
		.system = "autotools",
		.marker = "configure.ac",
		.command = "autoreconf -fi && ./configure && make -j$(nproc) && cp {target} "
			   "${artifact}",
		.unknown_target = "PROGRAM",
		.target = autoconf_target,
	},
	{
		.system = "autotools",
		.marker = "configure",
		.command = "./configure && make -j$(nproc) && cp {target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = NULL,
	},
	{
		.system = "make",
		.marker = "GNUmakefile",
		.command = "make -j$(nproc) && cp {target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = make_target,
	},
	{
		.system = "make",
		.marker = "makefile",
		.command = "make -j$(nproc) && cp {target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = make_target,
	},
	{
		.system = "make",
		.marker = "Makefile",
		.command = "make -j$(nproc) && cp {target} ${artifact}",
		.unknown_target = "PROGRAM",
		.target = make_target,
	},
	/* a script, not a binary: a wrapper that runs it from the tree */
	{
		.system = "npm",
		.marker = "package.json",
		.command =
			"npm ci && npm run build --if-present && printf '#!/bin/sh\\nexec node %s "
			"\"$@\"\\n' \"$PWD/{target}\" > ${artifact} && chmod +x ${artifact}",
		.unknown_target = "PATH/TO/CLI.js",
		.target = npm_target,
	},
};

static bool is_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool yes = stat(path, &st) == 0 && S_ISREG(st.st_mode);

	free(path);
	return yes;
}

static bool is_top(const char *dir)
{
	char *git = xasprintf("%s/.git", dir);
	struct stat st;
	bool yes = lstat(git, &st) == 0;

	free(git);
	return yes;
}

/* How many levels above dir the repository's top is (the nearest directory
 * with .git); 0 outside a repository, where only dir itself is searched. */
static unsigned levels_to_top(const char *dir)
{
	char *d = xstrdup(dir), *slash;
	unsigned level = 0;

	while (!is_top(d)) {
		slash = strrchr(d, '/');
		if (!slash || slash == d || ++level >= UP_MAX) {
			level = 0;
			break;
		}
		*slash = '\0';
	}
	free(d);
	return level;
}

const struct recipe *recipes_find(const char *dir, unsigned *up)
{
	char *d = xstrdup(dir), *slash;
	unsigned level, top = levels_to_top(dir);
	size_t i;

	for (level = 0; level <= top; level++) {
		for (i = 0; i < ARRAY_SIZE(recipes); i++)
			if (is_file(d, recipes[i].marker)) {
				free(d);
				*up = level;
				return &recipes[i];
			}
		slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return NULL;
}

char *recipes_target(const struct recipe *r, const char *dir)
{
	struct err err = ERR_INIT;
	char *path, *text = NULL, *target = NULL;
	size_t len;

	if (!r->target)
		return NULL;
	path = xasprintf("%s/%s", dir, r->marker);
	if (fsio_read_file(path, MARKER_CAP, &text, &len, &err) == 0)
		target = r->target(dir, text);
	free(text);
	free(path);
	return target;
}

void recipes_command(const struct recipe *r, const char *target, struct strbuf *out)
{
	const char *p = r->command, *hole = strstr(p, "{target}");

	if (!hole) {
		strbuf_adds(out, p);
		return;
	}
	strbuf_add(out, p, (size_t)(hole - p));
	strbuf_adds(out, target ? target : r->unknown_target);
	strbuf_adds(out, hole + strlen("{target}"));
}
