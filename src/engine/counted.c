/*
 * The counted metrics of a unit (see internal.h): counts that do not depend
 * on the machine's load, decided by the counts rule of docs/comparison.md,
 * "Deciding on counts", not by pairs.
 *
 * - artifact_size: the bytes of each side's built ${artifact} (and its ELF
 *   text, data and bss), measured after the timed runs: exact, so one "run"
 *   per side.
 * - instructions with the perf counter: counted during the timed runs (the
 *   spawner counts the command's whole tree, docs/design.md); after them,
 *   only the runs the counts rule wants beyond those, counted the same way.
 * - instructions with valgrind: a separate, untimed phase after the timed
 *   runs (before cleanup) for the commands that ask for it: each under
 *   valgrind's cachegrind, base and head runs in coin-flipped pairs, `runs`
 *   per side, then two more at a time while the counts rule asks, up to its
 *   cap. allocations and allocated_bytes: the same with valgrind's DHAT
 *   (heap blocks and bytes allocated). Each side's command sees its root
 *   through a link of one length on both sides, and gets an environment
 *   padded to the other side's size: the lengths of its paths and the size
 *   of its argv and environment move its counts (docs/comparison.md, "How
 *   constant counts are here").
 *
 * Each command says which counts it asks for, and with which backend (its
 * `metrics:` over its benchmark's, docs/configuration.md, "Metrics"): only
 * those are run, each backend probed once per benchmark.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "judge/counts.h"
#include "measure/counter.h"
#include "measure/elf.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/banned.h"

#define COUNTED_PAD "HIMORIME_COUNT_PAD="

/* A count that could not be measured: the side's metric error (exit 6). */
static void count_failed(struct results_side *rs, enum metric m, const char *why)
{
	struct results_metric *rm = &rs->metrics[m];

	rm->status = STATUS_FAILED;
	results_set_str(&rm->reason, why);
	if (!rs->error.present)
		results_set_error(&rs->error, RESULTS_ERROR_METRIC_COLLECTION_FAILED, why, NULL, 0);
	rs->error.has_metric = true;
	rs->error.metric = m;
}

static void artifact_size(const struct side *s, struct results_side *rs)
{
	struct results_metric *rm = &rs->metrics[METRIC_ARTIFACT_SIZE];
	struct elf_sizes es;
	struct err err = ERR_INIT;

	if (elf_sizes_read(s->artifact, &es, &err) < 0) {
		count_failed(rs, METRIC_ARTIFACT_SIZE, err.msg);
		return;
	}
	results_add_sample(rs, METRIC_ARTIFACT_SIZE, (double)es.file_bytes);
	if (es.is_elf) {
		rm->has_elf = true;
		rm->elf_text = es.text;
		rm->elf_data = es.data;
		rm->elf_bss = es.bss;
	}
}

void counted_measure(struct bench_run *br, struct unit *u)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int side;

	if (!command_measures(u->cmd, METRIC_ARTIFACT_SIZE))
		return;
	for (side = HEAD; side <= BASE; side++) {
		const struct side *s = br->sides[side];
		if (!u->sides[side] || !s || s->failed || !s->artifact)
			continue;
		artifact_size(s, side == HEAD ? &rc->head : &rc->base);
	}
}

/* The runs of one side's count as integers, for the counts rule. */
static uint64_t *runs_of(const struct results_metric *rm)
{
	uint64_t *v = xcalloc(rm->n_samples ? rm->n_samples : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < rm->n_samples; i++)
		v[i] = (uint64_t)rm->samples[i];
	return v;
}

/* The counts rule's input for count m of a command that both sides
 * measured, and the runs it points to. */
struct owned_input {
	struct counts_input in;
	uint64_t *head, *base;
};

/* Fills o from each side's runs, with the tolerance and the cap of runs (a
 * size is exact: its one "run" is all there is); input_release frees it. */
static void input_of(const struct bench_run *br, const struct results_command *rc, enum metric m,
		     struct owned_input *o)
{
	const struct results_metric *h = &rc->head.metrics[m], *b = &rc->base.metrics[m];

