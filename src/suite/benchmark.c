/*
 * One benchmark: its settings resolved over the defaults, its hooks and
 * commands, and the references inside it (baseline, regression.commands)
 * checked once its commands are known. Part of the suite loader: see
 * loader.h.
 */
#include "suite/loader.h"

#include <string.h>

#include "common/banned.h"

static void parse_stdin(struct loader *l, const struct ynode *n, const char *path,
			struct stdin_spec *s)
{
	const struct ynode *v;
	const char *p, *t;

	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_STR) {
		t = check_template(l, n, path, n->text, false, false);
		if (t && check_path(l, n, path, t, PATH_PROJECT)) {
			s->kind = STDIN_FILE;
			s->value = t;
		}
		return;
	}
	if (n->kind != YNODE_MAP || n->count != 1 ||
	    (strcmp(n->keys[0]->text, "file") && strcmp(n->keys[0]->text, "content"))) {
		check_problem(
			l, n, path, NULL,
			"expected a path, {file: path} or {content: text} (exactly one), got %s",
			n->kind == YNODE_MAP ? "another map" : check_found(l, n));
		return;
	}
	v = n->items[0];
	p = check_child(l, path, n->keys[0]->text);
	if (!check_str(l, v, p) || !(t = check_template(l, v, p, v->text, false, false)))
		return;
	if (!strcmp(n->keys[0]->text, "file")) {
		if (!check_path(l, v, p, t, PATH_PROJECT))
			return;
		s->kind = STDIN_FILE;
	} else {
		s->kind = STDIN_CONTENT;
	}
	s->value = t;
}

static void parse_tags(struct loader *l, const struct ynode *n, const char *path,
		       struct benchmark *b)
{
	const char **v;
	size_t i;

	if (!check_seq(l, n, path, "a list of tags"))
		return;
	v = arena_array(l->a, n->count + 1, sizeof(*v));
	for (i = 0; i < n->count; i++) {
		const char *ip = check_index(l, path, i), *s = check_str(l, n->items[i], ip);
		if (s && !check_is_name(s)) {
			check_problem(
				l, n->items[i], ip, NULL,
				"expected a tag matching ^[A-Za-z0-9][A-Za-z0-9_.-]*$, got %s",
				check_found(l, n->items[i]));
			continue;
		}
		if (s)
			v[b->tag_count++] = s;
	}
	b->tags = v;
}

