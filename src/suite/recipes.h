/*
 * Build recipes: the `build:` step that leaves a project's program at
 * ${artifact}, for the build system a directory shows (Cargo, Go, CMake,
 * Meson, autotools, make, npm). `himorime init` writes one into the suite it
 * makes, and a build that finished without creating ${artifact} names the
 * one its tree calls for (docs/configuration.md#build).
 *
 * Finding the system only looks at which files exist (stat, never open):
 * the engine asks after a build, when the tree holds whatever the build
 * wrote. Finding the program's name reads the marker file (a Cargo.toml's
 * package name, a CMakeLists.txt's add_executable): only `init` does that,
 * before anything has run.
 *
 *     const struct recipe *r = recipes_find(dir, &up);
 *     char *target = recipes_target(r, dir_of_marker);   init only
 *     recipes_command(r, target, &sb);                   "make -j... && cp jq ${artifact}"
 */
#ifndef HIMORIME_SUITE_RECIPES_H
#define HIMORIME_SUITE_RECIPES_H

#include "common/strbuf.h"

#include <stddef.h>

struct recipe {
	const char *system; /* "Cargo", "make" */
	const char *marker; /* the file that shows it: "Cargo.toml" */
	/* A shell command; "{target}" stands for the program's name (or Go's
	 * package path). */
	const char *command;
	/* What stands for the target when it is not known: "PROGRAM". */
	const char *unknown_target;
	/* Reads the marker's text for the target; NULL: none can be read. */
	char *(*target)(const char *dir, const char *text);
};

/* The recipe for `dir` or the nearest directory above it up to the
 * repository's top (the one that holds .git; only dir outside a
 * repository), or NULL. *up is how many levels up the marker is (0: in
 * dir). */
const struct recipe *recipes_find(const char *dir, unsigned *up);
/* The target the marker in `dir` names, or NULL (a heap string): only for
 * a tree nothing has run in. */
char *recipes_target(const struct recipe *r, const char *dir);
/* The command with `target` (NULL: r->unknown_target) in place. */
void recipes_command(const struct recipe *r, const char *target, struct strbuf *out);

#endif
