/*
 * Helper programs: the programs himorime runs itself, beside the suite's
 * commands (valgrind, for counts). The measured code runs as the same user
 * and may write wherever that user may: a helper looked up in PATH when it
 * is needed, after the builds, could be one the pull request put there (the
 * Action puts a runner-writable bin directory first on PATH). So a helper is
 * found once, when the runner is made (before any build, hook or command),
 * and only where the measured code cannot write (docs/github-actions.md,
 * "Threat model"):
 *
 * - the PATH entry is absolute: an empty or relative entry names the
 *   working directory, the checkout;
 * - the program's real path (links followed) lies outside the places the
 *   measured code is given to write: the working directory, GITHUB_WORKSPACE,
 *   RUNNER_TEMP, TMPDIR, HOME, /tmp, /var/tmp and /dev/shm;
 * - unless himorime runs as root, neither the program nor any directory above
 *   it is owned by, or writable by, himorime's user. (Root may write
 *   everywhere; there only the places above are refused, and what holds is
 *   that no token is in a job that runs pull-request code.)
 *
 * A candidate that fails is skipped; the first that passes is the helper,
 * run from then on by its absolute path.
 *
 *     char *valgrind;
 *     if (helper_find("valgrind", getenv("PATH"), &valgrind, &err) < 0) report err.msg;
 */
#ifndef HIMORIME_MEASURE_HELPER_H
#define HIMORIME_MEASURE_HELPER_H

#include "common/err.h"

/* The real, absolute path of the first trusted `name` in path_env (a PATH
 * value; NULL: none) in *out, a heap string; or ERR_METRIC with why there is
 * none: "no \"valgrind\" in PATH", or why the first candidate was refused,
 * e.g. "\"/tmp/b/valgrind\" is in a place the measured code can write
 * (under TMPDIR \"/tmp\")". */
int helper_find(const char *name, const char *path_env, char **out, struct err *err);

#endif