	o->in = (struct counts_input)COUNTS_INPUT_INIT;
	o->in.head = o->head = runs_of(h);
	o->in.n_head = h->n_samples;
	o->in.base = o->base = runs_of(b);
	o->in.n_base = b->n_samples;
	o->in.max_fraction = plan_tolerance(br->pb, m)->max_fraction;
	o->in.runs_cap = m == METRIC_ARTIFACT_SIZE ? 1 : COUNTS_DEFAULT_RUNS_CAP;
}

static void input_release(struct owned_input *o)
{
	free(o->head);
	free(o->base);
}

#define REASON_COUNTS_CUT "the comparison's time budget ran out after %u counted run%s per side"

/* A count the whole time budget stopped before each compared side had a
 * run: no sample on a side that was not otherwise kept from counting (a
 * failure, no backend). */
static bool cut_before_counting(const struct bench_run *br, const struct unit *u,
				const struct results_metric *h, const struct results_metric *b)
{
	return br->counts_cut && u->compared && !u->failed && (!h->n_samples || !b->n_samples) &&
	       h->status != STATUS_FAILED && h->status != STATUS_UNSUPPORTED &&
	       b->status != STATUS_FAILED && b->status != STATUS_UNSUPPORTED;
}

/* A count the whole time budget stopped before the rule was done with it:
 * fewer runs per side than the command's `runs`, or the rule asked for more
 * (counted by valgrind after the timed runs; a size is never cut). */
static bool cut_short(const struct bench_run *br, const struct unit *u, enum metric m,
		      const struct comparison *cmp, unsigned more)
{
	return br->counts_cut && m != METRIC_ARTIFACT_SIZE &&
	       (more || cmp->pairs < u->pc->count_runs);
}

/* Inconclusive, whatever the runs it had would say: the rule never decides
 * on fewer runs than it asks for. */
static void cut_verdict(struct comparison *cmp)
{
	cmp->verdict = VERDICT_INCONCLUSIVE;
	cmp->final = true;
	snprintf(cmp->reason, sizeof(cmp->reason), REASON_COUNTS_CUT, cmp->pairs,
		 cmp->pairs == 1 ? "" : "s");
}

/* Its comparison: inconclusive, with no estimate. */
static void cut_comparison(enum metric m, const struct tolerance *t, struct comparison *cmp)
{
	memset(cmp, 0, sizeof(*cmp));
	cmp->metric = m;
	cmp->counts = true;
	cmp->statistic_shown = SIDE_MEDIAN;
	cmp->confidence = 1;
	cmp->max_fraction = t->max_fraction;
	cmp->band_low_percent = -100 * t->max_fraction;
	cmp->band_high_percent = 100 * t->max_fraction;
	cmp->verdict = VERDICT_INCONCLUSIVE;
	cmp->gate = t->gate;
	cmp->final = true;
	snprintf(cmp->reason, sizeof(cmp->reason), REASON_COUNTS_CUT, 0u, "s");
}

void counted_compare(const struct bench_run *br, const struct unit *u, struct results_command *rc)
{
	static const enum metric counted[] = { METRIC_ARTIFACT_SIZE, METRIC_INSTRUCTIONS,
					       METRIC_ALLOCATIONS, METRIC_ALLOCATED_BYTES };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(counted); k++) {
		enum metric m = counted[k];
		const struct results_metric *h = &rc->head.metrics[m], *b = &rc->base.metrics[m];
		const struct tolerance *t = plan_tolerance(br->pb, m);
		struct owned_input o;
		struct comparison cmp;
		unsigned more;
		if (!command_measures(u->cmd, m))
			continue;
		if (cut_before_counting(br, u, h, b)) {
			cut_comparison(m, t, &cmp);
			results_add_comparison(rc, &cmp);
			continue;
		}
		if (h->status != STATUS_MEASURED || b->status != STATUS_MEASURED || !h->n_samples ||
		    !b->n_samples)
			continue;
		input_of(br, rc, m, &o);
		counts_compare(m, &o.in, t->gate, &cmp, &more);
		if (more) /* the phase of runs ended early (a failure, an interrupt) */
			cmp.final = false;
		if (cut_short(br, u, m, &cmp, more))
			cut_verdict(&cmp);
		results_add_comparison(rc, &cmp);
		/* a search judges a size here, measured just now (counted_measure);
		 * the other counts as their runs came in (more_wanted) */
		if (m == METRIC_ARTIFACT_SIZE)
			bisect_count(br, u, m, &o.in);
		input_release(&o);
	}
}

