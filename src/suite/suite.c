/*
 * The suite loader: see suite.h, and loader.h for its pieces. This file reads
 * the file as a whole: its top-level keys, `defaults:` (defaults.c layers
 * them), the build step, report outputs and versions, then each benchmark
 * (benchmark.c); and it sorts the problems of one file by place. Problems
 * are collected, never fatal, so that one run lists them all; cross-
 * references (baseline, regression.commands, min_runs against max_runs,
 * budgets on unmeasured metrics) are checked once the pieces they relate
 * are typed.
 */
#include "suite/suite.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "harness/select.h"
#include "suite/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

void suite_diags_init(struct suite_diags *d)
{
	memset(d, 0, sizeof(*d));
	arena_init(&d->arena);
}

void suite_diags_release(struct suite_diags *d)
{
	if (!d)
		return;
	free(d->v);
	arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

static const char *const defaults_keys[] = { "warmup",	   "runs",     "min_runs",   "max_runs",
					     "min_time",   "timeout",  "cwd",	     "env",
					     "stdout",	   "stderr",   "exit_codes", "metrics",
					     "regression", "schedule", NULL };
/* ---- report ---- */

static const char *const report_format_names[] = { "json", "csv", "markdown", "github",
						   "samples-csv" };

const char *report_format_name(enum report_format f)
{
	return report_format_names[f];
}

static const char *const output_keys[] = { "format", "path", "section", NULL };

/* "a/./b//c" and "a/b/c" name the same destination. */
static const char *normalize(struct loader *l, const char *p)
{
	struct strbuf sb;
	char *s;

	strbuf_init(&sb, 0);
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n && !(n == 1 && *p == '.')) {
			if (sb.len)
				strbuf_addch(&sb, '/');
			strbuf_add(&sb, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	s = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return s;
}

static void parse_outputs(struct loader *l, const struct ynode *n, const char *path,
			  struct suite *s)
{
	struct report_output *v;
	const char **norm;
	size_t i, j;

	if (!check_seq(l, n, path, "a list of outputs"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	norm = arena_array(l->a, n->count ? n->count : 1, sizeof(*norm));
	for (i = 0; i < n->count; i++) {
		const struct ynode *o = n->items[i], *f, *p, *sec;
		const char *op = check_index(l, path, i), *fs = NULL, *ps = NULL;
		size_t k;
		if (!check_map(l, o, op, "a map of format, path, section"))
			continue;
		check_keys(l, o, op, output_keys, op);
		f = ynode_get(o, "format");
		p = ynode_get(o, "path");
		sec = ynode_get(o, "section");
		if (!f || !p) {
			check_problem(l, o, op, NULL,
				      "expected a map with format and path, got no %s",
				      f ? "path" : "format");
			continue;
		}
		fs = check_str(l, f, check_child(l, op, "format"));
		for (k = 0; fs && k < sizeof(report_format_names) / sizeof(*report_format_names);
		     k++)
			if (!strcmp(fs, report_format_names[k]))
				break;
		if (fs && k == sizeof(report_format_names) / sizeof(*report_format_names)) {
			check_problem(l, f, check_child(l, op, "format"), NULL,
				      "expected json, csv, markdown, github or samples-csv, got %s",
				      check_found(l, f));
			continue;
		}
		ps = check_str(l, p, check_child(l, op, "path"));
		if (!fs || !ps || !check_path(l, p, check_child(l, op, "path"), ps, PATH_SUITE))
			continue;
		v[s->output_count].format = (enum report_format)k;
		v[s->output_count].path = ps;
		v[s->output_count].pos.line = o->line;
		v[s->output_count].pos.column = o->column;
		if (sec) {
			const char *ss = check_str(l, sec, check_child(l, op, "section"));
			if (ss && k != REPORT_MARKDOWN) {
				check_problem(l, sec, check_child(l, op, "section"), NULL,
					      "section is only allowed with format markdown");
				continue;
			}
			if (ss && !check_is_section(ss)) {
				check_problem(
					l, sec, check_child(l, op, "section"), NULL,
					"expected a section name matching ^[a-z0-9][a-z0-9-]*$, "
					"got %s",
					check_found(l, sec));
				continue;
			}
			v[s->output_count].section = ss;
		}
		norm[s->output_count] = normalize(l, ps);
		for (j = 0; j < s->output_count; j++)
			if (!strcmp(norm[j], norm[s->output_count]) &&
			    !(v[j].section && v[s->output_count].section &&
			      strcmp(v[j].section, v[s->output_count].section)))
				break;
		if (j < s->output_count) {
			check_problem(l, p, check_child(l, op, "path"), NULL,
				      "duplicate destination \"%s\" (first at %u:%u)", ps,
				      v[j].pos.line, v[j].pos.column);
			continue;
		}
		s->output_count++;
	}
	s->outputs = v;
}

static void parse_versions(struct loader *l, const struct ynode *n, const char *path,
			   struct suite *s)
{
	struct tool_version *v;
	size_t i, j;

	if (!check_map(l, n, path, "a map of TOOL: [argv...]"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	for (i = 0; i < n->count; i++) {
		const struct ynode *a = n->items[i];
		const char *p = check_child(l, path, n->keys[i]->text);
		const char **argv;
		if (check_blank(n->keys[i]->text)) {
			check_problem(l, n->keys[i], p, NULL,
				      "expected a tool name, got a blank one");
			continue;
		}
		if (!check_seq(l, a, p, "an argv list"))
			continue;
		if (!a->count) {
			check_problem(l, a, p, NULL, "expected a non-empty argv list, got []");
			continue;
		}
		argv = arena_array(l->a, a->count + 1, sizeof(*argv));
		for (j = 0; j < a->count; j++)
			argv[j] = check_str(l, a->items[j], check_index(l, p, j));
		v[s->version_count].tool = n->keys[i]->text;
		v[s->version_count].argv = argv;
		v[s->version_count].argc = a->count;
		v[s->version_count].pos.line = n->keys[i]->line;
		v[s->version_count].pos.column = n->keys[i]->column;
		s->version_count++;
	}
	s->versions = v;
}

/* report.error_conclusion: how a check run concludes when the comparison
 * failed to run (docs/github-actions.md, "The check run"). */
static void parse_error_conclusion(struct loader *l, const struct ynode *n, struct suite *s)
{
	const char *v = check_str(l, n, "report.error_conclusion");

	if (v && !strcmp(v, "neutral"))
		s->error_conclusion_neutral = true;
	else if (v && strcmp(v, "failure"))
		check_problem(l, n, "report.error_conclusion", NULL,
			      "expected failure or neutral, got %s", check_found(l, n));
}

/* ---- the file ---- */

static const char *const top_keys[] = { "version", "name",	 "description", "defaults",
					"build",   "benchmarks", "report",	NULL };

/* version, name and description. */
static void parse_header(struct loader *l, const struct ynode *root, struct suite *s)
{
	const struct ynode *v = ynode_get(root, "version");

	if (!v)
		check_problem(l, root, "", "add version: \"1\" as the first key",
			      "expected a map with version, got no version");
	else if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_STR || strcmp(v->text, "1"))
		check_problem(l, v, "version",
			      v->kind == YNODE_SCALAR && !strcmp(v->text, "1") ? "quote it: \"1\""
									       : NULL,
			      "expected \"1\", got %s", check_found(l, v));
	v = ynode_get(root, "name");
	if (!v)
		check_problem(l, root, "", NULL, "expected a map with name, got no name");
	else
		s->name = check_name(l, v, "name");
	if ((v = ynode_get(root, "description")))
		s->description = check_str(l, v, "description");
}

/* defaults, build and report: what every benchmark shares. */
static void parse_shared(struct loader *l, const struct ynode *root, struct layer *defaults,
			 struct suite *s)
{
	const struct ynode *v, *o;
	size_t i;

	if ((v = ynode_get(root, "defaults")) && check_map(l, v, "defaults", "a map of settings")) {
		check_keys(l, v, "defaults", defaults_keys, "defaults");
		for (i = 0; i < v->count; i++)
			parse_setting(l, v->keys[i]->text, v->items[i],
				      check_child(l, "defaults", v->keys[i]->text), false,
				      defaults);
	}
	if ((v = ynode_get(root, "build"))) {
		l->has_build = true;
		s->has_build = true;
		parse_exec(l, v, "build", true, "${root}", NULL, 0, SUITE_DEFAULT_BUILD_TIMEOUT_NS,
			   &s->build);
	}
	if (!(v = ynode_get(root, "report")) ||
	    !check_map(l, v, "report", "a map of outputs, versions, error_conclusion"))
		return;
	check_keys(l, v, "report",
		   (const char *const[]){ "outputs", "versions", "error_conclusion", NULL },
		   "report");
	if ((o = ynode_get(v, "outputs")))
		parse_outputs(l, o, "report.outputs", s);
	if ((o = ynode_get(v, "versions")))
		parse_versions(l, o, "report.versions", s);
	if ((o = ynode_get(v, "error_conclusion")))
		parse_error_conclusion(l, o, s);
}

/* A benchmark name used twice is a problem (the name as written: the
 * cases of one benchmark share it). */
static void check_duplicate(struct loader *l, const struct ynode *n, size_t i,
			    const struct benchmark *bs, size_t first)
{
	size_t j;

	for (j = 0; bs[first].base_name && j < first; j++)
		if (bs[j].base_name && !strcmp(bs[j].base_name, bs[first].base_name)) {
			check_problem(l, ynode_get(n, "name"),
				      arena_printf(l->a, "benchmarks[%zu].name", i), NULL,
				      "duplicate benchmark name \"%s\" (first at %u:%u)",
				      bs[first].base_name, bs[j].pos.line, bs[j].pos.column);
			return;
		}
}

/* Each benchmark over the defaults, once per case of its parameters. */
static void parse_benchmarks(struct loader *l, const struct ynode *v, const struct layer *defaults,
			     struct suite *s)
{
	struct case_spec *specs = xcalloc(v->count, sizeof(*specs));
	struct benchmark *bs;
	size_t i, c, total = 0, count = 0;

	for (i = 0; i < v->count; i++)
		total += cases_read(l, v->items[i], check_index(l, "benchmarks", i), &specs[i]);
	/* over SUITE_MAX_CASES (a problem already): read no case at all */
	bs = arena_array(l->a, total <= SUITE_MAX_CASES ? total : 1, sizeof(*bs));
	for (i = 0; i < v->count && total <= SUITE_MAX_CASES; i++) {
		size_t first = count, n = specs[i].failed || !specs[i].n ? 1 : specs[i].e.count;
		const char *p = check_index(l, "benchmarks", i);
		for (c = 0; c < n; c++)
			if (!cases_parse(l, v->items[i], p, defaults, &specs[i], c, &bs[count++]))
				break; /* the other cases would repeat the problem */
		check_duplicate(l, v->items[i], i, bs, first);
	}
	for (i = 0; i < v->count; i++)
		cases_release(&specs[i]);
	free(specs);
	s->benchmarks = bs;
	s->benchmark_count = count;
}

static void parse_suite(struct loader *l, const struct ynode *root, struct suite *s)
{
	const struct ynode *v;
	struct layer defaults;

	memset(&defaults, 0, sizeof(defaults));
	if (!check_map(l, root, "", "a map with version, name and benchmarks"))
		return;
	/* x-*: a place for YAML anchors that benchmarks share, as in compose
	 * files (docs/configuration.md); nothing reads them. */
	check_keys_but(l, root, "", top_keys, "x-", "the suite");
	parse_header(l, root, s);
	parse_shared(l, root, &defaults, s);
	s->has_max_total_time = defaults.reg.has_max_total_time;
	s->max_total_time_ns = defaults.reg.max_total_time_ns;
	v = ynode_get(root, "benchmarks");
	if (!v) {
		check_problem(l, root, "", NULL,
			      "expected a map with benchmarks, got no benchmarks");
		return;
	}
	if (!check_seq(l, v, "benchmarks", "a list of benchmarks"))
		return;
	if (!v->count) {
		check_problem(l, v, "benchmarks", NULL, "expected at least one benchmark, got []");
		return;
	}
	if (v->count > SUITE_MAX_BENCHMARKS) {
		check_problem(l, v, "benchmarks", NULL,
			      "more than %d benchmarks in one suite file (a limit)",
			      SUITE_MAX_BENCHMARKS);
		return;
	}
	parse_benchmarks(l, v, &defaults, s);
}

/* Directories between the project root (nearest ancestor with .git, else the
 * suite's own directory) and the suite's directory. */
static int project_depth(const char *dir)
{
	char *real = realpath(dir, NULL);
	int depth = 0, up = 0;
	size_t len;

	if (!real)
		return 0;
	len = strlen(real);
	for (;;) {
		struct stat st;
		char *git = xasprintf("%.*s/.git", (int)len, real);
		int found_git = stat(git, &st) == 0;
		free(git);
		if (found_git) {
			depth = up;
			break;
		}
		while (len > 0 && real[len - 1] != '/')
			len--;
		if (len <= 1)
			break;
		len--;
		up++;
	}
	free(real);
	return depth;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int diag_cmp(const struct suite_diag *a, const struct suite_diag *b)
{
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->column != b->column)
		return a->column < b->column ? -1 : 1;
	return 0;
}

static bool same_diag(const struct suite_diag *a, const struct suite_diag *b)
{
	return !diag_cmp(a, b) && !strcmp(a->path, b->path) && !strcmp(a->message, b->message);
}

/* Orders one file's problems by place (stable: an insertion sort, at most
 * SUITE_MAX_DIAGS + 1 of them) and drops repeats, such as a defaults value
 * found wrong once per benchmark that inherits it. The "too many problems"
 * line stays last. */
static void sort_diags(struct suite_diags *d, size_t start)
{
	size_t i, j, end = d->count, out;

	if (end > start && !d->v[end - 1].line && !*d->v[end - 1].path &&
	    strstr(d->v[end - 1].message, "problems; stopping"))
		end--;
	for (i = start + 1; i < end; i++) {
		struct suite_diag x = d->v[i];
		for (j = i; j > start && diag_cmp(&d->v[j - 1], &x) > 0; j--)
			d->v[j] = d->v[j - 1];
		d->v[j] = x;
	}
	for (out = i = start; i < d->count; i++)
		if (out == start || i >= end || !same_diag(&d->v[out - 1], &d->v[i]))
			d->v[out++] = d->v[i];
	d->count = out;
}

int suite_load(const char *path, struct suite **out, struct suite_diags *diags, struct err *err)
{
	size_t first_diag = diags->count;
	struct suite *s = xcalloc(1, sizeof(*s));
	struct loader l;
	struct ytree tree;
	struct err rerr = ERR_INIT;
	char *text = NULL, *dir = dir_of(path);
	size_t len, i;
	int rc;

	*out = NULL;
	arena_init(&s->arena);
	memset(&l, 0, sizeof(l));
	l.a = &s->arena;
	l.diags = diags;
	l.file = path;
	s->path = arena_strdup(&s->arena, path);
	s->dir = arena_strdup(&s->arena, dir);
	l.project_depth = project_depth(dir);
	free(dir);
	rc = fsio_read_file(path, SUITE_MAX_FILE_BYTES, &text, &len, &rerr);
	if (rc < 0) {
		check_add_diag(&l, 0, 0, NULL, "",
			       rc == ERR_INVALID ? "a suite file is at most 4 MiB (a limit)" : NULL,
			       rerr.msg);
		goto done;
	}
	if (memchr(text, '\0', len)) {
		check_add_diag(&l, 0, 0, NULL, "", NULL,
			       "the file contains a NUL byte; expected YAML text");
		goto done;
	}
	l.src = text;
	l.src_len = len;
	ytree_parse(&tree, text, len, &s->arena);
	for (i = 0; i < tree.diag_count; i++)
		check_add_diag(&l, tree.diags[i].line, tree.diags[i].column, tree.diags[i].via,
			       tree.diags[i].path, NULL, tree.diags[i].message);
	free(tree.diags);
	if (!tree.fatal) {
		if (!tree.root)
			check_add_diag(
				&l, 1, 1, NULL, "", "start with version: \"1\"",
				"expected a map with version, name and benchmarks, got an empty "
				"document");
		else
			parse_suite(&l, tree.root, s);
	}
done:
	free(text);
	sort_diags(diags, first_diag);
	if (l.problems) {
		l.problems = diags->count - first_diag;
		diags->files_with_problems++;
		suite_free(s);
		return err_set(err, ERR_INVALID, "%s: %zu problem%s", path, l.problems,
			       l.problems == 1 ? "" : "s");
	}
	*out = s;
	return 0;
}

void suite_free(struct suite *s)
{
	if (!s)
		return;
	arena_release(&s->arena);
	free(s);
}

static bool metrics_measure(const struct metrics *ms, enum metric m)
{
	switch (m) {
	case METRIC_LATENCY:
		return true;
	case METRIC_THROUGHPUT:
		return ms->work.kind != WORK_NONE;
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_TOTAL:
	case METRIC_CPU_UTILIZATION:
		return ms->cpu;
	case METRIC_PEAK_RSS:
		return ms->memory;
	case METRIC_ARTIFACT_SIZE:
		return ms->artifact_size;
	case METRIC_INSTRUCTIONS:
		return ms->instructions;
	case METRIC_ALLOCATIONS:
	case METRIC_ALLOCATED_BYTES:
		return ms->allocations;
	case METRIC__COUNT:
		break;
	}
	return false;
}

const struct harness_rule *harness_rule_for(const struct command *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->harness.rule_count; i++)
		if (harness_filter_matches(c->harness.rules[i].filter, name))
			return &c->harness.rules[i];
	return NULL;
}

const char *metric_switch_hint(enum metric m)
{
	static const char *const hints[METRIC__COUNT] = {
		[METRIC_THROUGHPUT] = "declare metrics.throughput.work in the benchmark",
		[METRIC_CPU_USER] = "set metrics.cpu: true",
		[METRIC_CPU_SYSTEM] = "set metrics.cpu: true",
		[METRIC_CPU_TOTAL] = "set metrics.cpu: true",
		[METRIC_CPU_UTILIZATION] = "set metrics.cpu: true",
		[METRIC_PEAK_RSS] = "set metrics.memory: true",
		[METRIC_ARTIFACT_SIZE] =
			"set metrics.artifact_size: true in the command, its benchmark or defaults",
		[METRIC_INSTRUCTIONS] =
			"set metrics.instructions: true in the command, its benchmark or defaults",
		[METRIC_ALLOCATIONS] =
			"set metrics.allocations: true in the command, its benchmark or defaults",
		[METRIC_ALLOCATED_BYTES] =
			"set metrics.allocations: true in the command, its benchmark or defaults",
	};

	return m < METRIC__COUNT ? hints[m] : NULL;
}

bool command_measures(const struct command *c, enum metric m)
{
	return metrics_measure(&c->metrics, m);
}

bool benchmark_measures(const struct benchmark *b, enum metric m)
{
	size_t i;

	if (!b->command_count) /* while its commands are read */
		return metrics_measure(&b->metrics, m);
	for (i = 0; i < b->command_count; i++)
		if (command_measures(&b->commands[i], m))
			return true;
	return false;
}

const struct tolerance *regression_tolerance(const struct regression *r, enum metric m)
{
	switch (m) {
	case METRIC_LATENCY:
		return &r->latency;
	case METRIC_CPU_TOTAL:
		return &r->cpu_total;
	case METRIC_PEAK_RSS:
		return &r->peak_rss;
	case METRIC_ARTIFACT_SIZE:
		return &r->artifact_size;
	case METRIC_INSTRUCTIONS:
		return &r->instructions;
	case METRIC_ALLOCATIONS:
		return &r->allocations;
	case METRIC_ALLOCATED_BYTES:
		return &r->allocated_bytes;
	case METRIC_THROUGHPUT:
	case METRIC_CPU_USER:
	case METRIC_CPU_SYSTEM:
	case METRIC_CPU_UTILIZATION:
	case METRIC__COUNT:
		break;
	}
	return NULL;
}
