/*
 * The helpers the formats share (shared.c, notes.c, and escape.h): walking
 * the document, the words for states and verdicts, values with the floor,
 * notes under the tables, escaping. They know no format: the formats
 * (formats.h) include this header, never the other way.
 */
#ifndef HIMORIME_RENDER_RENDER_INTERNAL_H
#define HIMORIME_RENDER_RENDER_INTERNAL_H

#include "render/escape.h"
#include "render/render.h"
#include "render/table.h"

#include <stdbool.h>
#include <stddef.h>

/* One command with where it sits, for renderers that list rows. */
struct rnd_row {
	const struct results_suite *suite;
	const struct results_benchmark *bench;
	const struct results_command *cmd;
};

struct rnd_rows {
	struct rnd_row *v;
	size_t n, alloc;
};

void rnd_rows_collect(const struct results *r, struct rnd_rows *rows);
void rnd_rows_release(struct rnd_rows *rows);

/* A note under the tables: a sentence, and for failures the stderr tail. */
struct rnd_note {
	char *text;
	const char *stderr_tail; /* borrowed from the document, or NULL */
};

struct rnd_notes {
	struct rnd_note *v;
	size_t n, alloc;
};

/* Every note a reader needs, in a fixed order: failures, metric problems,
 * inconclusive and skipped verdicts with what to do, budgets not assessed,
 * the floor, how processes are aggregated, a noisy machine, an interruption. */
void rnd_notes_collect(const struct results *r, struct rnd_notes *notes);
void rnd_notes_release(struct rnd_notes *notes);

/* What a duet benchmark's figures are (docs/configuration.md, "Schedule"):
 * the note of every format and the csv's `schedule` row. */
#define RND_DUET_WORDS                                                                             \
	"measured as duets: base and head at once, each alone on its own CPU; its figures, "       \
	"and the budgets checked on them, are each side's beside its twin"

/* s, or "" for NULL. */
const char *rnd_str(const char *s);

/* What the document is to a reader: "run", "compare", "sweep", or
 * "calibrate" for a calibration (stored in mode compare). */
const char *rnd_mode_label(const struct results *r);

/* The base's name worth showing beside its short id: its branch or the REV
 * as given; NULL when unknown or only the sha again ("9abff8c0…"). */
const char *rnd_base_name(const struct results *r);

/* "convert › old" (benchmark › command). */
void rnd_label(struct strbuf *sb, const struct rnd_row *row);

/* Result and verdict words: "pass", "over budget", "metric error". */
const char *rnd_result_word(enum result_state s);
/* An error kind in words: "setup failed", "the command timed out". */
const char *rnd_error_words(enum results_error_kind k);
/* Counting form: "passed", "regression", "errors"... for the summary line. */
void rnd_result_count(struct strbuf *sb, enum result_state s, unsigned long long n);
/* "1 regression · 4 pass · 1 inconclusive" (problem states first), after
 * "build failed (head)" when a suite's build failed; "no commands". */
void rnd_headline_counts(struct strbuf *sb, const struct results *r);
/* The last line: "2 passed · 1 benchmark · seed 42 · exit 0". */
void rnd_final_line(struct strbuf *sb, const struct results *r);

/* Whether the headline asks for a look (⚠️, "check") when nothing failed:
 * only for what its counts show, an inconclusive command or an accepted
 * regression; a verdict that does not gate is no reason (docs/reports.md). */
bool rnd_needs_a_look(const struct results *r);

/* Seed two's rule for percentiles (docs/reports.md, "Percentiles"): percentile
 * p of `runs` runs is reported only with at least RND_PERCENTILE_MIN_ABOVE runs
 * above it, counted by rank as type 7 places it (the runs after position
 * floor((runs - 1) × p / 100)); else it is marked RND_NOT_ENOUGH_RUNS. */
#define RND_PERCENTILE_MIN_ABOVE 10
#define RND_NOT_ENOUGH_RUNS	 "not enough runs"
size_t rnd_runs_above(size_t runs, double p);
bool rnd_percentile_shown(size_t runs, double p);
/* A budget's actual value for a reader: the value (with the floor), "—"
 * without one, RND_NOT_ENOUGH_RUNS for a percentile the rule holds back. */
void rnd_budget_actual(struct strbuf *sb, const struct results_command *c,
		       const struct results_budget *b, bool *at_floor);

/* The smallest change a comparison could see, as the judge stored it
 * (docs/comparison.md, "What a comparison could see"), in percent: the
 * larger of its smallest slowdown and its smallest improvement (made
 * positive), so that a change beyond ± that in either direction would have
 * been called. Negative when the document has neither (no interval, noisy
 * counts, a document written before the figure existed). */
double rnd_detectable_percent(const struct comparison *k);
/* "±7.1%" (rnd_detectable_percent: a change beyond it either way would be
 * called), "+7.1%" when only slowdowns are called, "-6.9%" when only
 * improvements, "—" without a figure. */
void rnd_detectable(struct strbuf *sb, const struct comparison *k);
/* A percentage for readers: "5%", "9.3%" (one decimal, none when whole). */
void rnd_percent(struct strbuf *sb, double pct);

/* Which side metrics were measured anywhere, by metric. */
bool rnd_metric_measured(const struct results *r, enum metric m);
bool rnd_group_measured(const struct results *r, enum metric_group g);
/* The metrics in a group, in enum order; for the counts only those that
 * some row's side asked for: each count is asked for on its own, so a table
 * shows only those. */
