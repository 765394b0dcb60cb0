/*
 * `himorime list`: one line per selected command (suite file, benchmark,
 * tags, stdin, command name, command as written), or with --format json the
 * fully resolved model of each command: every setting after defaults →
 * benchmark → command layering, so that what will run can be checked
 * without running it. Selection: --filter RE (unanchored, POSIX extended),
 * --tag T (any of), --skip-tag T (wins); an empty selection is exit 3.
 */
#include "cli/commands.h"
#include "cli/select.h"

#include "common/strbuf.h"
#include "results/jsonw.h"
#include "suite/suite.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static void print_text(struct strbuf *sb, const struct suite *s, const struct benchmark *b,
		       const struct command *c)
{
	size_t i;

	strbuf_addf(sb, "%s\t%s\t", s->path, b->name);
	for (i = 0; i < b->tag_count; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", b->tags[i]);
	if (!b->tag_count)
		strbuf_addch(sb, '-');
	switch (b->stdin_spec.kind) {
	case STDIN_NONE:
		strbuf_adds(sb, "\t-");
		break;
	case STDIN_FILE:
		strbuf_addf(sb, "\t%s", b->stdin_spec.value);
		break;
	case STDIN_CONTENT:
		strbuf_adds(sb, "\t(content)");
		break;
	}
	strbuf_addf(sb, "\t%s\t", c->name);
	suite_exec_text(&c->exec, sb);
	strbuf_addch(sb, '\n');
}

/* ---- JSON (values through results/jsonw.h, as reports write them) ---- */

static void indent(struct strbuf *sb, int depth)
{
	strbuf_addch(sb, '\n');
	while (depth-- > 0)
		strbuf_adds(sb, "  ");
}

/* "key": at depth, with a leading comma unless first. */
static void key(struct strbuf *sb, int depth, bool *first, const char *k)
{
	if (!*first)
		strbuf_addch(sb, ',');
	*first = false;
	indent(sb, depth);
	jsonw_str(sb, k);
	strbuf_adds(sb, ": ");
}

static void json_strs(struct strbuf *sb, const char *const *v, size_t n)
{
	size_t i;

	strbuf_addch(sb, '[');
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_adds(sb, ", ");
		jsonw_str(sb, v[i]);
	}
	strbuf_addch(sb, ']');
}

static void json_exec(struct strbuf *sb, const struct exec *x, int d)
{
	bool first = true;
	size_t i;

	strbuf_addch(sb, '{');
	switch (x->kind) {
	case EXEC_ARGV:
		key(sb, d + 1, &first, "argv");
		json_strs(sb, x->argv, x->argc);
		break;
	case EXEC_SHELL:
		key(sb, d + 1, &first, "shell");
		jsonw_str(sb, x->shell);
		break;
	}
	key(sb, d + 1, &first, "cwd");
	jsonw_str(sb, x->cwd);
	key(sb, d + 1, &first, "env");
	strbuf_addch(sb, '{');
	for (i = 0; i < x->env_count; i++) {
		if (i)
			strbuf_adds(sb, ", ");
		jsonw_str(sb, x->env[i].name);
		strbuf_adds(sb, ": ");
		jsonw_str(sb, x->env[i].value);
	}
	strbuf_addch(sb, '}');
	key(sb, d + 1, &first, "timeout_ns");
	jsonw_num(sb, (double)x->timeout_ns);
	key(sb, d + 1, &first, "line");
	jsonw_num(sb, x->pos.line);
	indent(sb, d);
	strbuf_addch(sb, '}');
}

static void json_execs(struct strbuf *sb, const struct exec *v, size_t n, int d)
{
	size_t i;

	strbuf_addch(sb, '[');
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		indent(sb, d + 1);
		json_exec(sb, &v[i], d + 1);
	}
	if (n)
		indent(sb, d);
	strbuf_addch(sb, ']');
}

static void json_output(struct strbuf *sb, const struct output *o)
{
	switch (o->kind) {
	case OUTPUT_DISCARD:
		jsonw_str(sb, "discard");
		return;
	case OUTPUT_FILE:
		jsonw_str(sb, o->path);
		return;
	}
}

/* max_percent in percent, as the suite writes it and as reports write it
 * (docs/reports.md): 5 is 5%. */
static void json_tolerance(struct strbuf *sb, const struct tolerance *t)
{
	strbuf_addf(sb,
		    "{\"statistic\": \"%s\", \"max_percent\": ", side_statistic_name(t->statistic));
	jsonw_num(sb, jsonw_percent(t->max_fraction));
	strbuf_adds(sb, ", \"min_difference\": ");
	if (t->has_min_difference)
		jsonw_num(sb, t->min_difference);
	else
		strbuf_adds(sb, "null");
	strbuf_adds(sb, ", \"gate\": ");
	jsonw_bool(sb, t->gate);
	strbuf_addch(sb, '}');
}

