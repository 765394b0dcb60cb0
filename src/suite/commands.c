/*
 * Commands, hooks and the build step: how a command is written (an argv list,
 * or a string with shell: true), its own settings layered over the
 * benchmark's, and the text of a command as `list` and reports show it. Part
 * of the suite loader: see loader.h.
 */
#include "suite/loader.h"

#include "common/alloc.h"
#include "harness/select.h"
#include "suite/vars.h"

#include <string.h>

#include "common/banned.h"

/* command: [program, arg, ...] (cmd a list, p its path). */
static bool parse_argv(struct loader *l, const struct ynode *cmd, const char *p, bool in_build,
		       struct exec *x)
{
	const char **argv;
	size_t i;

	if (!cmd->count) {
		check_problem(l, cmd, p, NULL, "expected a non-empty argv list, got []");
		return false;
	}
	argv = arena_array(l->a, cmd->count + 1, sizeof(*argv));
	for (i = 0; i < cmd->count; i++) {
		const char *ip = check_index(l, p, i);
		const char *s = check_str(l, cmd->items[i], ip);
		if (!s || !(s = check_template(l, cmd->items[i], ip, s, in_build, false)))
			return false;
		if (!i && check_blank(s)) {
			check_problem(l, cmd->items[i], ip, NULL,
				      "expected a program name, got a blank string");
			return false;
		}
		argv[i] = s;
	}
	x->kind = EXEC_ARGV;
	x->argv = argv;
	x->argc = cmd->count;
	return true;
}

/* command: "a shell string", with shell: true (cmd a string scalar). */
static bool parse_shell(struct loader *l, const struct ynode *cmd, const char *p, bool in_build,
			bool shell, struct exec *x)
{
	const char *s;

	if (!shell) {
		check_problem(l, cmd, p,
			      "write the command as a list [program, arg, ...], or set shell: "
			      "true",
			      "a command string needs shell: true");
		return false;
	}
	if (check_blank(cmd->text)) {
		check_problem(l, cmd, p, NULL, "expected a shell command, got a blank string");
		return false;
	}
	if (!(s = check_template(l, cmd, p, cmd->text, in_build, true)))
		return false;
	x->kind = EXEC_SHELL;
	x->shell = s;
	return true;
}

bool parse_exec_command(struct loader *l, const struct ynode *map, const char *path, bool in_build,
			struct exec *x)
{
	const struct ynode *cmd = ynode_get(map, "command"), *sh = ynode_get(map, "shell");
	const char *p = check_child(l, path, "command");
	bool shell = false;

	if (sh && !check_bool(l, sh, check_child(l, path, "shell"), &shell))
		return false;
	if (!cmd) {
		check_problem(l, map, path, NULL, "expected a map with command, got no command");
		return false;
	}
	x->pos.line = cmd->line;
	x->pos.column = cmd->column;
	if (cmd->kind == YNODE_SEQ && shell) {
		check_problem(l, sh, check_child(l, path, "shell"),
			      "write the command as one string, or drop shell: true",
			      "shell: true needs the command as a string, got a list");
		return false;
	}
	if (cmd->kind == YNODE_SEQ)
		return parse_argv(l, cmd, p, in_build, x);
	if (cmd->kind == YNODE_SCALAR && ynode_type(cmd) == YSCALAR_STR)
		return parse_shell(l, cmd, p, in_build, shell, x);
	check_problem(l, cmd, p, NULL, "expected an argv list or a string with shell: true, got %s",
		      check_found(l, cmd));
	return false;
}

static const char *const exec_keys[] = { "command", "shell", "cwd", "env", "timeout", NULL };

/* A hook or build step: own cwd, env (layered on `env`) and timeout. */
bool parse_exec(struct loader *l, const struct ynode *n, const char *path, bool in_build,
		const char *cwd, const struct env_var *env, size_t env_count, uint64_t timeout_ns,
		struct exec *x)
{
	struct env_var *own_env = NULL;
	size_t own_count = 0, i;
	bool ok;

