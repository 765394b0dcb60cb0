/*
 * Which benchmarks a command works on: --filter REGEXP (an unanchored search
 * in the name), --tag (any of), --skip-tag (any of; wins over --tag). Shared
 * by list, run, compare and ci so that they always agree. A filter of the
 * form NAME[k=v,...] is not a regular expression (its brackets would be a
 * character class) but a case selector: the cases of NAME with those values
 * (docs/configuration.md, "Parameters"). Nor is one of the form
 * COMMAND › GLOB, a harness case's label as the reports print it: it keeps
 * the benchmarks with a harness command whose name COMMAND matches, and
 * the plan has those commands keep only their harness benchmarks GLOB
 * matches (both are harness filters, harness/select.h: `*` any run of
 * characters, `?` one, `\` escapes; docs/configuration.md, "Selecting
 * harness benchmarks").
 */
#ifndef HIMORIME_CLI_SELECT_H
#define HIMORIME_CLI_SELECT_H

#include "cli/opts.h"
#include "suite/suite.h"

#include <regex.h>
#include <stdbool.h>

struct selection {
	regex_t re;
	bool has_re;
	struct params_selector cases;
	bool has_cases;
	/* COMMAND › GLOB: owned copies of both parts, or NULL. */
	char *harness_command, *harness_filter;
	const struct strlist *tags, *skip_tags;
};

/* ERR_USAGE when the filter is not a valid regular expression, or a
 * COMMAND › GLOB whose parts are not valid filters. */
int selection_init(struct selection *sel, const char *filter, const struct strlist *tags,
		   const struct strlist *skip_tags, struct err *err);
void selection_release(struct selection *sel);
bool selection_keeps(const struct selection *sel, const struct benchmark *b);

#endif
