/*
 * `himorime help [COMMAND]`: the command list, or one command's usage. The
 * texts live in the command table (main.c), next to the commands they describe.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

int cmd_help(int argc, char **argv)
{
	size_t n, i;
	const struct cmd *cmds = cli_commands(&n);

	if (argc > 2) {
		fprintf(stderr, "himorime: error: help takes at most one command [HMR3001]\n");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	if (argc == 2) {
		const struct cmd *c = cli_find(argv[1]);
		if (!c) {
			fprintf(stderr,
				"himorime: error: unknown command \"%s\" [HMR3001]\n"
				"  hint: run 'himorime help' for the list of commands\n",
				argv[1]);
			return cli_exit(EXIT_USAGE, "invalid command line");
		}
		fputs(c->usage, stdout);
		return EXIT_OK;
	}
	printf("himorime: a performance regression gate for command-line programs\n"
	       "\n"
	       "usage: himorime <command> [flags] [args]\n"
	       "\n"
	       "commands:\n");
	for (i = 0; i < n; i++)
		printf("  %-12s %s\n", cmds[i].name, cmds[i].summary);
	printf("\n"
	       "Run 'himorime help COMMAND' for a command's flags. Documentation: docs/ in the\n"
	       "source tree. Exit codes: 0 ok, 1 budget or regression, 2 invalid suite, 3 usage,\n"
	       "4 execution failure, 5 internal error, 6 metric not measurable.\n");
	return EXIT_OK;
}