static void json_count_tolerance(struct strbuf *sb, const struct tolerance *t)
{
	strbuf_adds(sb, "{\"max_percent\": ");
	jsonw_num(sb, jsonw_percent(t->max_fraction));
	strbuf_adds(sb, ", \"gate\": ");
	jsonw_bool(sb, t->gate);
	strbuf_addch(sb, '}');
}

/* The benchmark's regression settings; a count's tolerance only where
 * command c measures it. */
static void json_regression(struct strbuf *sb, const struct benchmark *b, const struct command *c,
			    int d)
{
	const struct regression *r = &b->regression;
	bool first = true;

	strbuf_addch(sb, '{');
	key(sb, d + 1, &first, "confidence");
	jsonw_num(sb, r->confidence);
	key(sb, d + 1, &first, "min_samples");
	jsonw_num(sb, r->min_samples);
	key(sb, d + 1, &first, "max_cv");
	jsonw_num(sb, r->max_cv);
	key(sb, d + 1, &first, "max_time_ns");
	if (r->has_max_time)
		jsonw_num(sb, (double)r->max_time_ns);
	else
		strbuf_adds(sb, "null");
	key(sb, d + 1, &first, "commands");
	if (r->command_count)
		json_strs(sb, r->commands, r->command_count);
	else
		strbuf_adds(sb, "null");
	key(sb, d + 1, &first, "latency");
	json_tolerance(sb, &r->latency);
	key(sb, d + 1, &first, "cpu_total");
	json_tolerance(sb, &r->cpu_total);
	key(sb, d + 1, &first, "peak_rss");
	json_tolerance(sb, &r->peak_rss);
	if (command_measures(c, METRIC_ARTIFACT_SIZE)) {
		key(sb, d + 1, &first, "artifact_size");
		json_count_tolerance(sb, &r->artifact_size);
	}
	if (command_measures(c, METRIC_INSTRUCTIONS)) {
		key(sb, d + 1, &first, "instructions");
		json_count_tolerance(sb, &r->instructions);
	}
	if (command_measures(c, METRIC_ALLOCATIONS)) {
		key(sb, d + 1, &first, "allocations");
		json_count_tolerance(sb, &r->allocations);
		key(sb, d + 1, &first, "allocated_bytes");
		json_count_tolerance(sb, &r->allocated_bytes);
	}
	indent(sb, d);
	strbuf_addch(sb, '}');
}

static void json_budgets(struct strbuf *sb, const struct command *c, int d)
{
	size_t i;
	char buf[16];

	strbuf_addch(sb, '[');
	for (i = 0; i < c->budget_count; i++) {
		const struct budget *b = &c->budgets[i];
		if (i)
			strbuf_addch(sb, ',');
		indent(sb, d + 1);
		strbuf_addf(sb,
			    "{\"metric\": \"%s\", \"aggregation\": \"%s\", \"op\": \"%s\", "
			    "\"limit\": ",
			    metric_info(b->metric)->name,
			    aggregation_name(&b->aggregation, buf, sizeof(buf)),
			    bound_op_name(b->op));
		jsonw_num(sb, b->limit);
		strbuf_addf(sb, ", \"unit\": \"%s\", \"text\": ",
			    metric_unit_name(metric_info(b->metric)->unit));
		jsonw_str(sb, b->text);
		strbuf_addf(sb, ", \"line\": %u, \"column\": %u}", b->pos.line, b->pos.column);
	}
	if (c->budget_count)
		indent(sb, d);
	strbuf_addch(sb, ']');
}

/* "base_name" and "parameters" {name: value as written} of a case. */
static void json_params(struct strbuf *sb, const struct benchmark *b, int d, bool *first)
{
	size_t i;

	key(sb, d, first, "base_name");
	jsonw_str(sb, b->base_name);
	key(sb, d, first, "parameters");
	strbuf_addch(sb, '{');
	for (i = 0; i < b->param_count; i++) {
		strbuf_adds(sb, i ? ", " : "");
		jsonw_str(sb, b->params[i].name);
		strbuf_adds(sb, ": ");
		jsonw_str(sb, b->params[i].value);
	}
	strbuf_addch(sb, '}');
	if (b->no_compare) {
		key(sb, d, first, "compare");
		strbuf_adds(sb, "false");
	}
}

