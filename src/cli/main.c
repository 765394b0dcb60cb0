/*
 * Entry point: finds the subcommand in the command table (commands.c) and
 * runs it. `-h`, `--help` and `-help` mean `help`; `-v`, `--version` and
 * `-version` mean `version`; no command at all means `help`.
 */
#include "cli/commands.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

/* The command an alias names, else name itself. */
static const char *unalias(const char *name)
{
	static const struct {
		const char *alias, *name;
	} aliases[] = {
		{ .alias = "-h", .name = "help" },
		{ .alias = "--help", .name = "help" },
		{ .alias = "-help", .name = "help" },
		{ .alias = "-v", .name = "version" },
		{ .alias = "--version", .name = "version" },
		{ .alias = "-version", .name = "version" },
	};
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			return aliases[i].name;
	return name;
}

int main(int argc, char **argv)
{
	char *help_argv[] = { (char *)"help", NULL };
	const struct cmd *c;

	cli_secrets_take();
	/* A reader that goes away is an EPIPE to handle, not a death that
	 * would leave temporary directories behind. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return cli_run(cli_find("help"), 1, help_argv);
	c = cli_find(unalias(argv[1]));
	if (!c) {
		cli_error(HMR_USAGE, "unknown command \"%s\"", argv[1]);
		fprintf(stderr, "  hint: run 'himorime help' for the list of commands\n");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	argv[1] = (char *)c->name;
	return cli_run(c, argc - 1, argv + 1);
}
