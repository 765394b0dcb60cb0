/*
 * `himorime history [--benchmark RE] [--metric M] [--format F]
 * [--history-ref REF] [-o FILE] [--no-color]`: the trend kept by `sweep`, per
 * benchmark and command, newest first, with change points marked (the table
 * in colour on a terminal).
 * `himorime history prune --keep N [--history-ref REF]`: keeps the results
 * of the N newest commits.
 */
#include "cli/commands.h"
#include "cli/store.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "history/sweep.h"
#include "render/history.h"
#include "suite/params.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static int prune(struct vcs *vcs, const struct history_flags *f, const char *ref)
{
	unsigned long long keep;
	struct err err = ERR_INIT;
	size_t removed = 0;

	if (!f->keep)
		return cli_usagef("history", "history prune needs --keep N");
	if (opts_uint(f->keep, 0, 100000000, &keep) < 0)
		return cli_usagef("history",
				  "--keep \"%s\": expected an integer from 0 to 100000000",
				  f->keep);
	if (vcs_history_prune(vcs, ref, (size_t)keep, &removed, &err) < 0)
		return cli_fail(&err);
	printf("pruned %zu commit%s from %s\n", removed, removed == 1 ? "" : "s", ref);
	return EXIT_OK;
}

/* Keeps the series whose benchmark matches: a case selector NAME[k=v,...]
 * (docs/configuration.md, "Parameters"), else a regular expression. */
static void filter(struct sweep_series_list *l, const regex_t *re,
		   const struct params_selector *cases)
{
	size_t i, n = 0;

	for (i = 0; i < l->count; i++) {
		const char *name = l->items[i].benchmark ? l->items[i].benchmark : "";
		if (cases ? !params_selector_matches_label(cases, name)
			  : regexec(re, name, 0, NULL, 0) != 0) {
			free(l->items[i].points);
			free(l->items[i].changes);
			continue;
		}
		l->items[n++] = l->items[i];
	}
	l->count = n;
}

/* The series rendered in format hf (the table in colour on a terminal), to
 * --output or standard output. */
static int write_series(const struct sweep_series_list *l, enum render_format hf,
			const struct history_flags *f)
{
	struct err err = ERR_INIT;
	struct strbuf out;
	int code = EXIT_OK;

	strbuf_init(&out, 0);
	if (history_render(l, hf, hf == RENDER_TABLE && !f->output && cli_colour(f->no_color), &out,
			   &err) < 0)
		code = cli_fail(&err);
	else if (f->output && fsio_write_atomic(f->output, out.buf, out.len, &err) < 0)
		code = cli_fail(&err);
	else if (!f->output)
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
	return code;
}

static int show(struct vcs *vcs, const struct history_flags *f, const char *ref)
{
	enum render_format hf = RENDER_TABLE;
	enum metric m = METRIC_LATENCY;
	struct store_docs docs;
	struct sweep_series_list l;
	struct store_order placed = { .sha = NULL, .rank = NULL, .n = 0 };
	struct sweep_order order;
	struct err err = ERR_INIT;
	regex_t re;
	struct params_selector cases;
	bool has_re = false, has_cases = false;
	int code = EXIT_OK;

	memset(&l, 0, sizeof(l));
	if (f->format && history_format_from_name(f->format, &hf) < 0)
		return cli_usagef(
			"history",
			"unknown format \"%s\": expected table, markdown, csv, json or html",
			f->format);
	if (f->metric && (metric_from_name(f->metric, &m) < 0 ||
			  (m != METRIC_LATENCY && m != METRIC_CPU_TOTAL && m != METRIC_PEAK_RSS)))
		return cli_usagef("history",
				  "--metric \"%s\": expected latency, cpu_total or peak_rss",
				  f->metric);
	memset(&cases, 0, sizeof(cases));
	if (f->benchmark && params_selector_parse(f->benchmark, &cases, &err) == 0 && *cases.base) {
		has_cases = true;
	} else if (f->benchmark) {
		params_selector_release(&cases);
		err_clear(&err);
		if (regcomp(&re, f->benchmark, REG_EXTENDED | REG_NOSUB) != 0)
			return cli_usagef("history",
					  "--benchmark \"%s\": not a valid regular expression",
					  f->benchmark);
		has_re = true;
	}
	if (store_read(vcs, ref, &docs, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (store_graph_order(vcs, (const struct results *const *)docs.v, docs.count, &placed,
			      &err) < 0) {
		code = cli_fail(&err);
		goto release;
	}
	order.sha = placed.sha;
	order.rank = placed.rank;
	order.n = placed.n;
	if (sweep_series_build((const struct results *const *)docs.v, docs.count, m, &order, &l,
			       &err) < 0) {
		code = cli_fail(&err);
		goto release;
	}
	if (has_re)
		filter(&l, &re, NULL);
	if (has_cases)
		filter(&l, NULL, &cases);
	if (!l.count)
		fprintf(stderr, "himorime: history: no %s results under %s%s\n",
			metric_info(m)->name, ref,
			has_re || has_cases ? " for that --benchmark" : "");
	code = write_series(&l, hf, f);
release:
	store_order_release(&placed);
	sweep_series_release(&l);
	store_docs_release(&docs);
done:
	if (has_re)
		regfree(&re);
	params_selector_release(&cases);
	return code;
}

int cmd_history(struct cmd_args *a)
{
	const struct history_flags *f = &a->f.history;
	const struct strlist *operands = &a->operands;
	struct err err = ERR_INIT;
	struct vcs *vcs = NULL;
	const char *ref;
	int code;

	if (operands->n > 1 || (operands->n == 1 && strcmp(operands->v[0], "prune")))
		return cli_usagef("history",
				  "unexpected operand \"%s\": only \"prune\" is a subcommand",
				  operands->v[operands->n - 1]);
	if (f->keep && operands->n == 0)
		return cli_usagef("history", "--keep %s only applies to history prune", f->keep);
	ref = f->ref ? f->ref : VCS_HISTORY_REF;
	if (vcs_open(".", &vcs, &err) < 0)
		code = cli_fail(&err);
	else
		code = operands->n ? prune(vcs, f, ref) : show(vcs, f, ref);
	vcs_free(vcs);
	return code;
}
