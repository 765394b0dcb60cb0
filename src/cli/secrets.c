/*
 * The GitHub token, taken out of the environment before anything else runs.
 * The measured code is the pull request's code: it runs as the same user and
 * could read /proc/<himorime>/environ or attach to himorime. So main() makes
 * the process non-dumpable (its /proc files and ptrace are closed to the same
 * user) and moves the token into private memory: its bytes in the initial
 * environment block are overwritten and the variable is removed. See
 * docs/github-actions.md, "Threat model".
 */
#include "cli/cli.h"

#include "common/alloc.h"
#include "github/http.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "common/banned.h"

/* In the order github_http_pick_token prefers them; GH_TOKEN is only removed. */
static const char *const token_names[] = { "GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GH_TOKEN" };
static char *taken[ARRAY_SIZE(token_names)];

void cli_secrets_take(void)
{
	size_t i;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (i = 0; i < ARRAY_SIZE(token_names); i++) {
		char *value = getenv(token_names[i]);

		if (!value)
			continue;
		taken[i] = xstrdup(value);
		memset(value, 0, strlen(value));
		unsetenv(token_names[i]);
	}
}

const char *cli_token(void)
{
	return github_http_pick_token(taken[0], taken[1]);
}
