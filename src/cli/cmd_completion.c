/*
 * `himorime completion bash|zsh|fish`: completion scripts generated from the
 * command table (commands.c), so that they never miss a command or a flag:
 * the commands in the first position, then, for a word that starts with a
 * dash, the flags of the command given, else file names.
 */
#include "cli/commands.h"

#include "common/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static void add_names(struct strbuf *out)
{
	size_t n, i;
	const struct cmd *cmds = cli_commands(&n);

	for (i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i ? " " : "", cmds[i].name);
}

/* "--filter --tag -o --output ...": every flag c takes. */
static void add_flags(struct strbuf *out, const struct cmd *c)
{
	size_t n, i;
	const struct opt **flags = cli_flags(c, &n);

	for (i = 0; i < n; i++) {
		if (flags[i]->short_name)
			strbuf_addf(out, "-%c ", flags[i]->short_name);
		strbuf_addf(out, "--%s%s", flags[i]->name, i + 1 < n ? " " : "");
	}
	free(flags);
}

/* One `case` arm per command that has flags: `line`, a format that takes
 * the command's name and its flags. */
static void add_cases(struct strbuf *out, const char *line)
{
	size_t n, i;
	const struct cmd *cmds = cli_commands(&n);

	for (i = 0; i < n; i++) {
		struct strbuf flags = STRBUF_INIT;
		add_flags(&flags, &cmds[i]);
		if (flags.len)
			strbuf_addf(out, line, cmds[i].name, flags.buf);
		strbuf_release(&flags);
	}
}

static void bash(struct strbuf *out)
{
	strbuf_adds(out, "# bash completion for himorime\n"
			 "_himorime() {\n"
			 "\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
			 "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
			 "\t\tCOMPREPLY=($(compgen -W \"");
	add_names(out);
	strbuf_adds(out, "\" -- \"$cur\"))\n"
			 "\t\treturn\n"
			 "\tfi\n"
			 "\tcase \"$cur\" in\n"
			 "\t-*)\n"
			 "\t\tcase \"${COMP_WORDS[1]}\" in\n");
	add_cases(out, "\t\t%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n");
	strbuf_adds(out, "\t\tesac ;;\n"
			 "\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
			 "\tesac\n"
			 "}\n"
			 "complete -F _himorime himorime\n");
}

static void zsh(struct strbuf *out)
{
	strbuf_adds(out, "#compdef himorime\n"
			 "_himorime() {\n"
			 "\tif (( CURRENT == 2 )); then\n"
			 "\t\tcompadd ");
	add_names(out);
	strbuf_adds(out, "\n"
			 "\telif [[ $PREFIX == -* ]]; then\n"
			 "\t\tcase $words[2] in\n");
	add_cases(out, "\t\t%s) compadd -- %s ;;\n");
	strbuf_adds(out, "\t\tesac\n"
			 "\telse\n"
			 "\t\t_files\n"
			 "\tfi\n"
			 "}\n"
			 "compdef _himorime himorime\n");
}

/* The first line of a flag's help, as a fish single-quoted string. */
static void fish_description(struct strbuf *out, const char *help)
{
	const char *p;

	strbuf_addch(out, '\'');
	for (p = help; *p && *p != '\n'; p++) {
		if (*p == '\'' || *p == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

static void fish(struct strbuf *out)
{
	size_t n, i, k, m;
	const struct cmd *cmds = cli_commands(&n);

	strbuf_adds(out, "# fish completion for himorime\n"
			 "complete -c himorime -f -n '__fish_use_subcommand' -a '");
	add_names(out);
	strbuf_adds(out, "'\n");
	for (i = 0; i < n; i++) {
		const struct opt **flags = cli_flags(&cmds[i], &m);
		for (k = 0; k < m; k++) {
			strbuf_addf(out, "complete -c himorime -n '__fish_seen_subcommand_from %s'",
				    cmds[i].name);
			if (flags[k]->short_name)
				strbuf_addf(out, " -s %c", flags[k]->short_name);
			strbuf_addf(out, " -l %s%s -d ", flags[k]->name,
				    flags[k]->kind == OPT_FLAG ? "" : " -r");
			fish_description(out, flags[k]->help);
			strbuf_addch(out, '\n');
		}
		free(flags);
	}
}

int cmd_completion(struct cmd_args *a)
{
	static const struct {
		const char *name;
		void (*script)(struct strbuf *out);
	} shells[] = {
		{ .name = "bash", .script = bash },
		{ .name = "zsh", .script = zsh },
		{ .name = "fish", .script = fish },
	};
	struct strbuf out = STRBUF_INIT;
	size_t i;

	if (a->operands.n != 1) {
		cli_error(HMR_USAGE, "completion needs one shell: bash, zsh or fish");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	for (i = 0; i < ARRAY_SIZE(shells); i++)
		if (!strcmp(a->operands.v[0], shells[i].name))
			break;
	if (i == ARRAY_SIZE(shells)) {
		cli_error(HMR_USAGE, "unknown shell \"%s\": expected bash, zsh or fish",
			  a->operands.v[0]);
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	shells[i].script(&out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	return EXIT_OK;
}
