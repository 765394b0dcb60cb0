/*
 * The counting backends (docs/comparison.md, "Deciding on counts"): which one
 * counts a command's instructions or allocations here, and one counted run
 * with it. Measure owns them: the engine says what a command asks for
 * (common/types.h, enum counter_backend) and gets counts or why there are
 * none, through its measurer seam (engine/runner.h), and names no tool,
 * event, version or timeout of a backend itself.
 *
 * - perf: the hardware counter of user-space instructions (perf.h), chosen
 *   when asked for (`perf`, or `auto`) and a probe counts here; it counts
 *   the timed runs themselves, and a counted run is the command as it is,
 *   with its own timeout.
 * - valgrind: cachegrind's instructions, DHAT's heap blocks and bytes
 *   (valgrind.h), in untimed runs of the command under valgrind, whose
 *   timeout is the command's times COUNTER_SLOWDOWN_HIGH. valgrind is found
 *   once when the measurer starts, only where the measured code cannot
 *   write (helper.h, docs/github-actions.md, "Threat model"), and run by that
 *   path; its version is asked with the environment measured commands get.
 *
 *     struct counter_choice c;
 *     counter_choose(m, COUNTER_AUTO, COUNT_INSTRUCTIONS, envp, &c);
 *     if (!c.version) report c.why;
 *     struct count_request r = { .run = &req, .what = COUNT_INSTRUCTIONS, .perf = c.perf, ... };
 *     counter_run(m, &r, counts, &why, &err);
 *     counter_choice_release(&c);
 */
#ifndef HIMORIME_MEASURE_COUNTER_H
#define HIMORIME_MEASURE_COUNTER_H

#include "common/err.h"
#include "common/strbuf.h"
#include "common/types.h"
#include "spawner/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct measurer;

/* What a counted run counts: instructions, or heap blocks and bytes. */
enum count_what { COUNT_INSTRUCTIONS, COUNT_ALLOCATIONS };

/* Under valgrind a command runs 20 to 50 times slower, after about half a
 * second of valgrind's own start (docs/comparison.md, "Time budgets"): a
 * counted run's timeout is the command's times the high end, and the
 * engine's estimates of what counted runs cost use all three. */
#define COUNTER_SLOWDOWN_LOW  20
#define COUNTER_SLOWDOWN_HIGH 50
#define COUNTER_START_NS      (UINT64_C(500) * 1000000)

/* The backend that counts, or why none does. */
struct counter_choice {
	bool perf;	      /* perf counts (instructions, during the timed runs) */
	const char *name;     /* "perf" or "valgrind", as reports name it */
	const char *event[2]; /* each count's event: "instructions:u"; "Ir"; "tbk", "tb" */
	char *version;	      /* the kernel's release, or valgrind's; NULL: none counts */
	char *why;	      /* when none counts: "backend perf: ...", "no backend: ...; ..." */
};

/* Which backend counts `what` for a command that asks for `want`: perf when
 * asked (or `auto`) and its probe counts here, else valgrind when it was
 * found and says its version; allocations are valgrind's (DHAT) whatever is
 * asked. envp: the environment measured commands get. */
void counter_choose(struct measurer *m, enum counter_backend want, enum count_what what,
		    char *const *envp, struct counter_choice *out);
void counter_choice_release(struct counter_choice *c);

/* The timed runs of a command whose instructions perf counts: the request
 * asks the starter for the count (docs/design.md, "Measuring a run"), and
 * each run's result holds it: 0 with *count, or ERR_METRIC with why there
 * is none (perf.h). */
void counter_timed_request(struct run_request *req);
int counter_timed_count(const struct run_result *res, uint64_t *count, struct err *err);

/* One counted run. */
struct count_request {
	/* The command as a timed run starts it (its argv, environment, cwd,
	 * streams and own timeout). */
	const struct run_request *run;
	enum count_what what;
	bool perf;	 /* the choice's backend: perf, or valgrind */
	const char *dir; /* valgrind: an empty directory for its out files */
	/* The exit codes that count as the command's success. */
	const int *exit_codes;
	size_t n_exit_codes;
};

/*
 * Runs the command once with the backend and puts its counts in counts[]
 * (instructions in counts[0]; or heap blocks and bytes), summed over its
 * processes. 0; or ERR_METRIC with why there are none appended to `why`:
 * the run ended otherwise than with an accepted exit code ("under valgrind,
 * the command exited with code 3", "counting instructions, the command timed
 * out"), or its counts could not be read; ERR_INTERRUPTED when the run was
 * interrupted; another negative code, in err, when the measurer itself
 * failed.
 */
int counter_run(struct measurer *m, const struct count_request *req, uint64_t counts[2],
		struct strbuf *why, struct err *err);

#endif