/* ---- instructions and allocations ------------------------------------------ */

/* A phase of counted runs: what it counts, and the metrics that hold it
 * (by which backend is the measurer's: measure/counter.h). */
struct phase {
	enum count_what what;
	const char *label; /* for progress lines */
	size_t n;
	enum metric metrics[2];
};

static const struct phase phases[] = {
	{
		.what = COUNT_INSTRUCTIONS,
		.label = "instructions",
		.n = 1,
		.metrics = { METRIC_INSTRUCTIONS },
	},
	{
		.what = COUNT_ALLOCATIONS,
		.label = "allocations",
		.n = 2,
		.metrics = { METRIC_ALLOCATIONS, METRIC_ALLOCATED_BYTES },
	},
};

/* Which backend counts the phase for a command that asks for `want`, asked
 * of the measurer with the environment the measured commands get. */
static void choose(const struct runner *r, enum counter_backend want, const struct phase *ph,
		   struct counter_choice *c)
{
	char **envp;

	if (!r->m.choose) {
		memset(c, 0, sizeof(*c));
		c->why = xstrdup("this measurer counts nothing");
		return;
	}
	envp = exec_scrubbed_env(&r->hidden);
	r->m.choose(r->m.ctx, want, ph->what, envp, c);
	exec_env_free(envp);
}

/* The phase's counts cannot be measured on one side: unsupported with the
 * reason, and an error of the side (exit 6) under `metrics.unsupported:
 * fail`, a note under skip. */
static void unsupported(const struct bench_run *br, struct results_side *rs, const struct phase *ph,
			const char *why)
{
	size_t k;

	for (k = 0; k < ph->n; k++) {
		struct results_metric *rm = &rs->metrics[ph->metrics[k]];
		rm->status = STATUS_UNSUPPORTED;
		results_set_str(&rm->reason, why);
		/* nothing was counted: no backend to name */
		results_set_str(&rm->counter_backend, NULL);
		results_set_str(&rm->counter_version, NULL);
		results_set_str(&rm->counter_event, NULL);
	}
	if (br->b->metrics.unsupported == UNSUPPORTED_SKIP || rs->error.present)
		return;
	results_set_error(&rs->error, RESULTS_ERROR_METRIC_UNSUPPORTED, why, NULL, 0);
	rs->error.has_metric = true;
	rs->error.metric = ph->metrics[0];
}

/* The backend on each side of a unit, or the metric unsupported there. */
static void describe_counter(struct bench_run *br, struct unit *u, const struct phase *ph,
			     const struct counter_choice *c)
{
	struct results_command *rc = &br->rb->commands[u->index];
	size_t k;
	int side;

	for (side = HEAD; side <= BASE; side++) {
		struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
		if (!u->sides[side])
			continue;
		if (!c->version) {
			unsupported(br, rs, ph, c->why);
			continue;
		}
		for (k = 0; k < ph->n; k++) {
			struct results_metric *rm = &rs->metrics[ph->metrics[k]];
			if (c->perf)
				rm->source = RESULTS_SOURCE_PERF_EVENT;
			results_set_str(&rm->counter_backend, c->name);
			results_set_str(&rm->counter_version, c->version);
			results_set_str(&rm->counter_event, c->event[k]);
		}
	}
}

/* A phase's counts failed on one side: each is the side's metric error. */
static void phase_failed(struct results_side *rs, const struct phase *ph, const char *why)
{
	size_t k;

	for (k = 0; k < ph->n; k++)
		count_failed(rs, ph->metrics[k], why);
}

static size_t vec_bytes(char *const *v)
{
	size_t n = 0;

	for (; v && *v; v++)
		n += strlen(*v) + 1;
	return n;
}

/* What a command puts on its initial stack: argv, the environment, and the
 * program's path once more (AT_EXECFN) when argv[0] names one; under
 * valgrind also its working directory, as the kernel resolves it (links
 * followed): the counts move with the sum of these lengths modulo 4
 * (docs/comparison.md, "How constant counts are here"). */
