/*
 * The counting backends: see counter.h. Choosing one (perf's probe, then
 * valgrind's version) and one counted run with it: the command wrapped in
 * valgrind with its timeout stretched, or run as it is with the counter on,
 * and its counts read back.
 */
#include "measure/counter.h"

#include "common/alloc.h"
#include "common/strbuf.h"
#include "measure/measure.h"
#include "measure/perf.h"
#include "measure/valgrind.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* What reports call each count of a backend (docs/reports.md). */
static void name_events(struct counter_choice *c, enum count_what what)
{
	static const char *const perf[2] = { PERF_INSTRUCTIONS_EVENT, NULL };
	static const char *const cachegrind[2] = { "Ir", NULL };
	static const char *const dhat[2] = { "tbk", "tb" };
	const char *const *events = c->perf ? perf : what == COUNT_INSTRUCTIONS ? cachegrind : dhat;

	c->name = c->perf ? "perf" : "valgrind";
	c->event[0] = events[0];
	c->event[1] = events[1];
}

/* The version of the valgrind found when the measurer started, run by its
 * path with the environment measured commands get. */
static int valgrind_found(struct measurer *m, char *const *envp, struct strbuf *version,
			  struct err *err)
{
	const char *why;
	const char *valgrind = measurer_valgrind(m, &why);

	if (!valgrind)
		return err_set(err, ERR_METRIC, "%s", why);
	return valgrind_version(valgrind, envp, version, err);
}

void counter_choose(struct measurer *m, enum counter_backend want, enum count_what what,
		    char *const *envp, struct counter_choice *out)
{
	struct err perf = ERR_INIT, vg = ERR_INIT;
	struct strbuf sb;
	uint64_t counted;

	memset(out, 0, sizeof(*out));
	if (what == COUNT_ALLOCATIONS) /* heap blocks: valgrind's DHAT only */
		want = COUNTER_VALGRIND;
	strbuf_init(&sb, 0);
	if (want != COUNTER_VALGRIND && perf_probe_instructions(&counted, &perf) == 0) {
		perf_kernel_release(&sb);
		out->version = strbuf_detach(&sb, NULL);
		out->perf = true;
	} else if (want == COUNTER_PERF) {
		out->why = xasprintf("backend perf: %s", perf.msg);
	} else if (valgrind_found(m, envp, &sb, &vg) == 0) {
		out->version = strbuf_detach(&sb, NULL);
	} else if (want == COUNTER_AUTO) {
		out->why = xasprintf("no backend: %s; %s", perf.msg, vg.msg);
	} else {
		out->why = xstrdup(vg.msg);
	}
	strbuf_release(&sb);
	name_events(out, what);
}

void counter_choice_release(struct counter_choice *c)
{
	free(c->version);
	free(c->why);
	memset(c, 0, sizeof(*c));
}

void counter_timed_request(struct run_request *req)
{
	perf_request_instructions(req);
}

int counter_timed_count(const struct run_result *res, uint64_t *count, struct err *err)
{
	return perf_run_instructions(res, count, err);
}

static bool accepted(const struct count_request *cr, int code)
{
	size_t i;

	for (i = 0; i < cr->n_exit_codes; i++)
		if (cr->exit_codes[i] == code)
			return true;
	return false;
}

/* The counts of a run that ended with an accepted exit code. */
static int read_counts(const struct count_request *cr, const struct run_result *res,
		       uint64_t counts[2], struct err *err)
{
	struct valgrind_counts vc = { .processes = 0 }; /* the readers add to it */

	if (cr->perf)
		return perf_run_instructions(res, &counts[0], err);
	if (cr->what == COUNT_INSTRUCTIONS) {
		if (valgrind_read_instructions(cr->dir, &vc, err) < 0)
			return ERR_METRIC;
		counts[0] = vc.instructions;
		return 0;
	}
	if (valgrind_read_heap(cr->dir, &vc, err) < 0)
		return ERR_METRIC;
	counts[0] = vc.blocks;
	counts[1] = vc.bytes;
	return 0;
}

/* The request as the backend runs it: with the counter on, or wrapped in
 * valgrind with its timeout stretched; *argv is the caller's to free. */
static int backend_request(struct measurer *m, const struct count_request *cr,
			   struct run_request *req, char ***argv, struct err *err)
{
	const char *why, *valgrind;

	*req = *cr->run;
	*argv = NULL;
	if (cr->perf) {
		perf_request_instructions(req);
		return 0;
	}
	valgrind = measurer_valgrind(m, &why);
	if (!valgrind)
		return err_set(err, ERR_METRIC, "%s", why);
	*argv = valgrind_argv(valgrind,
			      cr->what == COUNT_INSTRUCTIONS ? VALGRIND_CACHEGRIND : VALGRIND_DHAT,
			      cr->dir, (const char *const *)cr->run->argv);
	req->argv = *argv;
	req->timeout_ns = cr->run->timeout_ns * COUNTER_SLOWDOWN_HIGH;
	return 0;
}

int counter_run(struct measurer *m, const struct count_request *cr, uint64_t counts[2],
		struct strbuf *why, struct err *err)
{
	struct err metric = ERR_INIT;
	struct run_request req;
	struct run_result res;
	char **argv;
	int rc;

	counts[0] = counts[1] = 0;
	rc = backend_request(m, cr, &req, &argv, &metric);
	if (rc == 0 && measurer_run(m, &req, 1, &res, err) < 0)
		rc = err->code ? err->code : ERR_EXEC;
	else if (rc == 0 && res.status == RUN_INTERRUPTED)
		rc = err_set(err, ERR_INTERRUPTED, "interrupted");
	else if (rc == 0 && (res.status != RUN_EXITED || !accepted(cr, res.code))) {
		strbuf_adds(why, cr->perf ? "counting instructions, the command "
					  : "under valgrind, the command ");
		run_result_describe(&req, &res, why);
		rc = ERR_METRIC;
	} else if (rc == 0) {
		rc = read_counts(cr, &res, counts, &metric);
	}
	if (rc == ERR_METRIC && metric.code)
		strbuf_adds(why, metric.msg);
	valgrind_argv_free(argv);
	return rc;
}