static const struct command *find_command(const struct benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->command_count; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

static const char *const benchmark_keys[] = {
	"name",		"description", "tags",	     "stdin",	 "terminal",   "setup",
	"prepare_each", "cleanup",     "baseline",   "commands", "warmup",     "runs",
	"min_runs",	"max_runs",    "min_time",   "timeout",	 "cwd",	       "env",
	"stdout",	"stderr",      "exit_codes", "metrics",	 "regression", "parameters",
	"exclude",	"cases",       "sizes",	     "long_run", "schedule",   NULL
};

/* Cross-checks of the resolved run counts. runs or max_runs below
 * regression.min_samples is valid here (a run or a suite new in head measures
 * it as asked); a comparison's plan refuses it once the revisions are known
 * (plan_build, docs/configuration.md). */
static void check_runs(struct loader *l, const struct resolved *r, const struct benchmark *b)
{
	if ((r->l.has_min_runs || r->l.has_max_runs) && b->min_runs > b->max_runs)
		check_problem(l, r->l.has_min_runs ? r->l.min_runs_node : r->l.max_runs_node,
			      r->l.has_min_runs ? r->l.min_runs_path : r->l.max_runs_path, NULL,
			      "expected min_runs (%u) to be at most max_runs (%u)", b->min_runs,
			      b->max_runs);
}

/* The settings of benchmark n: built-in defaults, then `defaults:`, then its
 * own layer (kept in *own for the references checked later). */
static void resolve_settings(struct loader *l, const struct ynode *n, const char *path,
			     const struct layer *defaults, struct layer *own, struct resolved *r,
			     struct benchmark *b)
{
	size_t i;

	for (i = 0; i < n->count; i++)
		parse_setting(l, n->keys[i]->text, n->items[i],
			      check_child(l, path, n->keys[i]->text), true, own);
	resolved_defaults(r);
	apply_layer(l, r, defaults);
	apply_layer(l, r, own);
	b->warmup = r->l.warmup;
	b->runs = r->l.has_runs ? r->l.runs : 0;
	b->min_runs = r->l.min_runs;
	b->max_runs = r->l.max_runs;
	b->max_runs_set = r->l.has_max_runs;
	b->min_time_ns = r->l.min_time_ns;
	b->schedule = r->l.schedule;
	b->metrics.cpu = r->l.cpu;
	b->metrics.memory = r->l.memory;
	b->metrics.unsupported = r->l.unsupported;
	b->metrics.artifact_size = r->l.artifact_size;
	b->metrics.instructions = r->l.instructions;
	b->metrics.allocations = r->l.allocations;
	b->metrics.backend = r->l.backend;
	b->metrics.count_runs = r->l.has_count_runs ? r->l.count_runs : SUITE_DEFAULT_COUNT_RUNS;
	if (b->metrics.artifact_size && !l->has_build)
		check_problem(
			l, r->l.artifact_size_node, r->l.artifact_size_path,
			"add a build: step that writes ${artifact}",
			"metrics.artifact_size needs a build: step (it measures ${artifact})");
	b->metrics.work = own->work;
	regression_defaults(&b->regression);
	layer_regression(&b->regression, &defaults->reg);
	layer_regression(&b->regression, &own->reg);
	check_runs(l, r, b);
}

/* name, description, tags, stdin, terminal and the hooks. */
static void parse_about(struct loader *l, const struct ynode *n, const char *path,
			const struct layer *own, const struct resolved *r, struct benchmark *b)
{
	const struct ynode *v = ynode_get(n, "name");

	if (!v)
		check_problem(l, n, path, NULL, "expected a map with name, got no name");
	else
		b->name = check_name(l, v, check_child(l, path, "name"));
	if ((v = ynode_get(n, "description")))
		b->description = check_str(l, v, check_child(l, path, "description"));
	if ((v = ynode_get(n, "tags")))
		parse_tags(l, v, check_child(l, path, "tags"), b);
	if ((v = ynode_get(n, "stdin")))
		parse_stdin(l, v, check_child(l, path, "stdin"), &b->stdin_spec);
	if ((v = ynode_get(n, "terminal")))
		check_bool(l, v, check_child(l, path, "terminal"), &b->terminal);
	if (b->terminal && r->l.has_stderr && own->has_stderr)
		check_problem(l, own->stderr_node, check_child(l, path, "stderr"),
			      "a terminal benchmark's output is all on the pty; use stdout",
			      "stderr cannot be set in a terminal benchmark");
	if ((v = ynode_get(n, "setup")))
		parse_hooks(l, v, check_child(l, path, "setup"), r, &b->setup, &b->setup_count);
	if ((v = ynode_get(n, "prepare_each")))
		parse_hooks(l, v, check_child(l, path, "prepare_each"), r, &b->prepare_each,
			    &b->prepare_each_count);
	if ((v = ynode_get(n, "cleanup")))
		parse_hooks(l, v, check_child(l, path, "cleanup"), r, &b->cleanup,
			    &b->cleanup_count);
}

/* `commands:`, a map of NAME: command, within the suite's limit. */
static void parse_commands(struct loader *l, const struct ynode *n, const char *path,
			   const struct resolved *r, struct benchmark *b)
{
	const struct ynode *v = ynode_get(n, "commands");
	const char *cp = check_child(l, path, "commands");
	struct command *cs;
	size_t i;

	if (!v) {
		check_problem(l, n, path, NULL, "expected a map with commands, got no commands");
		return;
	}
	if (!check_map(l, v, cp, "a map of NAME: command"))
		return;
	cs = arena_array(l->a, v->count ? v->count : 1, sizeof(*cs));
	if (!v->count)
		check_problem(l, v, cp, NULL, "expected at least one command, got none");
	if (!l->case_ctx || !l->case_ctx->repeat)
		l->total_commands += v->count;
	if (l->total_commands > SUITE_MAX_COMMANDS) {
		check_problem(l, v, cp, NULL, "more than %d commands in one suite file (a limit)",
			      SUITE_MAX_COMMANDS);
		return;
	}
	for (i = 0; i < v->count; i++) {
		const struct ynode *k = v->keys[i];
		const char *p = check_child(l, cp, k->text);
		if (!check_is_name(k->text))
			check_problem(l, k, p, NULL,
				      "expected a command name matching "
				      "^[A-Za-z0-9][A-Za-z0-9_.-]*$, got \"%s\"",
				      k->text);
		cs[i].name = k->text;
		cs[i].pos.line = k->line;
		cs[i].pos.column = k->column;
		parse_command(l, v->items[i], p, r, b, &cs[i]);
	}
	b->commands = cs;
	b->command_count = v->count;
}

/* A name that must be one of the benchmark's commands (unchecked when the
 * commands could not be read). */
static const char *command_ref(struct loader *l, const struct ynode *v, const char *path,
			       const struct benchmark *b)
{
	const char *s = check_str(l, v, path);

	if (s && b->commands && !find_command(b, s))
		check_problem(l, v, path, NULL,
			      "expected the name of one of the benchmark's commands, got %s",
			      check_found(l, v));
	return s;
}

/* baseline and regression.commands, once the commands are known. */
static void check_references(struct loader *l, const struct ynode *n, const char *path,
			     const struct layer *own, struct benchmark *b)
{
	const struct ynode *v = ynode_get(n, "baseline"), *cn = own->reg.commands_node;
	const char **names;
	size_t i;

	if (v)
		b->baseline = command_ref(l, v, check_child(l, path, "baseline"), b);
	if (!cn)
		return;
	names = arena_array(l->a, cn->count + 1, sizeof(*names));
	for (i = 0; i < cn->count; i++)
		names[i] =
			command_ref(l, cn->items[i], check_index(l, own->reg.commands_path, i), b);
	b->regression.commands = names;
	b->regression.command_count = cn->count;
}

void parse_benchmark(struct loader *l, const struct ynode *n, const char *path,
		     const struct layer *defaults, struct benchmark *b)
{
	struct layer own;
	struct resolved r;

	memset(&own, 0, sizeof(own));
	b->pos.line = n->line;
	b->pos.column = n->column;
	if (!check_map(l, n, path, "a benchmark map"))
		return;
	check_keys(l, n, path, benchmark_keys, path);
	resolve_settings(l, n, path, defaults, &own, &r, b);
	cases_apply_regression(l, b);
	parse_about(l, n, path, &own, &r, b);
	parse_commands(l, n, path, &r, b);
	cases_apply_budgets(l, b);
	check_references(l, n, path, &own, b);
}