static size_t stack_bytes(const struct prepared *p)
{
	size_t n = vec_bytes(p->argv) + vec_bytes(p->envp);
	char *cwd = realpath(p->cwd ? p->cwd : ".", NULL);

	if (strchr(p->argv[0], '/'))
		n += strlen(p->argv[0]) + 1;
	if (cwd)
		n += strlen(cwd) + 1;
	free(cwd);
	return n;
}

static size_t vec_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* The environment plus HIMORIME_COUNT_PAD with `pad` bytes of value; only
 * the last string is the caller's to free. */
static char **padded_env(char *const *envp, size_t pad)
{
	size_t n = vec_len(envp), i;
	char **out = xcalloc(n + 2, sizeof(*out));

	for (i = 0; i < n; i++)
		out[i] = envp[i];
	out[n] = xmalloc(sizeof(COUNTED_PAD) + pad);
	memcpy(out[n], COUNTED_PAD, sizeof(COUNTED_PAD) - 1);
	memset(out[n] + sizeof(COUNTED_PAD) - 1, 'x', pad);
	out[n][sizeof(COUNTED_PAD) - 1 + pad] = '\0';
	return out;
}

/* The side's root as its counted runs see it: <priv>/root, a symbolic link
 * to the root. The private directories of the two sides have names of one
 * length, so ${root}, the paths under it and the working directory have one
 * length on both sides: the loader's and the program's string handling of
 * its own path counts instructions (12 more for /bin/true at a path 30 bytes
 * longer), which no padding of the environment evens out. */
static char *counted_root(const struct side *s)
{
	return xasprintf("%s/root", s->priv);
}

/* side_vars with the counted root, made if it is not there yet; the caller
 * frees *root. */
static int counted_vars(const struct side *s, struct vars *v, char **root, struct err *err)
{
	*root = counted_root(s);
	side_vars(s, v);
	v->root = *root;
	if (symlink(s->root, *root) < 0 && errno != EEXIST)
		return err_set(err, ERR_EXEC, "cannot create \"%s\": %s", *root, strerror(errno));
	return 0;
}

/* The counts of one counted run into the side. */
static void add_counts(struct results_side *rs, const struct phase *ph, const uint64_t counts[2])
{
	size_t k;

	for (k = 0; k < ph->n; k++)
		results_add_sample(rs, ph->metrics[k], (double)counts[k]);
}

/* Runs the command once with the chosen backend (valgrind's out files in
 * `dir`, the environment padded by `pad` bytes under valgrind) and adds its
 * counts, summed over its processes, to the side. A failure is the metrics'
 * (exit 6); ERR_INTERRUPTED stops the phase. */
static int count_run(struct bench_run *br, struct unit *u, struct results_side *rs,
		     const struct prepared *p, const struct phase *ph,
		     const struct counter_choice *c, size_t pad, const char *dir)
{
	struct runner *r = br->r;
	struct run_request req = p->req;
	struct count_request cr = {
		.run = &req,
		.what = ph->what,
		.perf = c->perf,
		.dir = dir,
		.exit_codes = u->cmd->exit_codes,
		.n_exit_codes = u->cmd->exit_code_count,
	};
	struct err err = ERR_INIT;
	struct strbuf why;
	uint64_t counts[2];
	char **envp = c->perf ? NULL : padded_env(p->envp, pad);
	int rc, ret = 0;

	if (envp)
		req.envp = envp;
	strbuf_init(&why, 0);
	rc = r->m.count(r->m.ctx, &cr, counts, &why, &err);
	if (rc < 0 && rc != ERR_METRIC && rc != ERR_INTERRUPTED)
		phase_failed(rs, ph, err.msg); /* the measurer itself */
	else if (rc == ERR_INTERRUPTED || r->interrupted)
		ret = ERR_INTERRUPTED;
	else if (rc == ERR_METRIC)
		phase_failed(rs, ph, why.buf);
	else
		add_counts(rs, ph, counts);
	strbuf_release(&why);
	if (envp)
		free(envp[vec_len(envp) - 1]);
	free(envp);
	return ret;
}

