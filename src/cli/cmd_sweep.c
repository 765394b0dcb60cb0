/*
 * `himorime sweep REV_RANGE [--every N] [--first-parent] [--max-commits N]
 * [--shard K/N] [--reference REV] [--force] [--history-ref REF] [flags]
 * [PATH...]`: measures each selected commit of a range with the working
 * tree's suite, each one in interleaved pairs against one fixed reference
 * commit (the range's first, or --reference), and appends each commit's
 * results to the history ref as it goes. A commit already in the history
 * (same id, suite hash and settings hash) is skipped unless --force.
 */
#include "cli/commands.h"
#include "cli/revisions.h"
#include "cli/session.h"
#include "cli/store.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"
#include "history/sweep.h"
#include "render/history.h"
#include "suite/suite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

struct sweep_run {
	struct session *s;
	struct revisions rv;
	bool **selected;
	char (*suite_hash)[SWEEP_HASH_HEX + 1];
	char settings_hash[SWEEP_HASH_HEX + 1];
	const char *ref;
	struct vcs_sha reference, reference_tree_id;
	struct vcs_tree *reference_tree;
	struct store_docs history;
	unsigned failed, measured, skipped;
	unsigned unmeasured; /* commits recorded with a failure (of `measured`) */
};

static int check_flags(struct session *s, const struct sweep_flags *f, size_t *every,
		       size_t *max_commits, unsigned *k, unsigned *n)
{
	unsigned long long v;
	struct err err = ERR_INIT;
	enum render_format hf;

	if (f->every) {
		if (opts_uint(f->every, 1, 1000000, &v) < 0)
			return cli_usagef("sweep",
					  "--every \"%s\": expected an integer from 1 to 1000000",
					  f->every);
		*every = (size_t)v;
	}
	if (f->max_commits) {
		if (opts_uint(f->max_commits, 1, 1000000, &v) < 0)
			return cli_usagef(
				"sweep",
				"--max-commits \"%s\": expected an integer from 1 to 1000000",
				f->max_commits);
		*max_commits = (size_t)v;
	}
	if (f->shard && sweep_shard_parse(f->shard, k, n, &err) < 0)
		return cli_usage_error("sweep", &err);
	if (history_format_from_name(s->out.format, &hf) < 0)
		return cli_usagef(
			"sweep", "--format \"%s\": sweep prints table, markdown, csv, json or html",
			s->out.format);
	if (s->out.section || s->out.summary || s->fail_on_inconclusive)
		return cli_usagef("sweep", "--section, --summary and --fail-on-inconclusive do not "
					   "apply to sweep");
	return EXIT_OK;
}

