/*
 * `himorime help [COMMAND]`: the command list, or one command's usage, both
 * from the command table (commands.c): the texts of the row, and its flags'
 * help, each at the command's help column. A measuring command lists only
 * the flags the command it is `like` does not; the heading says which those
 * are, and which of them it does not take.
 */
#include "cli/commands.h"

#include "common/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* Headings are wrapped at this width, as the texts are. */
#define HELP_WIDTH 80

/* Appends `word` to the line being built in out, starting a new line when
 * the current one would pass HELP_WIDTH. */
static void add_word(struct strbuf *out, size_t *line_start, const char *word)
{
	size_t len = strlen(word), at = out->len - *line_start;

	if (at && at + 1 + len > HELP_WIDTH) {
		strbuf_addch(out, '\n');
		*line_start = out->len;
	} else if (at) {
		strbuf_addch(out, ' ');
	}
	strbuf_adds(out, word);
}

/* "flags:", or "flags (besides those of 'himorime help run' except
 * --format and --output):", wrapped. */
static void heading(const struct cmd *c, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT, word = STRBUF_INIT;
	size_t n, i, start = out->len;
	const struct opt **except = cli_help_except(c, &n);
	const char *p, *space;

	if (!c->like) {
		strbuf_adds(out, "flags:\n");
		free(except);
		return;
	}
	strbuf_addf(&text, "flags (besides those of 'himorime help %s'", c->like);
	for (i = 0; i < n; i++)
		strbuf_addf(&text, "%s--%s",
			    !i		? " except "
			    : i + 1 < n ? ", "
					: " and ",
			    except[i]->name);
	strbuf_adds(&text, "):");
	for (p = text.buf; *p; p = *space ? space + 1 : space) {
		space = strchrnul(p, ' ');
		strbuf_reset(&word);
		strbuf_add(&word, p, (size_t)(space - p));
		add_word(out, &start, word.buf);
	}
	strbuf_addch(out, '\n');
	strbuf_release(&word);
	strbuf_release(&text);
	free(except);
}

/* "  -o, --output FILE  write the report there", the help's further lines
 * indented to the column (two spaces at least after the flag; a help that
 * starts with a newline starts on the next line, for a long flag). */
static void flag_line(const struct opt *o, size_t column, struct strbuf *out)
{
	size_t start = out->len, used;
	const char *p;

	strbuf_adds(out, "  ");
	if (o->short_name)
		strbuf_addf(out, "-%c, ", o->short_name);
	strbuf_addf(out, "--%s", o->name);
	if (o->arg)
		strbuf_addf(out, " %s", o->arg);
	used = out->len - start;
	if (o->help[0] != '\n')
		strbuf_addf(out, "%*s", (int)(used + 2 <= column ? column - used : 2), "");
	for (p = o->help; *p; p++) {
		strbuf_addch(out, *p);
		if (*p == '\n')
			strbuf_addf(out, "%*s", (int)column, "");
	}
	strbuf_addch(out, '\n');
}

static void usage_text(const struct cmd *c, struct strbuf *out)
{
	size_t n, i;
	const struct opt **flags = cli_help_flags(c, &n);

	strbuf_addf(out, "usage: himorime %s\n%s", c->synopsis, c->about);
	if (n) {
		strbuf_addch(out, '\n');
		heading(c, out);
		for (i = 0; i < n; i++)
			flag_line(flags[i], c->help_column, out);
	}
	if (c->notes)
		strbuf_addf(out, "\n%s", c->notes);
	free(flags);
}

static void list_text(struct strbuf *out)
{
	size_t n, i;
	const struct cmd *cmds = cli_commands(&n);

	strbuf_adds(out, "himorime: a performance regression gate for command-line programs\n"
			 "\n"
			 "usage: himorime <command> [flags] [args]\n"
			 "\n"
			 "commands:\n");
	for (i = 0; i < n; i++)
		strbuf_addf(out, "  %-12s %s\n", cmds[i].name, cmds[i].summary);
	strbuf_adds(
		out,
		"\n"
		"Run 'himorime help COMMAND' for a command's flags. Documentation: docs/ in the\n"
		"source tree. Exit codes: 0 ok, 1 budget or regression, 2 invalid suite, 3 usage,\n"
		"4 execution failure, 5 internal error, 6 metric not measurable.\n");
}

int cmd_help(struct cmd_args *a)
{
	struct strbuf out = STRBUF_INIT;
	const struct cmd *c = NULL;

	if (a->operands.n > 1) {
		cli_error(HMR_USAGE, "help takes at most one command");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	if (a->operands.n == 1 && !(c = cli_find(a->operands.v[0]))) {
		cli_error(HMR_USAGE, "unknown command \"%s\"", a->operands.v[0]);
		fprintf(stderr, "  hint: run 'himorime help' for the list of commands\n");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	if (c)
		usage_text(c, &out);
	else
		list_text(&out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	return EXIT_OK;
}