/* One counted run of a unit on one side: prepare_each, a fresh directory
 * for valgrind's out files, the command as the side runs it through the
 * counted root (counted_vars), then count_run. */
static int count_once(struct bench_run *br, struct unit *u, int side, size_t pad,
		      const struct phase *ph, const struct counter_choice *c)
{
	struct runner *r = br->r;
	struct side *s = br->sides[side];
	struct results_command *rc = &br->rb->commands[u->index];
	struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
	struct err err = ERR_INIT;
	struct prepared p;
	struct vars v;
	char *dir = xasprintf("%s/counts-%zu", s->priv, u->index);
	char *stderr_path = xasprintf("%s/stderr-%zu", s->priv, u->index);
	char *root;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	counted_vars(s, &v, &root, &err);
	if (side_run_hooks(r, br->b->prepare_each, br->b->prepare_each_count, s, "prepare_each",
			   RESULTS_ERROR_PREPARE_EACH_FAILED, &rs->error) < 0) {
		u->failed = true;
		ret = r->interrupted ? ERR_INTERRUPTED : 0;
		goto done;
	}
	if (!err.code && fsio_remove_tree(dir, &err) == 0 && mkdir(dir, 0700) < 0)
		err_set(&err, ERR_EXEC, "cannot create \"%s\": %s", dir, strerror(errno));
	if (err.code || exec_prepare(&u->cmd->exec, &v, root, &r->hidden, &p, &err) < 0) {
		phase_failed(rs, ph, err.msg);
		goto done;
	}
	p.req.stdin_path = s->stdin_path;
	p.req.stdout_path = NULL;
	p.req.stderr_path = stderr_path;
	p.req.terminal = br->b->terminal;
	ret = count_run(br, u, rs, &p, ph, c, pad, dir);
done:
	exec_release(&p);
	fsio_remove_tree(dir, &err);
	unlink(stderr_path);
	free(stderr_path);
	free(dir);
	free(root);
	return ret;
}

/* Each side's padding: what the other side's command puts on its stack
 * beyond this one's (docs/comparison.md: equal sizes, equal counts). */
static void pads(struct bench_run *br, struct unit *u, size_t pad[2])
{
	size_t bytes[2] = { 0, 0 };
	int side;

	for (side = HEAD; side <= BASE; side++) {
		struct err err = ERR_INIT;
		struct prepared p;
		struct vars v;
		char *root;
		if (!u->sides[side])
			continue;
		memset(&p, 0, sizeof(p));
		if (counted_vars(br->sides[side], &v, &root, &err) == 0 &&
		    exec_prepare(&u->cmd->exec, &v, root, &br->r->hidden, &p, &err) == 0)
			bytes[side] = stack_bytes(&p);
		exec_release(&p);
		free(root);
	}
	pad[HEAD] = bytes[BASE] > bytes[HEAD] ? bytes[BASE] - bytes[HEAD] : 0;
	pad[BASE] = bytes[HEAD] > bytes[BASE] ? bytes[HEAD] - bytes[BASE] : 0;
}

static bool counting(const struct bench_run *br, const struct unit *u, int side, enum metric m)
{
	const struct results_command *rc = &br->rb->commands[u->index];
	const struct results_side *rs = side == HEAD ? &rc->head : &rc->base;

	return u->sides[side] && !br->sides[side]->failed &&
	       rs->metrics[m].status != STATUS_FAILED &&
	       rs->metrics[m].status != STATUS_UNSUPPORTED;
}

static size_t counted_runs(const struct bench_run *br, const struct unit *u, int side,
			   enum metric m)
{
	const struct results_command *rc = &br->rb->commands[u->index];

	return (side == HEAD ? &rc->head : &rc->base)->metrics[m].n_samples;
}

static double timed_median_ns(const struct bench_run *br, const struct unit *u);

/* Whether what is left of the whole time budget holds one more counted run
 * of the unit at the least (valgrind's start and 20 times its timed median):
 * a run that cannot end within it only overruns it. */
static bool run_fits(const struct bench_run *br, const struct unit *u)
{
	uint64_t left = engine_budget_left_ns(br);

	return left == UINT64_MAX ||
	       (double)left >=
		       (double)COUNTER_START_NS + COUNTER_SLOWDOWN_LOW * timed_median_ns(br, u);
}