/* The command as written where it stands: suite, benchmark, its exec,
 * outputs, exit codes and budgets. Keys at depth d, after *first. */
static void json_command_own(struct strbuf *sb, const struct suite *s, const struct benchmark *b,
			     const struct command *c, int d, bool *first)
{
	size_t i;

	key(sb, d, first, "suite");
	jsonw_str(sb, s->path);
	key(sb, d, first, "suite_name");
	jsonw_str(sb, s->name);
	key(sb, d, first, "benchmark");
	jsonw_str(sb, b->name);
	if (b->param_count) /* a case (docs/configuration.md, "Parameters") */
		json_params(sb, b, d, first);
	key(sb, d, first, "description");
	jsonw_str(sb, b->description);
	key(sb, d, first, "tags");
	json_strs(sb, b->tags, b->tag_count);
	key(sb, d, first, "command");
	jsonw_str(sb, c->name);
	key(sb, d, first, "line");
	jsonw_num(sb, c->pos.line);
	key(sb, d, first, "exec");
	json_exec(sb, &c->exec, d);
	key(sb, d, first, "stdout");
	json_output(sb, &c->out);
	key(sb, d, first, "stderr");
	json_output(sb, &c->err);
	key(sb, d, first, "exit_codes");
	strbuf_addch(sb, '[');
	for (i = 0; i < c->exit_code_count; i++)
		strbuf_addf(sb, "%s%d", i ? ", " : "", c->exit_codes[i]);
	strbuf_addch(sb, ']');
	key(sb, d, first, "budgets");
	json_budgets(sb, c, d);
	if (c->harness.present) { /* docs/configuration.md, "Harnesses" */
		key(sb, d, first, "harness");
		strbuf_adds(sb, "{\"format\": ");
		jsonw_str(sb, harness_kind_name(c->harness.kind));
		strbuf_adds(sb, ", \"output\": ");
		if (c->harness.output)
			jsonw_str(sb, c->harness.output);
		else
			strbuf_adds(sb, "\"stdout\"");
		strbuf_addch(sb, '}');
	}
}

static void json_stdin(struct strbuf *sb, const struct stdin_spec *in)
{
	switch (in->kind) {
	case STDIN_NONE:
		strbuf_adds(sb, "null");
		return;
	case STDIN_FILE:
		strbuf_adds(sb, "{\"file\": ");
		break;
	case STDIN_CONTENT:
		strbuf_adds(sb, "{\"content\": ");
		break;
	}
	jsonw_str(sb, in->value);
	strbuf_addch(sb, '}');
}

/* How many runs: terminal, warmup, runs, min_runs, max_runs, min_time_ns. */
static void json_runs(struct strbuf *sb, const struct benchmark *b, int d, bool *first)
{
	key(sb, d, first, "terminal");
	jsonw_bool(sb, b->terminal);
	key(sb, d, first, "warmup");
	switch (b->warmup.kind) {
	case WARMUP_AUTO:
		jsonw_str(sb, "auto");
		break;
	case WARMUP_COUNT:
		jsonw_num(sb, b->warmup.count);
		break;
	}
	key(sb, d, first, "runs");
	if (b->runs)
		jsonw_num(sb, b->runs);
	else
		strbuf_adds(sb, "null");
	key(sb, d, first, "min_runs");
	jsonw_num(sb, b->min_runs);
	key(sb, d, first, "max_runs");
	jsonw_num(sb, b->max_runs);
	key(sb, d, first, "max_runs_set");
	jsonw_bool(sb, b->max_runs_set);
	key(sb, d, first, "min_time_ns");
	jsonw_num(sb, (double)b->min_time_ns);
}

static void json_metrics(struct strbuf *sb, const struct metrics *m)
{
	strbuf_adds(sb, "{\"cpu\": ");
	jsonw_bool(sb, m->cpu);
	strbuf_adds(sb, ", \"memory\": ");
	jsonw_bool(sb, m->memory);
	/* a count only where a suite asks for it, so that other lists stay as they were */
	if (m->artifact_size)
		strbuf_adds(sb, ", \"artifact_size\": true");
	if (m->instructions)
		strbuf_addf(sb, ", \"instructions\": {\"backend\": \"%s\", \"runs\": %u}",
			    m->backend == COUNTER_PERF	     ? "perf"
			    : m->backend == COUNTER_VALGRIND ? "valgrind"
							     : "auto",
			    m->count_runs);
	if (m->allocations)
		strbuf_adds(sb, ", \"allocations\": true");
	strbuf_addf(sb, ", \"unsupported\": \"%s\", \"work\": ",
		    m->unsupported == UNSUPPORTED_FAIL ? "fail" : "skip");
	switch (m->work.kind) {
	case WORK_NONE:
		strbuf_adds(sb, "null");
		break;
	case WORK_VALUE:
		strbuf_adds(sb, "{\"value\": ");
		jsonw_num(sb, m->work.value);
		strbuf_adds(sb, ", \"unit\": ");
		jsonw_str(sb, m->work.unit);
		strbuf_addch(sb, '}');
		break;
	case WORK_FILE_SIZE:
		strbuf_adds(sb, "{\"file_size\": ");
		jsonw_str(sb, m->work.file);
		strbuf_adds(sb, ", \"unit\": \"bytes\"}");
		break;
	}
	strbuf_addch(sb, '}');
}