size_t rnd_group_metrics_in(const struct rnd_rows *rows, enum metric_group g, enum metric *out,
			    size_t cap);
const char *rnd_group_title(enum metric_group g); /* "Latency", "CPU"... */

/* The summary shown for a metric: its stored stats, or for a document that
 * carries samples without them (an older writer) count, min, max, mean,
 * median and sample stddev computed here. False when there is nothing. */
struct rnd_summary {
	size_t count;
	double min, max, mean, median, stddev;
};
bool rnd_summary(const struct results_metric *m, struct rnd_summary *out);

/* A metric's value for humans; peak RSS at or below the floor is shown as
 * "≤ floor". Sets *at_floor when it did. */
void rnd_value(struct strbuf *sb, const struct results_metric *m, double v, bool *at_floor);
/* The throughput unit declared on a side ("operations" when absent). */
const char *rnd_work_unit(const struct results_metric *m);
/* The shown statistic of a comparison's side, with the floor applied. */
void rnd_cmp_value(struct strbuf *sb, const struct results_command *c, const struct comparison *k,
		   bool head, bool *at_floor);
/* "+9.1% (+7.1% … +11.3%)", or "—" without an estimate. */
void rnd_change(struct strbuf *sb, const struct comparison *k, bool typographic);
/* "±5%", "±5% or 1.00 ms". */
void rnd_tolerance(struct strbuf *sb, const struct comparison *k);
/* "99%" */
void rnd_confidence(struct strbuf *sb, const struct comparison *k);
/* A comparison's verdict with what a reader must know about it:
 * "regression (accepted)", "regression (not gated)", "pass". */
const char *rnd_verdict_cell(const struct comparison *k);
/* One metric's own result in a command: a failed command's "error", else
 * its comparison's verdict, else its budgets' ("over budget", "metric
 * error", "pass"), else "—" when nothing judged it. */
const char *rnd_metric_result(const struct results_command *c, enum metric m);
/* True for comparisons, commands and budgets a reader must look at first. */
bool rnd_cmp_is_problem(const struct comparison *k);
/* "pass", "over budget", "skipped", "no data". */
const char *rnd_budget_word(enum budget_status s);
/* The budgets table every format but the terminal's shows, in t (initialised
 * here, the caller's to release): one row per budget, or per failed and
 * unassessed one with problems_only: "bench › command", metric, budget,
 * actual, result. `text` puts the document's text in a cell (the Markdown
 * cell escaper; as it is for HTML, whose table escapes). */
void rnd_budget_table(const struct rnd_rows *rows, bool problems_only,
		      void (*text)(struct strbuf *, const char *), struct table *t);

/* The cells of one comparison row in the Markdown and HTML tables. */
struct rnd_cmp_cells {
	struct strbuf base, head, change, confidence, tolerance, pairs;
};
void rnd_cmp_cells_init(struct rnd_cmp_cells *c);
void rnd_cmp_cells_fill(struct rnd_cmp_cells *c, const struct results_command *cmd,
			const struct comparison *k);
void rnd_cmp_cells_release(struct rnd_cmp_cells *c);

/* Exact numbers as the JSON writer writes them (shortest round trip). */
void rnd_number(struct strbuf *sb, double v);
void rnd_aggregation(struct strbuf *sb, const struct aggregation *a);
const char *rnd_op(enum bound_op op);

/* --- rest.c: the count line of the pull-request comment --- */
/* What the comment's problem rows leave out, in one line without a newline:
 * "6 inconclusive: the runner was too noisy to tell ±5%; could see changes
 * beyond ±9.3% · 1 improved · 20 passed". False, with nothing written, when
 * nothing is left. */
bool rnd_rest_line(const struct results *r, const struct rnd_rows *rows, struct strbuf *out);

/* --- growth.c: growth with input size --- */
/* "latency grows as size^1.02 (0.98…1.06) over sizes 1k…64k" */
void rnd_growth_line(struct strbuf *sb, const struct results_growth *g);
/* Every fit of r as "bench › cmd: <line>", each after prefix (Markdown
 * escaped when md); returns how many. */
size_t rnd_growth_lines(const struct results *r, const char *prefix, bool md, struct strbuf *out);
/* `prefix`, then text (escaped as Markdown when md), then a newline. */
void rnd_prefixed_line(struct strbuf *out, const char *prefix, const char *text, bool md);
/* A Mermaid xychart of the median latency per size, per latency fit. */
void rnd_growth_mermaid(const struct results *r, struct strbuf *out);
/* The same as an inline SVG, log–log, with each side's fitted line (HTML). */
void rnd_growth_svg(const struct results *r, struct strbuf *out);

/* --- longrun.c: the drift check of benchmarks with sizes --- */
#define RND_LONG_RUN_TITLE "Drift check (long run)"
/* "drift checked at size 64k (30 runs, declared): no growth; smallest
 * detectable +0.8 µs per run" for command c of case b, a long run. */
void rnd_long_run_line(struct strbuf *sb, const struct results_benchmark *b,
		       const struct results_command *c);
/* Every long run's commands as "series › cmd: <line>", each after prefix
 * (Markdown escaped when md); returns how many. */
size_t rnd_long_run_lines(const struct results *r, const char *prefix, bool md, struct strbuf *out);

#endif
