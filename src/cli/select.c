/*
 * Benchmark selection: see select.h.
 */
#include "cli/select.h"

#include "common/alloc.h"
#include "harness/select.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The label of a harness case: "gb › BM_Sort/64" (docs/configuration.md). */
#define HARNESS_SEP " › "

/* COMMAND › GLOB, split at its first separator, each part checked. */
static int harness_init(struct selection *sel, const char *filter, const char *sep, struct err *err)
{
	struct err why = ERR_INIT;

	sel->harness_command = xstrndup(filter, (size_t)(sep - filter));
	sel->harness_filter = xstrdup(sep + strlen(HARNESS_SEP));
	if (harness_filter_check(sel->harness_command, &why) < 0 ||
	    harness_filter_check(sel->harness_filter, &why) < 0) {
		selection_release(sel);
		return err_set(err, ERR_USAGE, "--filter \"%s\": %s", filter, why.msg);
	}
	return 0;
}

int selection_init(struct selection *sel, const char *filter, const struct strlist *tags,
		   const struct strlist *skip_tags, struct err *err)
{
	const char *sep;

	memset(sel, 0, sizeof(*sel));
	sel->tags = tags;
	sel->skip_tags = skip_tags;
	if (!filter)
		return 0;
	sep = strstr(filter, HARNESS_SEP);
	if (sep)
		return harness_init(sel, filter, sep, err);
	if (params_selector_parse(filter, &sel->cases, err) == 0 && *sel->cases.base) {
		sel->has_cases = true;
		return 0;
	}
	params_selector_release(&sel->cases);
	err_clear(err);
	if (regcomp(&sel->re, filter, REG_EXTENDED | REG_NOSUB) != 0)
		return err_set(err, ERR_USAGE, "--filter \"%s\" is not a valid regular expression",
			       filter);
	sel->has_re = true;
	return 0;
}

void selection_release(struct selection *sel)
{
	if (sel && sel->has_re)
		regfree(&sel->re);
	if (sel)
		params_selector_release(&sel->cases);
	if (sel) {
		free(sel->harness_command);
		free(sel->harness_filter);
		sel->harness_command = sel->harness_filter = NULL;
		sel->has_re = sel->has_cases = false;
	}
}

static bool has_any_tag(const struct benchmark *b, const struct strlist *tags)
{
	size_t i, j;

	for (i = 0; tags && i < tags->n; i++)
		for (j = 0; j < b->tag_count; j++)
			if (!strcmp(tags->v[i], b->tags[j]))
				return true;
	return false;
}

/* Whether b has a harness command whose name the filter's COMMAND matches. */
static bool has_harness_command(const struct selection *sel, const struct benchmark *b)
{
	size_t i;

	for (i = 0; i < b->command_count; i++)
		if (b->commands[i].harness.present &&
		    harness_filter_matches(sel->harness_command, b->commands[i].name))
			return true;
	return false;
}

bool selection_keeps(const struct selection *sel, const struct benchmark *b)
{
	if (sel->harness_command && !has_harness_command(sel, b))
		return false;
	if (sel->has_re && regexec(&sel->re, b->name, 0, NULL, 0))
		return false;
	if (sel->has_cases &&
	    (!b->param_count ||
	     !params_selector_matches(&sel->cases, b->base_name, b->params, b->param_count)))
		return false;
	if (sel->tags && sel->tags->n && !has_any_tag(b, sel->tags))
		return false;
	return !has_any_tag(b, sel->skip_tags);
}