/* What surrounds the runs: regression settings, hooks, baseline, build. */
static void json_around(struct strbuf *sb, const struct suite *s, const struct benchmark *b,
			const struct command *c, int d, bool *first)
{
	key(sb, d, first, "regression");
	json_regression(sb, b, c, d);
	key(sb, d, first, "setup");
	json_execs(sb, b->setup, b->setup_count, d);
	key(sb, d, first, "prepare_each");
	json_execs(sb, b->prepare_each, b->prepare_each_count, d);
	key(sb, d, first, "cleanup");
	json_execs(sb, b->cleanup, b->cleanup_count, d);
	key(sb, d, first, "baseline");
	jsonw_str(sb, b->baseline);
	key(sb, d, first, "build");
	if (s->has_build)
		json_exec(sb, &s->build, d);
	else
		strbuf_adds(sb, "null");
}

/* One command's resolved model, an object at depth 1 of the list. */
static void json_command(struct strbuf *sb, const struct suite *s, const struct benchmark *b,
			 const struct command *c)
{
	bool first = true;

	strbuf_addch(sb, '{');
	json_command_own(sb, s, b, c, 2, &first);
	key(sb, 2, &first, "stdin");
	json_stdin(sb, &b->stdin_spec);
	json_runs(sb, b, 2, &first);
	key(sb, 2, &first, "metrics");
	json_metrics(sb, &c->metrics);
	json_around(sb, s, b, c, 2, &first);
	indent(sb, 1);
	strbuf_addch(sb, '}');
}

int cmd_list(struct cmd_args *a)
{
	const struct list_flags *f = &a->f.list;
	struct selection sel = { .has_re = false };
	struct cli_suites suites = { .v = NULL, .count = 0 };
	struct err err = ERR_INIT;
	struct strbuf out = STRBUF_INIT; /* the whole listing, printed at once */
	size_t i, j, k, n = 0;
	int code;
	bool as_json;

	if (strcmp(f->format, "text") && strcmp(f->format, "json")) {
		code = cli_usagef("list", "unknown format \"%s\" for list; expected text or json",
				  f->format);
		goto done;
	}
	as_json = !strcmp(f->format, "json");
	if (selection_init(&sel, f->filter, &f->tags, &f->skip_tags, &err) < 0) {
		code = cli_usage_error("list", &err);
		goto done;
	}
	code = cli_load_suites(&a->operands, &suites);
	if (code != EXIT_OK)
		goto done;
	if (as_json)
		strbuf_addch(&out, '[');
	for (i = 0; i < suites.count; i++) {
		const struct suite *s = suites.v[i];
		for (j = 0; j < s->benchmark_count; j++) {
			const struct benchmark *b = &s->benchmarks[j];
			if (!selection_keeps(&sel, b))
				continue;
			for (k = 0; k < b->command_count; k++, n++) {
				if (!as_json) {
					print_text(&out, s, b, &b->commands[k]);
					continue;
				}
				if (n)
					strbuf_addch(&out, ',');
				indent(&out, 1);
				json_command(&out, s, b, &b->commands[k]);
			}
		}
	}
	if (!n) {
		cli_error(HMR_USAGE, "no benchmark matches the selection");
		fprintf(stderr,
			"  hint: check --filter, --tag and --skip-tag against 'himorime list'\n");
		code = cli_exit(EXIT_USAGE, "empty selection");
		goto done;
	}
	if (as_json)
		strbuf_adds(&out, "\n]\n");
	/* Names, paths and commands come from the suite, a pull request's file:
	 * in Actions, quoted. */
	if (cli_print_untrusted(out.buf, false) < 0)
		code = cli_exit(EXIT_EXEC, "cannot write to standard output");
done:
	selection_release(&sel);
	cli_suites_release(&suites);
	strbuf_release(&out);
	return code;
}
