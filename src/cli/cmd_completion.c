/*
 * `himorime completion bash|zsh|fish`: completion scripts generated from the
 * command table, so that they never miss a command.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static void print_names(void)
{
	size_t n, i;
	const struct cmd *cmds = cli_commands(&n);

	for (i = 0; i < n; i++)
		printf("%s%s", i ? " " : "", cmds[i].name);
}

static void bash(void)
{
	printf("# bash completion for himorime\n"
	       "_himorime() {\n"
	       "\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
	       "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W \"");
	print_names();
	printf("\" -- \"$cur\"))\n"
	       "\telse\n"
	       "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\tfi\n"
	       "}\n"
	       "complete -F _himorime himorime\n");
}

static void zsh(void)
{
	printf("#compdef himorime\n"
	       "_himorime() {\n"
	       "\tif (( CURRENT == 2 )); then\n"
	       "\t\tcompadd ");
	print_names();
	printf("\n"
	       "\telse\n"
	       "\t\t_files\n"
	       "\tfi\n"
	       "}\n"
	       "compdef _himorime himorime\n");
}

static void fish(void)
{
	printf("# fish completion for himorime\n"
	       "complete -c himorime -f -n '__fish_use_subcommand' -a '");
	print_names();
	printf("'\n");
}

int cmd_completion(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "himorime: error: completion needs one shell: bash, zsh or fish "
				"[HMR3001]\n");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	if (!strcmp(argv[1], "bash"))
		bash();
	else if (!strcmp(argv[1], "zsh"))
		zsh();
	else if (!strcmp(argv[1], "fish"))
		fish();
	else {
		fprintf(stderr,
			"himorime: error: unknown shell \"%s\": expected bash, zsh or fish "
			"[HMR3001]\n",
			argv[1]);
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	return EXIT_OK;
}