/* Runs of one unit in coin-flipped base/head pairs until each counting side
 * has `want`. */
static int count_to(struct bench_run *br, struct unit *u, size_t want, const size_t pad[2],
		    const struct phase *ph, const struct counter_choice *c)
{
	enum metric m = ph->metrics[0];
	int order[2], i, rc;

	while (!u->failed && !br->r->interrupted) {
		bool base_first = u->compared && schedule_base_first(&br->order), ran = false;
		order[0] = base_first ? BASE : HEAD;
		order[1] = base_first ? HEAD : BASE;
		for (i = 0; i < 2; i++) {
			if (!counting(br, u, order[i], m) ||
			    counted_runs(br, u, order[i], m) >= want)
				continue;
			/* the whole time budget ends the phase between runs */
			if (!c->perf && !run_fits(br, u)) {
				br->counts_cut = true;
				return 0;
			}
			ran = true;
			engine_progress(br->r, "%s › %s: counting %s under %s, %s run %zu of %zu",
					br->b->name, u->cmd->name, ph->label, c->name,
					side_name(order[i]), counted_runs(br, u, order[i], m) + 1,
					want);
			if ((rc = count_once(br, u, order[i], pad[order[i]], ph, c)) < 0)
				return rc;
		}
		if (!ran)
			break;
	}
	return br->r->interrupted ? ERR_INTERRUPTED : 0;
}

/* DHAT sees allocations through a library it preloads into each process;
 * a statically linked program (measure/elf.h) gets none, and would count 0
 * allocations however many it makes: unmeasurable, never a measured 0. The
 * program the command starts is checked (as a run finds it: the child's PATH,
 * its cwd); what a shell or another dynamic program starts is not
 * (docs/configuration.md, "Counts"). */
static void refuse_static(struct bench_run *br, struct unit *u, const struct phase *ph)
{
	struct results_command *rc = &br->rb->commands[u->index];
	int side;

	for (side = HEAD; side <= BASE; side++) {
		struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
		struct err err = ERR_INIT;
		struct prepared p;
		struct vars v;
		bool is_static = false;
		char *root, *program = NULL, *why;
		if (!counting(br, u, side, ph->metrics[0]))
			continue;
		memset(&p, 0, sizeof(p));
		if (counted_vars(br->sides[side], &v, &root, &err) == 0 &&
		    exec_prepare(&u->cmd->exec, &v, root, &br->r->hidden, &p, &err) == 0 &&
		    (program = run_request_program(&p.req)) != NULL &&
		    elf_is_static(program, &is_static, &err) == 0 && is_static) {
			why = xasprintf("\"%s\" is statically linked: valgrind's DHAT cannot see "
					"its allocations",
					p.argv[0]);
			unsupported(br, rs, ph, why);
			free(why);
		}
		free(program);
		exec_release(&p);
		free(root);
	}
}

/* What the counts rule wants next for one count of a compared unit: runs
 * per side, or 0. */
static unsigned more_wanted(const struct bench_run *br, const struct unit *u, enum metric m)
{
	const struct results_command *rc = &br->rb->commands[u->index];
	const struct results_metric *h = &rc->head.metrics[m];
	const struct results_metric *b = &rc->base.metrics[m];
	struct owned_input o;
	struct comparison cmp;
	unsigned more = 0;

	if (!u->compared || !h->n_samples || !b->n_samples || h->status != STATUS_MEASURED ||
	    b->status != STATUS_MEASURED)
		return 0;
	input_of(br, rc, m, &o);
	if (u->bisect) /* a search asks its own rule, of the count searched */
		more = bisect_count(br, u, m, &o.in);
	else
		counts_compare(m, &o.in, true, &cmp, &more);
	input_release(&o);
	return more;
}

/* Picks the backend a command asks for, once per backend and phase (a
 * command may set its own: docs/configuration.md, "Metrics"). */
static const struct counter_choice *pick_for(const struct runner *r, struct count_picks *pk,
					     const struct phase *ph, enum counter_backend want)
{
	if (!pk->done[want])
		choose(r, want, ph, &pk->choice[want]);
	pk->done[want] = true;
	return &pk->choice[want];
}