	if (!check_map(l, n, path, "a map with command"))
		return false;
	check_keys(l, n, path, exec_keys, path);
	ok = parse_exec_command(l, n, path, in_build, x);
	x->cwd = cwd;
	x->timeout_ns = timeout_ns;
	x->env = env;
	x->env_count = env_count;
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		if (!strcmp(k, "cwd")) {
			const char *s = check_str(l, v, p);
			if (s && (s = check_template(l, v, p, s, in_build, false)) &&
			    check_path(l, v, p, s, PATH_PROJECT))
				x->cwd = s;
		} else if (!strcmp(k, "env")) {
			parse_env(l, v, p, in_build, &own_env, &own_count);
		} else if (!strcmp(k, "timeout")) {
			check_duration(l, v, p, true, &x->timeout_ns);
		}
	}
	if (own_count) {
		struct env_var *merged = (struct env_var *)env;
		size_t count = env_count;
		layer_env(l, &merged, &count, own_env, own_count);
		x->env = merged;
		x->env_count = count;
	}
	return ok;
}

void parse_hooks(struct loader *l, const struct ynode *n, const char *path,
		 const struct resolved *r, const struct exec **out, size_t *count)
{
	struct exec *v;
	size_t i;

	if (!check_seq(l, n, path, "a list of commands"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	for (i = 0; i < n->count; i++)
		parse_exec(l, n->items[i], check_index(l, path, i), false, r->cwd, r->env,
			   r->env_count, SUITE_DEFAULT_HOOK_TIMEOUT_NS, &v[i]);
	*out = v;
	*count = n->count;
}

static const char *const command_keys[] = { "command", "shell",	  "cwd",     "env",
					    "timeout", "stdout",  "stderr",  "exit_codes",
					    "budget",  "metrics", "harness", NULL };

static const char *const harness_keys[] = { "format", "output",	    "metric",
					    "select", "benchmarks", NULL };
static const char *const rule_keys[] = { "tolerance", "budget", NULL };

/* One rule of harness.benchmarks: tolerance (a percent) and budget (of
 * latency, as a command's budget: is written). */
static bool parse_rule(struct loader *l, const struct ynode *key, const struct ynode *n,
		       const char *path, const struct benchmark *bm, const struct command *c,
		       struct harness_rule *r)
{
	struct err err = ERR_INIT;
	const struct ynode *v;
	size_t i;

	r->filter = key->text;
	r->pos.line = key->line;
	r->pos.column = key->column;
	if (harness_filter_check(key->text, &err) < 0) {
		check_problem(l, key, path, NULL, "%s", err.msg);
		return false;
	}
	if (!check_map(l, n, path, "a map of tolerance, budget"))
		return false;
	check_keys(l, n, path, rule_keys, path);
	if ((v = ynode_get(n, "tolerance")))
		r->has_tolerance = check_percent(l, v, check_child(l, path, "tolerance"), 1000,
						 &r->max_fraction);
	if ((v = ynode_get(n, "budget"))) {
		struct command tmp = *c;
		const char *bp = check_child(l, path, "budget");
		tmp.budgets = NULL;
		tmp.budget_count = 0;
		parse_budgets(l, v, bp, bm, &tmp);
		for (i = 0; i < tmp.budget_count; i++)
			if (tmp.budgets[i].metric != METRIC_LATENCY) {
				check_problem(l, v, bp, "a harness benchmark has its time only",
					      "expected a budget of latency, got %s",
					      metric_info(tmp.budgets[i].metric)->name);
				return false;
			}
		r->budgets = tmp.budgets;
		r->budget_count = tmp.budget_count;
	}
	return true;
}

static void parse_rules(struct loader *l, const struct ynode *n, const char *path,
			const struct benchmark *bm, struct harness_spec *h, const struct command *c)
{
	struct harness_rule *v;
	size_t i;

	if (!check_map(l, n, path, "a map of benchmark filter: {tolerance, budget}"))
		return;
	v = arena_array(l->a, n->count ? n->count : 1, sizeof(*v));
	for (i = 0; i < n->count; i++)
		if (!parse_rule(l, n->keys[i], n->items[i], check_child(l, path, n->keys[i]->text),
				bm, c, &v[i]))
			return;
	h->rules = v;
	h->rule_count = n->count;
}

/* select: a filter or a list of them (harness/select.h), for a command
 * written as a list: a shell string has no command line to add to. */
static bool parse_harness_select(struct loader *l, const struct ynode *n, const char *path,
				 const struct command *c, struct harness_spec *h)
{
	const struct ynode *const *items = &n;
	const char **v;
	size_t count = 1, i;

	if (c->exec.kind == EXEC_SHELL) {
		check_problem(l, n, path, "write the command as a list [program, arg, ...]",
			      "select needs a command without shell: true: the selection is "
			      "added to its arguments");
		return false;
	}
	if (n->kind == YNODE_SEQ) {
		items = (const struct ynode *const *)n->items;
		count = n->count;
	}
	if (!count || count > HARNESS_MAX_FILTERS) {
		check_problem(l, n, path, NULL, "expected 1 to %u filters, got %zu",
			      HARNESS_MAX_FILTERS, count);
		return false;
	}
	v = arena_array(l->a, count, sizeof(*v));
	for (i = 0; i < count; i++) {
		const char *ip = n->kind == YNODE_SEQ ? check_index(l, path, i) : path;
		struct err err = ERR_INIT;
		const char *s = check_str(l, items[i], ip);
		if (!s)
			return false;
		if (harness_filter_check(s, &err) < 0) {
			check_problem(l, items[i], ip, NULL, "%s", err.msg);
			return false;
		}
		v[i] = s;
	}
	h->select = v;
	h->select_count = count;
	return true;
}

/* The kinds' names as one line for messages, from the harness area's table
 * so that a new kind is named here without an edit. */
static const char *harness_names(struct loader *l)
{
	struct strbuf sb;
	const char *s;
	int k;

	strbuf_init(&sb, 0);
	for (k = 0; k < HARNESS__COUNT; k++)
		strbuf_addf(&sb, "%s%s", k ? (k + 1 == HARNESS__COUNT ? " or " : ", ") : "",
			    harness_kind_name((enum harness_kind)k));
	s = arena_strdup(l->a, sb.buf);
	strbuf_release(&sb);
	return s;
}

static bool parse_harness_kind(struct loader *l, const struct ynode *n, const char *path,
			       enum harness_kind *kind)
{
	const char *s = check_str(l, n, path);

	if (!s)
		return false;
	if (harness_kind_from_name(s, kind) == 0)
		return true;
	check_problem(l, n, path, "see docs/configuration.md, \"Harnesses\"", "expected %s, got %s",
		      harness_names(l), check_found(l, n));
	return false;
}

/* harness: NAME, or {format: NAME, output: FILE} for a harness that writes
 * its output to a file in ${workdir} (docs/configuration.md, "Harnesses"). */
static void parse_harness(struct loader *l, const struct ynode *n, const char *path,
			  const struct benchmark *bm, struct command *c)
{
	struct harness_spec *h = &c->harness;
	const struct ynode *format, *output, *metric;
	struct output o;

	h->pos.line = n->line;
	h->pos.column = n->column;
	h->metric = "time";
	if (bm->terminal) {
		check_problem(l, n, path, "drop terminal: true from the benchmark",
			      "a harness cannot run in a terminal benchmark: its output would "
			      "be the pty's");
		return;
	}
	if (n->kind == YNODE_SCALAR) {
		h->present = parse_harness_kind(l, n, path, &h->kind);
		return;
	}
	if (!check_map(l, n, path, "a harness name or a map with format"))
		return;
	check_keys(l, n, path, harness_keys, path);
	format = ynode_get(n, "format");
	output = ynode_get(n, "output");
	metric = ynode_get(n, "metric");
	if (ynode_get(n, "select") &&
	    !parse_harness_select(l, ynode_get(n, "select"), check_child(l, path, "select"), c, h))
		return;
	if (ynode_get(n, "benchmarks"))
		parse_rules(l, ynode_get(n, "benchmarks"), check_child(l, path, "benchmarks"), bm,
			    h, c);
	if (!format) {
		check_problem(l, n, path, NULL, "expected a map with format, got no format");
		return;
	}
	if (!parse_harness_kind(l, format, check_child(l, path, "format"), &h->kind))
		return;
	if (output) {
		const char *op = check_child(l, path, "output");
		if (!parse_output(l, output, op, &o))
			return;
		if (o.kind != OUTPUT_FILE) {
			check_problem(l, output, op, "leave output out to read standard output",
				      "expected a file inside ${workdir}, got %s",
				      check_found(l, output));
			return;
		}
		h->output = o.path;
	}
	if (metric) {
		const char *mp = check_child(l, path, "metric");
		const char *s = check_str(l, metric, mp);
		if (!s)
			return;
		if (!*s || strlen(s) > HARNESS_MAX_METRIC_BYTES) {
			check_problem(l, metric, mp, NULL,
				      "expected a metric's name of 1 to %u bytes, got %s",
				      HARNESS_MAX_METRIC_BYTES, check_found(l, metric));
			return;
		}
		h->metric = s;
	}
	h->present = true;
}

/* The counts measure a process, not the benchmarks inside a harness. */
static void check_harness_metrics(struct loader *l, const struct ynode *n, const char *path,
				  const struct command *c)
{
	static const enum metric counts[] = { METRIC_INSTRUCTIONS, METRIC_ALLOCATIONS,
					      METRIC_ARTIFACT_SIZE };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (command_measures(c, counts[i]))
			check_problem(l, n, path, "measure it in a command without harness:",
				      "metrics.%s cannot be counted for a harness's benchmarks",
				      metric_info(counts[i])->name);
}

/* The benchmark's metrics with the command's own counts laid over
 * (docs/configuration.md, "Metrics"). */
static void resolve_metrics(struct loader *l, const struct layer *own, const struct benchmark *bm,
			    struct command *c)
{
	struct metrics *m = &c->metrics;

	*m = bm->metrics;
	if (own->has_instructions)
		m->instructions = own->instructions;
	if (own->has_backend)
		m->backend = own->backend;
	if (own->has_count_runs)
		m->count_runs = own->count_runs;
	if (own->has_allocations)
		m->allocations = own->allocations;
	if (own->has_artifact_size)
		m->artifact_size = own->artifact_size;
	if (own->has_artifact_size && own->artifact_size && !l->has_build)
		check_problem(
			l, own->artifact_size_node, own->artifact_size_path,
			"add a build: step that writes ${artifact}",
			"metrics.artifact_size needs a build: step (it measures ${artifact})");
}

void parse_command(struct loader *l, const struct ynode *n, const char *path,
		   const struct resolved *r, const struct benchmark *bm, struct command *c)
{
	const struct ynode *budget;
	struct layer own;
	size_t i;

	memset(&own, 0, sizeof(own));
	if (!check_map(l, n, path, "a map with command"))
		return;
	check_keys(l, n, path, command_keys, path);
	parse_exec_command(l, n, path, false, &c->exec);
	for (i = 0; i < n->count; i++) {
		const char *k = n->keys[i]->text, *p = check_child(l, path, k);
		const struct ynode *v = n->items[i];
		const char *const *known;
		for (known = command_keys; *known && strcmp(*known, k); known++) {
		}
		if (!*known) /* reported by check_keys */
			continue;
		if (!strcmp(k, "metrics"))
			parse_command_metrics(l, v, p, &own);
		else if (!strcmp(k, "harness"))
			parse_harness(l, v, p, bm, c);
		else if (strcmp(k, "command") && strcmp(k, "shell") && strcmp(k, "budget"))
			parse_setting(l, k, v, p, false, &own);
	}
	resolve_metrics(l, &own, bm, c);
	if (c->harness.present)
		check_harness_metrics(l, ynode_get(n, "harness"), check_child(l, path, "harness"),
				      c);
	if ((budget = ynode_get(n, "budget"))) /* once the command's metrics are known */
		parse_budgets(l, budget, check_child(l, path, "budget"), bm, c);
	c->exec.cwd = own.cwd ? own.cwd : r->cwd;
	c->exec.timeout_ns = own.has_timeout ? own.timeout_ns : r->timeout_ns;
	{
		struct env_var *env = r->env;
		size_t count = r->env_count;
		layer_env(l, &env, &count, own.env, own.env_count);
		c->exec.env = env;
		c->exec.env_count = count;
	}
	c->out = own.has_stdout ? own.out : r->out;
	c->err = own.has_stderr ? own.err : r->err;
	if (bm->terminal) /* all output is the pty's, kept as stdout */
		c->err.kind = OUTPUT_DISCARD, c->err.path = NULL;
	if (bm->terminal && own.has_stderr)
		check_problem(l, own.stderr_node, check_child(l, path, "stderr"),
			      "a terminal benchmark's output is all on the pty; use stdout",
			      "stderr cannot be set in a terminal benchmark");
	c->exit_codes = own.exit_code_count ? own.exit_codes : r->exit_codes;
	c->exit_code_count = own.exit_code_count ? own.exit_code_count : r->exit_code_count;
}

/* A word as a shell would need it to read back the same argument. */
static void add_shell_word(struct strbuf *sb, const char *s)
{
	const char *p;

	if (*s && !s[strcspn(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")]) {
		strbuf_adds(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p; p++)
		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	strbuf_addch(sb, '\'');
}

void suite_exec_text(const struct exec *x, struct strbuf *out)
{
	size_t i;

	switch (x->kind) {
	case EXEC_SHELL:
		strbuf_adds(out, x->shell);
		return;
	case EXEC_ARGV:
		break;
	}
	for (i = 0; i < x->argc; i++) {
		if (i)
			strbuf_addch(out, ' ');
		add_shell_word(out, x->argv[i]);
	}
}