static int hash_suites(struct sweep_run *w)
{
	struct session *s = w->s;
	const char **names = NULL;
	struct sweep_settings st;
	size_t i, k, n = 0;

	w->suite_hash = xcalloc(s->suites.count + 1, sizeof(*w->suite_hash));
	for (i = 0; i < s->suites.count; i++) {
		const struct suite *suite = s->suites.v[i];
		struct err err = ERR_INIT;
		char *text = NULL;
		size_t len = 0;
		if (fsio_read_file(suite->path, 1u << 24, &text, &len, &err) < 0) {
			free(names);
			return cli_fail(&err);
		}
		sweep_hash(text, len, w->suite_hash[i]);
		free(text);
		for (k = 0; k < suite->benchmark_count; k++) {
			if (!w->selected[i][k])
				continue;
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", suite->name, suite->benchmarks[k].name);
		}
	}
	memset(&st, 0, sizeof(st));
	/* the flags as given: what a history entry was measured with */
	st.has_runs = s->plan->flags.has_runs;
	st.runs = s->plan->flags.runs;
	st.has_warmup = s->plan->flags.has_warmup;
	st.warmup = s->plan->flags.warmup;
	st.max_time_ns = s->plan->flags.max_time_ns;
	st.max_total_time_ns = s->plan->flags.max_total_time_ns;
	st.selected = names;
	st.n_selected = n;
	st.harness_command = s->plan->flags.harness_command;
	st.harness_filter = s->plan->flags.harness_filter;
	sweep_settings_hash(&st, w->settings_hash);
	for (i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
	return EXIT_OK;
}

static bool in_history(const struct sweep_run *w, const struct vcs_sha *sha)
{
	size_t i;

	for (i = 0; i < w->s->suites.count; i++)
		if (!store_has(&w->history, sha->hex, w->suite_hash[i], w->settings_hash))
			return false;
	return true;
}

static void mark_suite(struct results_suite *rs, const struct vcs_commit_info *info, uint64_t index,
		       const char *suite_hash)
{
	rs->commit.present = true;
	results_set_str(&rs->commit.sha, info->sha.hex);
	results_set_str(&rs->commit.subject, info->subject);
	rs->commit.time_unix_ns = info->author_time_s * INT64_C(1000000000);
	rs->commit.index = index;
	results_set_str(&rs->commit.suite_hash, suite_hash);
}

/* One suite of a commit, against the reference's tree: the reference's
 * build is kept by the runner and reused while its tree is the same
 * (docs/sweeps.md). */
static int measure_suite(struct sweep_run *w, size_t i, const char *tree_path,
			 const struct vcs_sha *tree_id, const struct vcs_commit_info *info,
			 uint64_t index, struct err *err)
{
	struct session *s = w->s;
	const struct suite *suite = s->suites.v[i];
	char *head = revisions_suite_root(&w->rv, suite, tree_path);
	char *base = revisions_suite_root(&w->rv, suite, vcs_tree_path(w->reference_tree));
	char *fixtures = revisions_suite_root(&w->rv, suite, vcs_workdir(w->rv.vcs));
	struct runner_roots roots = {
		.head = head,
		.base = base,
		.fixture = fixtures,
		.head_tree = tree_id->hex,
		.base_tree = w->reference_tree_id.hex,
	};
	struct results_suite *rs;
	int rc;

	if (!head || !base || !fixtures) {
		rc = err_set(err, ERR_EXEC, "suite \"%s\" is not inside the repository",
			     suite->path);
	} else {
		rc = runner_run_suite(s->runner, &s->plan->suites[i], &roots, s->doc, err);
		rs = &s->doc->suites[s->doc->n_suites - 1];
		mark_suite(rs, info, index, w->suite_hash[i]);
		if (rs->result == RESULT_ERROR || rs->error.present)
			w->failed++;
	}
	free(fixtures);
	free(head);
	free(base);
	return rc;
}

/* Measures one commit against the reference, suite by suite, and appends
 * its documents to the history. A commit with the reference's tree is not
 * materialised again: it is measured in the reference's tree. */
static int measure_commit(struct sweep_run *w, const struct vcs_sha *sha, uint64_t index,
			  bool *interrupted)
{
	struct session *s = w->s;
	struct vcs_commit_info info;
	struct vcs_tree *tree = NULL;
	struct vcs_sha tree_id;
	struct err err = ERR_INIT, gone = ERR_INIT;
	size_t i, first = s->doc->n_suites;
	uint64_t t = clock_monotonic_ns();
	int rc;

	memset(&info, 0, sizeof(info));
	rc = vcs_commit_info(w->rv.vcs, sha, &info, &err);
	if (rc == 0)
		rc = vcs_tree_id(w->rv.vcs, sha, &tree_id, &err);
	t = session_phase(s, RESULTS_PHASE_RESOLVE, t);
	if (rc == 0 && strcmp(tree_id.hex, w->reference_tree_id.hex))
		rc = vcs_materialise(w->rv.vcs, sha, &tree, &err);
	session_phase(s, RESULTS_PHASE_MATERIALISE_HEAD, t);
	if (rc < 0)
		goto done;
	if (!s->quiet)
		fprintf(stderr, "himorime: sweep: measuring %.12s %s\n", sha->hex, info.subject);
	/* each commit's comparison has the whole time budget */
	session_budget_start(s);
	for (i = 0; i < s->suites.count && rc == 0; i++)
		rc = measure_suite(w, i, vcs_tree_path(tree ? tree : w->reference_tree), &tree_id,
				   &info, index, &err);
	*interrupted = rc == ERR_INTERRUPTED;
	if (rc < 0)
		goto done;
	/* The history gets this commit now, so an interrupted sweep keeps what
	 * it measured before. */
	s->doc->finished_at_unix_ns = clock_wall_ns();
	t = clock_monotonic_ns();
	rc = store_append(w->rv.vcs, w->ref, s->doc, first, s->doc->n_suites - first, &err);
	session_phase(s, RESULTS_PHASE_PUBLISHING, t);
	w->measured++;
done:
	t = clock_monotonic_ns();
	vcs_tree_remove(tree, &gone);
	session_phase(s, RESULTS_PHASE_CLEANUP, t);
	vcs_commit_info_release(&info);
	if (rc < 0 && !*interrupted)
		return cli_fail(&err);
	return EXIT_OK;
}

/* The commits to measure: the range's walk, its newest max_commits, then
 * this shard's slice. The reference is chosen before any cut. */
static int select_commits(struct sweep_run *w, const char *range, const struct sweep_flags *f,
			  size_t every, size_t max_commits, unsigned k, unsigned n,
			  struct vcs_sha_list *walk, size_t *begin, size_t *end)
{
	struct vcs_walk_opts wo = VCS_WALK_OPTS_INIT;
	struct err err = ERR_INIT;
	size_t first = 0, count;

	wo.first_parent = f->first_parent;
	wo.every = every;
	if (vcs_walk(w->rv.vcs, range, &wo, walk, &err) < 0)
		return cli_fail(&err);
	if (walk->count == 0)
		return cli_usagef("sweep", "range \"%s\" has no commits", range);
	if (f->reference) {
		if (vcs_resolve(w->rv.vcs, f->reference, &w->reference, &err) < 0)
			return cli_fail(&err);
	} else if (every > 1) {
		/* The range's first commit, whether or not --every keeps it. */
		struct vcs_sha_list all = { .items = NULL, .count = 0 };
		wo.every = 1;
		if (vcs_walk(w->rv.vcs, range, &wo, &all, &err) < 0)
			return cli_fail(&err);
		w->reference = all.items[0];
		vcs_sha_list_release(&all);
	} else {
		w->reference = walk->items[0];
	}
	if (max_commits && walk->count > max_commits)
		first = walk->count - max_commits;
	count = walk->count - first;
	sweep_shard_slice(count, k, n, begin, end);
	*begin += first;
	*end += first;
	w->s->doc->sweep.commits = count;
	return EXIT_OK;
}

static void fill_header(struct sweep_run *w, const char *range, const struct vcs_sha *tip,
			unsigned k, unsigned n)
{
	struct results *doc = w->s->doc;

	doc->sweep.present = true;
	results_set_str(&doc->sweep.range, range);
	results_set_str(&doc->sweep.reference, w->reference.hex);
	results_set_str(&doc->sweep.settings_hash, w->settings_hash);
	doc->sweep.shard_index = k;
	doc->sweep.shard_count = n;
	results_set_str(&doc->git.head_sha, tip->hex);
	doc->git.dirty = false;
	results_set_str(&doc->git.base_sha, w->reference.hex);
	results_set_str(&doc->git.base_ref, w->s->leading.v[0]);
	results_set_str(&doc->git.base_source, "sweep reference");
}

/* The commits this sweep selected, in their walk's order. */
struct sweep_selection {
	const struct vcs_sha_list *walk;
	size_t begin, end;
};

/* Whether a history document is of a selected commit, measured against this
 * sweep's reference. */
static bool of_this_range(const struct sweep_run *w, const struct sweep_selection *sel,
			  const struct results *d)
{
	const char *ref = d->sweep.reference ? d->sweep.reference : d->git.base_sha;
	size_t i, j;

	if (!ref || strcmp(ref, w->reference.hex))
		return false;
	for (j = 0; j < d->n_suites; j++)
		for (i = sel->begin; d->suites[j].commit.sha && i < sel->end; i++)
			if (!strcmp(sel->walk->items[i].hex, d->suites[j].commit.sha))
				return true;
	return false;
}

/* The trend of the whole selection: what this sweep measured and what the
 * history already held for the commits it skipped (a re-sweep with nothing
 * left to measure still shows the range), in the walk's order. */
static int range_series(const struct sweep_run *w, const struct sweep_selection *sel,
			struct sweep_series_list *l, struct err *err)
{
	const struct results **docs = xcalloc(w->history.count + 1, sizeof(*docs));
	const char **sha = xcalloc(sel->end - sel->begin + 1, sizeof(*sha));
	size_t *rank = xcalloc(sel->end - sel->begin + 1, sizeof(*rank));
	struct sweep_order order = { .sha = sha, .rank = rank, .n = sel->end - sel->begin };
	size_t i, n = 0;
	int rc;

	for (i = 0; i < w->history.count; i++)
		if (of_this_range(w, sel, w->history.v[i]))
			docs[n++] = w->history.v[i];
	docs[n++] = w->s->doc; /* last: its measurements are the newest */
	for (i = sel->begin; i < sel->end; i++) {
		sha[i - sel->begin] = sel->walk->items[i].hex;
		rank[i - sel->begin] = i;
	}
	rc = sweep_series_build(docs, n, METRIC_LATENCY, &order, l, err);
	free(rank);
	free(sha);
	free(docs);
	return rc;
}

/* Prints the trend of the selected range, and writes -o (what this sweep
 * measured). */
static int report(struct sweep_run *w, const struct sweep_selection *sel)
{
	struct session *s = w->s;
	struct sweep_series_list l;
	enum render_format f = RENDER_TABLE;
	struct err err = ERR_INIT;
	struct strbuf out;
	uint64_t t;
	int rc;

	s->doc->finished_at_unix_ns = clock_wall_ns();
	/* A sweep's status is whether every commit could be measured; its
	 * commits' verdicts are history, not a gate. */
	(void)runner_summarize(s->doc, false);
	s->doc->summary.exit_code = w->failed ? EXIT_EXEC : EXIT_OK;
	session_timings_total(s);
	t = clock_monotonic_ns();
	if (s->out.output && results_write_file(s->doc, s->out.output, &err) < 0)
		return cli_fail(&err);
	history_format_from_name(s->out.format, &f);
	if (range_series(w, sel, &l, &err) < 0)
		return cli_fail(&err);
	strbuf_init(&out, 0);
	rc = history_render(&l, f, f == RENDER_TABLE && cli_colour(s->out.no_color), &out, &err);
	if (rc == 0)
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
	sweep_series_release(&l);
	if (rc < 0)
		return cli_fail(&err);
	session_phase(s, RESULTS_PHASE_RENDERING, t);
	fprintf(stderr, "himorime: sweep: %u measured, ", w->measured - w->unmeasured);
	if (w->unmeasured)
		fprintf(stderr, "%u could not be measured, ", w->unmeasured);
	fprintf(stderr, "%u already in the history\n", w->skipped);
	session_print_timings(s);
	return EXIT_OK;
}

/* Why a commit's suites from `first` on could not be measured (a build, a
 * setup, a command), or NULL when they were: the terminal says so beside
 * the commit, not only the history (docs/sweeps.md). */
static const char *commit_failure(const struct results *doc, size_t first)
{
	size_t i, j, k;

	for (i = first; i < doc->n_suites; i++) {
		const struct results_suite *s = &doc->suites[i];
		if (s->error.present)
			return s->error.message ? s->error.message : "the suite failed";
		for (j = 0; j < s->n_benchmarks; j++) {
			const struct results_benchmark *b = &s->benchmarks[j];
			if (b->error.present)
				return b->error.message ? b->error.message : "the benchmark failed";
			for (k = 0; k < b->n_commands; k++)
				if (b->commands[k].head.error.present)
					return b->commands[k].head.error.message
						       ? b->commands[k].head.error.message
						       : "a command failed";
		}
	}
	return NULL;
}

static int sweep(struct sweep_run *w, const struct sweep_flags *f, size_t every, size_t max_commits,
		 unsigned k, unsigned n)
{
	struct revisions_request req = { .base_source = "sweep",
					 .suite_from = REVISIONS_SUITE_HEAD };
	const char *range = w->s->leading.v[0];
	struct vcs_sha_list walk = { .items = NULL, .count = 0 };
	struct err err = ERR_INIT;
	size_t begin = 0, end = 0, i, first;
	bool interrupted = false;
	const char *why;
	uint64_t t;
	int code;

	code = revisions_open(w->s, &req, &w->rv);
	t = clock_monotonic_ns();
	if (code == EXIT_OK)
		code = hash_suites(w);
	if (code == EXIT_OK)
		code = select_commits(w, range, f, every, max_commits, k, n, &walk, &begin, &end);
	if (code != EXIT_OK)
		goto done;
	fill_header(w, range, &walk.items[walk.count - 1], k, n);
	if (!f->force && store_read(w->rv.vcs, w->ref, &w->history, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	session_phase(w->s, RESULTS_PHASE_RESOLVE, t);
	code = session_runner(w->s, w->rv.hidden, w->rv.n_hidden);
	if (code != EXIT_OK)
		goto done;
	t = clock_monotonic_ns();
	if (vcs_tree_id(w->rv.vcs, &w->reference, &w->reference_tree_id, &err) < 0 ||
	    vcs_materialise(w->rv.vcs, &w->reference, &w->reference_tree, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	session_phase(w->s, RESULTS_PHASE_MATERIALISE_BASE, t);
	for (i = begin; i < end && !interrupted && code == EXIT_OK; i++) {
		if (!f->force && in_history(w, &walk.items[i])) {
			w->skipped++;
			if (!w->s->quiet)
				fprintf(stderr,
					"himorime: sweep: %.12s is in the history already\n",
					walk.items[i].hex);
			continue;
		}
		first = w->s->doc->n_suites;
		code = measure_commit(w, &walk.items[i], i, &interrupted);
		/* A signal between two commits (while materialising or storing)
		 * stops the sweep as well. */
		interrupted |= runner_interrupted(w->s->runner);
		if (!interrupted && (why = commit_failure(w->s->doc, first))) {
			w->unmeasured++;
			fprintf(stderr,
				"himorime: sweep: commit %zu of %zu (%.12s) could not be "
				"measured: %s\n",
				i + 1, walk.count, walk.items[i].hex, why);
		} else if (!interrupted)
			session_log(w->s, "sweep: commit %zu of %zu (%.12s) measured", i + 1,
				    walk.count, walk.items[i].hex);
	}
	if (code == EXIT_OK) {
		struct sweep_selection sel = { .walk = &walk, .begin = begin, .end = end };
		code = report(w, &sel);
	}
	if (code == EXIT_OK && interrupted)
		code = cli_exit(EXIT_EXEC, "interrupted");
	else if (code == EXIT_OK && w->failed)
		code = cli_exit(EXIT_EXEC, "%u suite%s could not be measured", w->failed,
				w->failed == 1 ? "" : "s");
done:
	vcs_tree_remove(w->reference_tree, &err);
	vcs_sha_list_release(&walk);
	return code;
}

int cmd_sweep(struct session *s, struct cmd_args *a)
{
	const struct sweep_flags *f = &a->f.sweep;
	struct sweep_run w = { .s = s };
	size_t every = 1, max_commits = 0;
	unsigned k = 1, n = 1;
	int code;

	code = check_flags(s, f, &every, &max_commits, &k, &n);
	if (code == EXIT_OK) {
		w.ref = f->history_ref ? f->history_ref : VCS_HISTORY_REF;
		w.selected = session_selection(s);
		code = session_select_check(s, w.selected);
	}
	if (code == EXIT_OK)
		code = session_plan(s, w.selected, NULL);
	if (code == EXIT_OK)
		code = sweep(&w, f, every, max_commits, k, n);
	revisions_release(&w.rv);
	store_docs_release(&w.history);
	session_selection_free(w.selected, s->suites.count);
	free(w.suite_hash);
	return code;
}