static void picks_release(struct count_picks *pk)
{
	size_t k;

	for (k = 0; k < COUNT_BACKENDS; k++)
		counter_choice_release(&pk->choice[k]);
	memset(pk, 0, sizeof(*pk));
}

/* Whether the phase counts for unit u: its command asks for the phase's
 * counts, and in a search the phase has the count searched. */
static bool phase_runs(const struct bench_run *br, const struct unit *u, const struct phase *ph)
{
	return command_measures(u->cmd, ph->metrics[0]) &&
	       bisect_counts_phase(br, u, ph->metrics, ph->n);
}

/* One phase over every unit whose command asks for its counts: `runs` per
 * side, then more while any of the phase's counts asks. */
static int run_phase(struct bench_run *br, const struct phase *ph)
{
	struct count_picks local, *pk = &local;
	size_t i, k, pad[2] = { 0, 0 };
	int rc = 0;

	memset(&local, 0, sizeof(local));
	if (ph->metrics[0] == METRIC_INSTRUCTIONS)
		pk = &br->picks; /* chosen before the timed runs */
	for (i = 0; i < br->n_units; i++)
		if (phase_runs(br, &br->units[i], ph))
			describe_counter(br, &br->units[i], ph,
					 pick_for(br->r, pk, ph, br->units[i].pc->backend));
	for (i = 0; i < br->n_units && rc == 0; i++) {
		struct unit *u = &br->units[i];
		const struct counter_choice *c = &pk->choice[u->pc->backend];
		size_t want = bisect_count_runs(br, u, u->pc->count_runs);
		if (u->failed || !phase_runs(br, u, ph) || !c->version)
			continue;
		if (ph->what == COUNT_ALLOCATIONS) /* DHAT's */
			refuse_static(br, u, ph);
		if (!c->perf && !run_fits(br, u)) {
			br->counts_cut = true; /* the whole time budget is spent */
			continue;
		}
		if (!c->perf) {
			engine_log(br->r, "%s › %s: counting %s under valgrind, %zu run%s per side",
				   br->b->name, u->cmd->name, ph->label, want,
				   want == 1 ? "" : "s");
			pads(br, u, pad);
		}
		while (rc == 0 && want && !br->counts_cut) {
			rc = count_to(br, u, want, pad, ph, c);
			for (want = 0, k = 0; rc == 0 && k < ph->n; k++) {
				unsigned more = more_wanted(br, u, ph->metrics[k]);
				want = more > want ? more : want;
			}
		}
	}
	picks_release(&local);
	return rc;
}

void counted_choose(struct bench_run *br)
{
	size_t i;

	for (i = 0; i < br->n_units; i++)
		if (command_measures(br->units[i].cmd, METRIC_INSTRUCTIONS))
			pick_for(br->r, &br->picks, &phases[0], br->units[i].pc->backend);
}

void counted_release(struct bench_run *br)
{
	picks_release(&br->picks);
}

bool counted_by_perf(const struct bench_run *br, const struct unit *u)
{
	return command_measures(u->cmd, METRIC_INSTRUCTIONS) &&
	       br->picks.choice[u->pc->backend].perf;
}

void counted_add_run(struct bench_run *br, struct unit *u, int side, const struct run_result *res)
{
	struct results_command *rc = &br->rb->commands[u->index];
	struct results_side *rs = side == HEAD ? &rc->head : &rc->base;
	struct err err = ERR_INIT;
	uint64_t n;

	rs->metrics[METRIC_INSTRUCTIONS].source = RESULTS_SOURCE_PERF_EVENT;
	if (rs->metrics[METRIC_INSTRUCTIONS].status == STATUS_FAILED)
		return; /* one failed run already made the metric's error */
	if (counter_timed_count(res, &n, &err) < 0)
		count_failed(rs, METRIC_INSTRUCTIONS, err.msg);
	else
		results_add_sample(rs, METRIC_INSTRUCTIONS, (double)n);
}

/* The valgrind runs one unit will make at least: each phase's `runs` per
 * counted side. */
static unsigned planned_runs(const struct bench_run *br, const struct unit *u)
{
	unsigned sides = u->compared ? 2 : 1, runs = 0;

	if (u->failed)
		return 0;
	if (phase_runs(br, u, &phases[0]) && !counted_by_perf(br, u) &&
	    br->picks.choice[u->pc->backend].version)
		runs += (unsigned)bisect_count_runs(br, u, u->pc->count_runs) * sides;
	if (phase_runs(br, u, &phases[1]))
		runs += (unsigned)bisect_count_runs(br, u, u->pc->count_runs) * sides;
	return runs;
}

/* A unit's timed median latency: the larger of its sides', in ns. */
static double timed_median_ns(const struct bench_run *br, const struct unit *u)
{
	const struct results_command *rc = &br->rb->commands[u->index];
	const struct results_metric *lat[2] = { &rc->head.metrics[METRIC_LATENCY],
						&rc->base.metrics[METRIC_LATENCY] };
	double m = 0;
	int side;

	for (side = HEAD; side <= BASE; side++)
		if (u->sides[side] && lat[side]->n_samples) {
			double x = stats_median(lat[side]->samples, lat[side]->n_samples);
			m = x > m ? x : m;
		}
	return m;
}

uint64_t counted_estimate_ns(const struct bench_run *br, unsigned slowdown, unsigned *runs)
{
	double total = 0;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < br->n_units; i++) {
		unsigned k = planned_runs(br, &br->units[i]);
		n += k;
		total += (double)k *
			 ((double)COUNTER_START_NS + timed_median_ns(br, &br->units[i]) * slowdown);
	}
	if (runs)
		*runs = n;
	return total < (double)UINT64_MAX ? (uint64_t)total : UINT64_MAX;
}

/* "4.5 s", "45 s" or "2.5 min". */
static void add_duration(struct strbuf *sb, uint64_t ns)
{
	double s = (double)ns / 1e9;

	if (s < 10)
		strbuf_addf(sb, "%.1f s", s);
	else if (s < 120)
		strbuf_addf(sb, "%.0f s", s);
	else
		strbuf_addf(sb, "%.1f min", s / 60);
}

/* Before the counted runs: what they will cost at the least, in the logs,
 * and a warning naming the benchmark when that may not fit what is left of
 * the comparison's time budget (docs/comparison.md, "Time budgets"). */
static void announce(struct bench_run *br)
{
	uint64_t low, high, left = engine_budget_left_ns(br);
	unsigned runs;
	struct strbuf sb;

	low = counted_estimate_ns(br, COUNTER_SLOWDOWN_LOW, &runs);
	high = counted_estimate_ns(br, COUNTER_SLOWDOWN_HIGH, NULL);
	if (!runs || !high)
		return;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s: %u counted run%s under valgrind next, about ", br->b->name, runs,
		    runs == 1 ? "" : "s");
	add_duration(&sb, low);
	strbuf_adds(&sb, " to ");
	add_duration(&sb, high);
	strbuf_addf(&sb, " (valgrind's start and %d to %d times the timed runs)",
		    COUNTER_SLOWDOWN_LOW, COUNTER_SLOWDOWN_HIGH);
	engine_log(br->r, "%s", sb.buf);
	if (left != UINT64_MAX && high > left) {
		strbuf_reset(&sb);
		strbuf_addf(&sb,
			    "%s: its counted runs may not fit the comparison's time budget: %u "
			    "run%s under valgrind, about ",
			    br->b->name, runs, runs == 1 ? "" : "s");
		add_duration(&sb, low);
		strbuf_adds(&sb, " to ");
		add_duration(&sb, high);
		strbuf_adds(&sb, ", and ");
		add_duration(&sb, left);
		strbuf_adds(&sb, " of max_total_time is left; they stop when it is spent");
		engine_warn(br->r, "%s", sb.buf);
	}
	strbuf_release(&sb);
}

int counted_run(struct bench_run *br)
{
	size_t i;
	int rc = 0;

	announce(br);
	for (i = 0; i < ARRAY_SIZE(phases) && rc == 0; i++)
		if (benchmark_measures(br->b, phases[i].metrics[0])) /* any of its commands */
			rc = run_phase(br, &phases[i]);
	return rc;
}
