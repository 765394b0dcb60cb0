/*
 * The command table: see commands.h. The help texts are laid out as
 * `himorime help NAME` prints them: the synopsis after "usage: himorime ",
 * the paragraphs before the flags, the flags (from their rows, each help at
 * the command's help_column, further lines indented to it), the paragraphs
 * after them.
 */
#include "cli/commands.h"

#include "cli/session.h"
#include "common/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

/* The offset of field F of T, checked at compile time to have type V: a
 * flag's value must be what its kind stores (opts.h). */
#define OFFSET_OF(T, F, V) (offsetof(T, F) + 0 * sizeof((V *){ &((T *)0)->F }))

/* Where a flag's value goes: the command's member of cmd_args.f, or the
 * session. */
#define OWN_FLAG(F)   .kind = OPT_FLAG, .offset = OFFSET_OF(struct cmd_args, f.F, bool)
#define OWN_STRING(F) .kind = OPT_STRING, .offset = OFFSET_OF(struct cmd_args, f.F, const char *)
#define OWN_LIST(F)   .kind = OPT_LIST, .offset = OFFSET_OF(struct cmd_args, f.F, struct strlist)
#define SESSION_FLAG(F)                                                                            \
	.kind = OPT_FLAG, .in = OPT_IN_SESSION, .offset = OFFSET_OF(struct session, F, bool)
#define SESSION_STRING(F)                                                                          \
	.kind = OPT_STRING, .in = OPT_IN_SESSION,                                                  \
	.offset = OFFSET_OF(struct session, F, const char *)
#define SESSION_LIST(F)                                                                            \
	.kind = OPT_LIST, .in = OPT_IN_SESSION,                                                    \
	.offset = OFFSET_OF(struct session, F, struct strlist)

/* The flags every measuring command parses, by group; the help of `run`
 * lists those it takes, that of `compare` the rest. */
static const struct opt session_flags[] = {
	{ .name = "filter",
	  SESSION_STRING(filter),
	  .arg = "REGEXP",
	  .group = FLAGS_SELECT,
	  .help = "measure benchmarks whose name matches; 'CMD › GLOB': the\n"
		  "harness benchmarks of command CMD that GLOB matches" },
	{ .name = "tag",
	  SESSION_LIST(tags),
	  .arg = "TAG",
	  .group = FLAGS_SELECT,
	  .help = "keep benchmarks with any of the tags (repeatable)" },
	{ .name = "skip-tag",
	  SESSION_LIST(skip_tags),
	  .arg = "TAG",
	  .group = FLAGS_SELECT,
	  .help = "drop benchmarks with any of the tags; wins over --tag" },
	{ .name = "format",
	  SESSION_STRING(out.format),
	  .arg = "FORMAT",
	  .dflt = "table",
	  .group = FLAGS_REPORT,
	  .help = "table (default), json, csv, samples-csv, markdown,\n"
		  "github, html" },
	{ .name = "output",
	  .short_name = 'o',
	  SESSION_STRING(out.output),
	  .arg = "FILE",
	  .group = FLAGS_REPORT,
	  .help = "write the report there (atomically), not to stdout" },
	{ .name = "section",
	  SESSION_STRING(out.section),
	  .arg = "NAME",
	  .group = FLAGS_REPORT,
	  .help = "with markdown and --output: replace only the section\n"
		  "between <!-- himorime:begin NAME --> and its end marker" },
	{ .name = "summary",
	  SESSION_STRING(out.summary),
	  .arg = "FILE",
	  .group = FLAGS_REPORT,
	  .help = "also append the GitHub summary to FILE" },
	{ .name = "seed",
	  SESSION_STRING(seed_text),
	  .arg = "SEED",
	  .group = FLAGS_RUNS,
	  .help = "0..2^53-1; default random; printed and stored" },
	{ .name = "runs",
	  SESSION_STRING(runs_text),
	  .arg = "N",
	  .group = FLAGS_RUNS,
	  .help = "exact measured runs per command" },
	{ .name = "warmup",
	  SESSION_STRING(warmup_text),
	  .arg = "N",
	  .group = FLAGS_RUNS,
	  .help = "warmup runs per command" },
	{ .name = "max-time",
	  SESSION_STRING(max_time_text),
	  .arg = "DURATION",
	  .group = FLAGS_BUDGET,
	  .help = "stop each benchmark's rounds when spent (over\n"
		  "regression.max_time); undecided metrics are\n"
		  "inconclusive" },
	{ .name = "max-total-time",
	  SESSION_STRING(max_total_time_text),
	  .arg = "DURATION",
	  .group = FLAGS_BUDGET,
	  .help = "the whole comparison's time budget (default 20m,\n"
		  "over defaults.regression.max_total_time), shared by\n"
		  "its benchmarks as they start; counted runs stop too" },
	{ .name = "schedule",
	  SESSION_STRING(schedule_text),
	  .arg = "interleaved|duet",
	  .group = FLAGS_SCHEDULE,
	  .help = "how base and head runs pair (over the suite's\n"
		  "schedule): back to back (interleaved, the default), or\n"
		  "at once, each on its own CPU (duet)" },
	{ .name = "fail-on-inconclusive",
	  SESSION_FLAG(fail_on_inconclusive),
	  .group = FLAGS_GATE,
	  .help = "exit 1 when a gated comparison is inconclusive" },
	{ .name = "quiet",
	  .short_name = 'q',
	  SESSION_FLAG(quiet),
	  .group = FLAGS_TERMINAL,
	  .help = "no progress on stderr (without a terminal, compare,\n"
		  "ci and sweep print one line per look or commit)" },
	{ .name = "verbose",
	  .short_name = 'v',
	  SESSION_FLAG(verbose),
	  .group = FLAGS_TERMINAL,
	  .help = "at the end, the wall time of each phase (resolve,\n"
		  "materialise, build, warmup, rounds, judging, rendering,\n"
		  "publishing) on stderr; the JSON report has them in\n"
		  "`timings` either way" },
	{ .name = "no-color",
	  SESSION_FLAG(out.no_color),
	  .group = FLAGS_COLOUR,
	  .help = "no colour (NO_COLOR is respected too)" },
	/* an alias of --format: the same value, the same default; not listed */
	{ .name = "report", SESSION_STRING(out.format), .arg = "FORMAT", .dflt = "table" },
};

static const struct opt init_flags[] = {
	{ .name = "force",
	  .short_name = 'f',
	  OWN_FLAG(init.force),
	  .help = "overwrite an existing file" },
};

static const struct opt list_flags[] = {
	{ .name = "format",
	  OWN_STRING(list.format),
	  .arg = "FORMAT",
	  .dflt = "text",
	  .help = "text (default) or json" },
	{ .name = "filter",
	  OWN_STRING(list.filter),
	  .arg = "RE",
	  .help = "benchmarks whose name matches RE (unanchored); 'CMD › GLOB':\n"
		  "those with a harness command CMD" },
	{ .name = "tag",
	  OWN_LIST(list.tags),
	  .arg = "TAG",
	  .help = "benchmarks with any of the tags (repeatable, comma-separated)" },
	{ .name = "skip-tag",
	  OWN_LIST(list.skip_tags),
	  .arg = "TAG",
	  .help = "drop benchmarks with any of the tags; wins over --tag" },
};

static const struct opt compare_flags[] = {
	{ .name = "against",
	  OWN_STRING(compare.against),
	  .arg = "REV",
	  .help = "the base: a sha, branch, tag, HEAD~2, origin/main" },
	{ .name = "head",
	  OWN_STRING(compare.head),
	  .arg = "REV",
	  .help = "measure this commit instead of the working tree" },
	{ .name = "merge-base",
	  OWN_FLAG(compare.merge_base),
	  .help = "compare against the merge base of REV and head" },
	{ .name = "suite-from",
	  OWN_STRING(compare.suite_from),
	  .arg = "head|base",
	  .help = "measure both sides with this revision's suite file" },
};

static const struct opt calibrate_flags[] = {
	{ .name = "against",
	  OWN_STRING(calibrate.against),
	  .arg = "REV",
	  .help = "calibrate on this commit instead of the working tree" },
	{ .name = "suite-from",
	  OWN_STRING(calibrate.suite_from),
	  .arg = "head|base",
	  .help = "measure with the working tree's suite (head), or the\n"
		  "commit's copy (base); by default the commit's, and a\n"
		  "suite the commit lacks is measured once, uncompared" },
};

static const struct opt ci_flags[] = {
	{ .name = "comment",
	  OWN_STRING(ci.publish.comment),
	  .arg = "true|false",
	  .help = "post the comment and the status (default true); false\n"
		  "sends no request" },
	{ .name = "accept-label",
	  OWN_STRING(ci.publish.accept_label),
	  .arg = "NAME",
	  .help = "a label that accepts a known regression: still reported,\n"
		  "marked accepted, not failing (default himorime:accept)" },
	{ .name = "verdict-as",
	  OWN_STRING(ci.publish.verdict_as),
	  .arg = "status|check|both",
	  .help = "\nthe verdict as a commit status, a check run, or both\n"
		  "(default both; the status alone where check runs are\n"
		  "refused)" },
	{ .name = "dry-run",
	  OWN_FLAG(ci.publish.dry_run),
	  .help = "print the comment and the requests; send nothing (the\n"
		  "default outside Actions when no token is set)" },
	{ .name = "against",
	  OWN_STRING(ci.against),
	  .arg = "REV",
	  .help = "the base: a sha, branch, tag, HEAD~2, origin/main" },
	{ .name = "suite-from",
	  OWN_STRING(ci.suite_from),
	  .arg = "head|base",
	  .help = "measure both sides with this revision's suite file" },
};

static const struct opt comment_flags[] = {
	{ .name = "event",
	  OWN_STRING(comment.event),
	  .arg = "PATH",
	  .help = "the trusted workflow_run event (default GITHUB_EVENT_PATH)" },
	{ .name = "dry-run",
	  OWN_FLAG(comment.dry_run),
	  .help = "print the comment and the requests; send nothing" },
	{ .name = "hide-footer",
	  OWN_FLAG(comment.hide_footer),
	  .help = "leave out the comment's last line (the link to the run,\n"
		  "himorime's version and the seed)" },
	{ .name = "verdict-as",
	  OWN_STRING(comment.verdict_as),
	  .arg = "status|check|both",
	  .help = "\nthe verdict as a commit status, a check run, or both\n"
		  "(default both; the status alone where check runs are refused)" },
};

static const struct opt report_flags[] = {
	{ .name = "format",
	  OWN_STRING(report.out.format),
	  .arg = "FORMAT",
	  .dflt = "table",
	  .help = "table (default), json, csv, samples-csv, markdown, github,\n"
		  "html" },
	{ .name = "output",
	  .short_name = 'o',
	  OWN_STRING(report.out.output),
	  .arg = "FILE",
	  .help = "write there (atomically) instead of standard output" },
	{ .name = "section",
	  OWN_STRING(report.out.section),
	  .arg = "NAME",
	  .help = "with --format markdown and --output: replace only the text\n"
		  "between <!-- himorime:begin NAME --> and\n"
		  "<!-- himorime:end NAME --> in FILE" },
	{ .name = "summary",
	  OWN_STRING(report.out.summary),
	  .arg = "FILE",
	  .help = "also append the GitHub job summary to FILE" },
	{ .name = "no-color", OWN_FLAG(report.out.no_color), .help = "no colour (also NO_COLOR)" },
	{ .name = "check",
	  OWN_FLAG(report.check),
	  .help = "exit with the stored exit code (summary.exit_code), so\n"
		  "that a CI step can judge again from an artifact" },
};

static const struct opt sweep_flags[] = {
	{ .name = "every",
	  OWN_STRING(sweep.every),
	  .arg = "N",
	  .help = "every Nth commit counting back from the tip (kept)" },
	{ .name = "first-parent",
	  OWN_FLAG(sweep.first_parent),
	  .help = "follow only first parents from the tip" },
	{ .name = "max-commits",
	  OWN_STRING(sweep.max_commits),
	  .arg = "N",
	  .help = "the newest N commits of the range only" },
	{ .name = "shard",
	  OWN_STRING(sweep.shard),
	  .arg = "K/N",
	  .help = "measure the K-th of N contiguous slices (CI matrices)" },
	{ .name = "reference",
	  OWN_STRING(sweep.reference),
	  .arg = "REV",
	  .help = "measure every commit against REV" },
	{ .name = "force",
	  OWN_FLAG(sweep.force),
	  .help = "measure commits that are in the history already" },
	{ .name = "history-ref",
	  OWN_STRING(sweep.history_ref),
	  .arg = "REF",
	  .help = "default refs/himorime/history" },
	{ .name = "output",
	  .short_name = 'o',
	  SESSION_STRING(out.output),
	  .arg = "FILE",
	  .help = "write the whole sweep as one JSON document" },
	{ .name = "format",
	  SESSION_STRING(out.format),
	  .arg = "FORMAT",
	  .dflt = "table",
	  .help = "the trend on stdout: table (default), markdown, csv,\n"
		  "json, html" },
};

static const struct opt history_flags[] = {
	{ .name = "benchmark",
	  OWN_STRING(history.benchmark),
	  .arg = "RE",
	  .help = "benchmarks whose name matches RE" },
	{ .name = "metric",
	  OWN_STRING(history.metric),
	  .arg = "M",
	  .help = "latency (default), cpu_total or peak_rss" },
	{ .name = "format",
	  OWN_STRING(history.format),
	  .arg = "FORMAT",
	  .help = "table (default), markdown, csv, json, html" },
	{ .name = "history-ref",
	  OWN_STRING(history.ref),
	  .arg = "REF",
	  .help = "default refs/himorime/history" },
	{ .name = "output",
	  .short_name = 'o',
	  OWN_STRING(history.output),
	  .arg = "FILE",
	  .help = "write there (atomically) instead of stdout" },
	{ .name = "keep",
	  OWN_STRING(history.keep),
	  .arg = "N",
	  .help = "prune: how many commits to keep" },
	{ .name = "no-color",
	  OWN_FLAG(history.no_color),
	  .help = "no colour (NO_COLOR is respected too)" },
};

static const struct opt merge_flags[] = {
	{ .name = "output",
	  .short_name = 'o',
	  OWN_STRING(merge.output),
	  .arg = "FILE",
	  .help = "write the merged sweep document there" },
	{ .name = "append", OWN_FLAG(merge.append), .help = "record it in the history ref" },
	{ .name = "history-ref",
	  OWN_STRING(merge.ref),
	  .arg = "REF",
	  .help = "default refs/himorime/history" },
};

static const struct opt bisect_flags[] = {
	{ .name = "good",
	  OWN_STRING(bisect.good),
	  .arg = "REV",
	  .help = "a commit without the change" },
	{ .name = "bad",
	  OWN_STRING(bisect.bad),
	  .arg = "REV",
	  .help = "a commit with the change (a first-parent descendant)" },
	{ .name = "metric",
	  OWN_STRING(bisect.metric),
	  .arg = "M",
	  .help = "latency (default), cpu_total, peak_rss, or a count:\n"
		  "instructions, allocations, allocated_bytes,\n"
		  "artifact_size" },
};

#define FLAGS(rows) .flags = rows, .n_flags = ARRAY_SIZE(rows)

/* The groups of shared flags a command takes. */
#define RUN_GROUPS     (FLAGS_SELECT | FLAGS_REPORT | FLAGS_RUNS | FLAGS_TERMINAL | FLAGS_COLOUR)
#define COMPARE_GROUPS (RUN_GROUPS | FLAGS_BUDGET | FLAGS_SCHEDULE | FLAGS_GATE)

static const struct cmd commands[] = {
	{
		.name = "help",
		.summary = "show the commands, or one command's usage",
		.synopsis = "help [COMMAND]\n",
		.about = "Shows the list of commands, or the usage of one command.\n",
		.run = cmd_help,
	},
	{
		.name = "version",
		.summary = "print the version",
		.synopsis = "version\n",
		.about = "Prints himorime's version, the compiler and the platform.\n",
		.run = cmd_version,
	},
	{
		.name = "init",
		.summary = "write a small runnable suite file",
		.synopsis = "init [--force] [PATH]\n",
		.about = "Writes a small runnable suite to PATH (default himorime.yaml) and, "
			 "beside it,\n"
			 "himorime.schema.json, the JSON Schema its first line points editors at. "
			 "When\n"
			 "the directory (or one above it, up to the repository's top) has a "
			 "Cargo.toml,\n"
			 "go.mod, CMakeLists.txt, meson.build, configure.ac, configure, Makefile "
			 "or\n"
			 "package.json, the suite gets a build step that leaves the program at\n"
			 "${artifact}, and a benchmark that runs it. An existing suite is kept "
			 "unless\n"
			 "--force is given (exit 3).\n",
		FLAGS(init_flags),
		.help_column = 16,
		.run = cmd_init,
	},
	{
		.name = "validate",
		.summary = "check suite files without running anything",
		.synopsis = "validate [PATH...]\n",
		.about = "Checks suite files: YAML, every key, type and range, and the rules "
			 "between\n"
			 "them. Runs nothing. PATH is a suite file or a directory (its "
			 "himorime.yaml and\n"
			 "every *.himorime.yaml); the default is himorime.yaml. Prints one ok line "
			 "per\n"
			 "file, or every problem as file:line:column: key.path: message "
			 "[" HMR_INVALID "]\n"
			 "and exits 2. Files are at most 4 MiB. runs or max_runs below\n"
			 "regression.min_samples is valid: a comparison refuses it (exit 2).\n"
			 "In Actions, what it prints is wrapped in ::stop-commands::.\n",
		.run = cmd_validate,
	},
	{
		.name = "list",
		.summary = "list the commands a suite would measure",
		.synopsis = "list [--format text|json] [--filter RE] [--tag T] [--skip-tag T] "
			    "[PATH...]\n",
		.about = "Prints one line per selected command: suite file, benchmark, tags, "
			 "stdin,\n"
			 "command name and the command as written (tab-separated). With --format "
			 "json,\n"
			 "the fully resolved settings of each command: durations in ns, numbers "
			 "exact\n"
			 "(they read back bit for bit, as in reports).\n",
		.notes = "An empty selection exits 3. In Actions, what it prints is wrapped in\n"
			 "::stop-commands::.\n",
		FLAGS(list_flags),
		.help_column = 20,
		.run = cmd_list,
	},
	{
		.name = "run",
		.summary = "measure the suites and check their budgets",
		.synopsis = "run [flags] [PATH...]\n",
		.about = "Builds (when the suite has `build:`), then measures every selected "
			 "benchmark:\n"
			 "setup, warmup, rounds of every command in a seeded shuffled order, "
			 "cleanup.\n"
			 "Checks budgets and writes the report. PATH is a suite file or a "
			 "directory\n"
			 "(its himorime.yaml and every *.himorime.yaml); default himorime.yaml.\n"
			 "In a git repository the report records the commit and whether the tree\n"
			 "had uncommitted changes.\n",
		.notes =
			"SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the run: the measured tree is "
			"killed,\n"
			"cleanup runs, temporary directories are removed, exit 4. When the reader "
			"of\n"
			"standard output goes away (EPIPE), the run ends the same way, without a "
			"message.\n"
			"In GitHub Actions (GITHUB_ACTIONS=true) the report on standard output is\n"
			"wrapped in ::stop-commands:: so that no name or output can issue a "
			"workflow\n"
			"command; so are those of compare, report, comment, list and validate.\n"
			"\n"
			"exit: 0 ok, 1 budget broken, 2 invalid suite, 3 usage, 4 a command or "
			"hook\n"
			"failed or the run was interrupted, 6 a metric could not be measured.\n",
		.help_column = 25,
		.setup = CMD_MEASURE,
		.groups = RUN_GROUPS,
		.mode = RESULTS_MODE_RUN,
		.measure = cmd_run,
	},
	{
		.name = "compare",
		.summary = "measure the working tree against a revision and judge it",
		.synopsis = "compare --against REV [--head REV] [--merge-base] [flags] [PATH...]\n",
		.about =
			"Materialises REV with libgit2 into a private temporary tree, builds both "
			"sides,\n"
			"and measures them in pairs: each round runs every command once on base "
			"and once\n"
			"on head, back to back, in coin-flipped order (with schedule duet, both at "
			"once,\n"
			"each on its own CPU). After each planned look the judge\n"
			"decides latency, cpu_total and peak_rss per command: regression, "
			"improved, pass,\n"
			"inconclusive or skipped (see docs/comparison.md). Head is the working "
			"tree as it\n"
			"is, uncommitted changes included, unless --head names a commit. When both "
			"builds\n"
			"produce the same ${artifact} byte for byte, both sides run that one "
			"file.\n"
			"Every comparison says the smallest change it could have seen (COULD SEE), "
			"and\n"
			"an inconclusive one how many pairs would have decided it. On a noisy "
			"runner\n"
			"(a robust CV above max_cv) a verdict stands only when the first and the "
			"second\n"
			"half of the pairs, each on its own, agree, and the report says so.\n"
			"Counts a suite asks for (artifact_size, instructions, allocations; per "
			"benchmark\n"
			"or per command) are decided after the timed rounds, on their medians;\n"
			"instructions and allocations come from separate, untimed runs under "
			"valgrind,\n"
			"for the commands that ask only.\n"
			"\n"
			"Which suite file: the working tree's decides what both sides measure; a "
			"suite\n"
			"whose file the base revision does not have is a new suite, measured on "
			"head\n"
			"only with nothing compared. --suite-from head measures the base with the\n"
			"working tree's suite anyway (two releases that predate it); --suite-from "
			"base\n"
			"measures both sides with the base revision's copy (docs/revisions.md).\n",
		.notes = "exit: 0 ok, 1 regression or budget broken, 2 invalid suite (also runs or "
			 "max_runs\n"
			 "below regression.min_samples in a suite both sides have), 3 usage, 4 a "
			 "build,\n"
			 "command or git step failed, 6 a metric could not be measured.\n",
		FLAGS(compare_flags),
		.help_column = 27,
		.setup = CMD_MEASURE,
		.like = "run",
		.groups = COMPARE_GROUPS,
		.mode = RESULTS_MODE_COMPARE,
		.measure = cmd_compare,
	},
	{
		.name = "calibrate",
		.summary = "compare head against itself to see the noise",
		.synopsis = "calibrate [--against REV] [flags] [PATH...]\n",
		.about = "Runs the comparison procedure with the same revision on both sides (an "
			 "A/A\n"
			 "comparison) on this machine: every verdict other than pass is noise. The "
			 "report\n"
			 "shows the intervals the settings reach within the cap: the smallest "
			 "change they\n"
			 "can tell apart. Use it to choose tolerances honestly before trusting a "
			 "gate.\n"
			 "The two builds stay two files even when they are byte-identical, as in a "
			 "real\n"
			 "change, so the noise shown includes what two files add.\n"
			 "Without --schedule each pair is measured twice in the same rounds "
			 "(twice the\n"
			 "time), interleaved and as a duet, which one first alternating; a "
			 "second table\n"
			 "gives each schedule's interval half-width at the same pairs and "
			 "recommends the\n"
			 "narrower (\"Duet decides faster here: ±X% vs ±Y% at N pairs\"); "
			 "interleaved\n"
			 "stays the default. With --schedule only that one is measured. Where "
			 "duet cannot\n"
			 "run (one usable CPU, terminal: true, a harness command) it says why, "
			 "and the\n"
			 "exit code is the calibration's as ever.\n",
		.notes = "exit: 0 ok, 1 a regression (here: noise) or budget broken, 2 invalid "
			 "suite,\n"
			 "3 usage, 4 a build, command or git step failed, 6 a metric not "
			 "measurable.\n",
		FLAGS(calibrate_flags),
		.help_column = 27,
		.setup = CMD_MEASURE,
		.like = "run",
		.groups = COMPARE_GROUPS,
		.mode = RESULTS_MODE_COMPARE,
		.measure = cmd_calibrate,
	},
	{
		.name = "ci",
		.summary = "compare with CI defaults and publish to the pull request",
		.synopsis =
			"ci [--against REV] [--comment true|false] [--accept-label NAME]\n"
			"                   [--verdict-as status|check|both] [--dry-run] [flags] "
			"[PATH...]\n",
		.about =
			"'compare' with CI defaults. The base is --against, else "
			"HIMORIME_BASE_REF, else\n"
			"the event at GITHUB_EVENT_PATH: pull_request.base.sha, "
			"merge_group.base_sha, or a\n"
			"push's `before`. Head is the working tree as checked out (on "
			"pull_request, the\n"
			"merge of head into base: what would land). pull_request_target is "
			"refused.\n"
			"\n"
			"The JSON report is always written: to --output with --format json, else "
			"to\n"
			"$RUNNER_TEMP/himorime-report.json, else (RUNNER_TEMP unset) to a new "
			"private\n"
			"directory under TMPDIR, never into the measured tree; stderr says where.\n"
			"\n"
			"In GitHub Actions: no colour; annotations for regressions, broken "
			"budgets,\n"
			"inconclusive comparisons and failures; the summary appended to\n"
			"GITHUB_STEP_SUMMARY; the token (GITHUB_TOKEN or INPUT_GITHUB-TOKEN) "
			"masked and\n"
			"never passed to commands, nor the runner's credentials and files (see\n"
			"docs/github-actions.md, \"Threat model\"). Then one sticky pull-request\n"
			"comment, a check run `himorime` (in_progress from the start, with "
			"annotations on\n"
			"the suite's lines) and a commit status `himorime` through the REST API\n"
			"(GITHUB_API_URL); a token that may not write check runs gets the status "
			"and a\n"
			"notice naming `checks: write`. --comment false sends no request at all. "
			"Without\n"
			"a token nothing is published and a notice says what to set; a read-only "
			"token (a\n"
			"fork) keeps the report and says how to use 'himorime comment' from a\n"
			"workflow_run workflow; either way the exit code is the gate's. Last, the "
			"outputs\n"
			"in GITHUB_OUTPUT: result, exit-code (the code\n"
			"ci exits with: 4 when publishing failed), report (the --output file, "
			"empty\n"
			"without) and json (the JSON report).\n"
			"\n"
			"A suite the pull request adds (no file in the base) is measured on head "
			"only:\n"
			"a new suite, nothing compared, a neutral headline; --suite-from head|base "
			"picks\n"
			"one suite file for both sides as in compare (docs/revisions.md).\n",
		FLAGS(ci_flags),
		.help_column = 25,
		.setup = CMD_MEASURE,
		.like = "compare",
		.groups = COMPARE_GROUPS,
		.mode = RESULTS_MODE_COMPARE,
		.records_exit_code = true,
		.measure = cmd_ci,
	},
	{
		.name = "comment",
		.summary = "post the comment, check run and status of a saved report (fork-safe)",
		.synopsis =
			"comment [--event PATH] [--dry-run] [--hide-footer]\n"
			"                        [--verdict-as status|check|both] REPORT.json\n",
		.about = "The publishing half of the two-job setup: run in a job that never checks "
			 "out\n"
			 "or runs pull-request code (the measuring workflow's second job on "
			 "pull_request,\n"
			 "or a workflow_run workflow for forks). REPORT.json is untrusted: it is\n"
			 "size-capped (16 MiB), validated field by field and rendered escaped, and "
			 "it must\n"
			 "be about the commit of the event (its git.status_sha, written by "
			 "'himorime ci',\n"
			 "is pull_request.head.sha or workflow_run.head_sha), else exit 2. The "
			 "pull\n"
			 "request and the head sha come from the trusted event (--event, default\n"
			 "GITHUB_EVENT_PATH), looked up through the API when the event lists none "
			 "(forks).\n"
			 "A fork's status is marked advisory: its own code made the report. Then "
			 "the\n"
			 "check run `himorime` on that commit (created completed, or ours updated; "
			 "for a\n"
			 "fork its summary says the figures come from the fork's own job) and the "
			 "status,\n"
			 "as --verdict-as says. The comment, the check run and the status link to "
			 "the run\n"
			 "that measured (workflow_run.id of the event), whose job summary holds "
			 "the full\n"
			 "report.\n"
			 "Any suite name goes in the comment marker (other bytes than "
			 "[A-Za-z0-9._,:/+=@-]\n"
			 "as %XX). In Actions, what it prints is wrapped in ::stop-commands::.\n"
			 "\n"
			 "The comment shows the problems (failures, regressions, broken budgets; "
			 "at most\n"
			 "10 rows) and one line counting the rest above its first <details>, "
			 "everything\n"
			 "else folded, under 65,536 characters (docs/reports.md).\n",
		FLAGS(comment_flags),
		.help_column = 18,
		.run = cmd_comment,
	},
	{
		.name = "report",
		.summary = "render a saved JSON report again, without measuring",
		.synopsis = "report [--format FORMAT] [-o FILE] [--section NAME]\n"
			    "                       [--summary FILE] [--no-color] [--check] "
			    "INPUT.json\n",
		.about =
			"Renders a report that himorime wrote, with its stored verdicts. Nothing "
			"is\n"
			"measured, and rendering succeeds with exit 0 whatever the report found.\n",
		.notes = "Exit status: 0, or the stored one with --check; 2 when the input cannot "
			 "be\n"
			 "read, is not a valid report or is also the output; 3 for a bad command "
			 "line;\n"
			 "4 when writing fails.\n",
		FLAGS(report_flags),
		.help_column = 21,
		.run = cmd_report,
	},
	{
		.name = "sweep",
		.summary = "measure a range of commits against a reference and keep the history",
		.synopsis = "sweep REV_RANGE [--every N] [--first-parent] [--max-commits N]\n"
			    "                      [--shard K/N] [--reference REV] [--force] "
			    "[--history-ref REF]\n"
			    "                      [-o OUT.json] [flags] [PATH...]\n",
		.about = "Walks REV_RANGE (A..B, or B for all of its history) with libgit2, "
			 "materialises\n"
			 "each selected commit in a private tree, builds it and measures it with "
			 "the\n"
			 "working tree's suite, in interleaved pairs against one fixed reference "
			 "commit\n"
			 "(the range's first commit, or --reference): machine drift cancels out in "
			 "the\n"
			 "ratio to the reference. Each commit's results (a document in mode sweep, "
			 "one\n"
			 "per suite) are appended to the history ref as soon as they are measured. "
			 "A\n"
			 "commit already there with the same suite hash and settings hash is "
			 "skipped.\n"
			 "Prints the trend of the range (measured now or already in the history) "
			 "with\n"
			 "its change points. A commit whose build or setup failed is recorded with "
			 "its\n"
			 "error, named on stderr, and shown in the trend without a value.\n",
		.notes = "exit: 0 ok, 2 invalid suite, 3 usage, 4 a commit could not be built or "
			 "measured\n"
			 "(the others are still recorded) or the sweep was interrupted.\n",
		FLAGS(sweep_flags),
		.help_column = 23,
		.setup = CMD_MEASURE,
		.like = "run",
		.groups = FLAGS_SELECT | FLAGS_RUNS | FLAGS_BUDGET | FLAGS_TERMINAL | FLAGS_COLOUR,
		.mode = RESULTS_MODE_SWEEP,
		.leading = 1,
		.measure = cmd_sweep,
	},
	{
		.name = "history",
		.summary = "show the trend kept by sweep, with change points",
		.synopsis = "history [--benchmark RE] [--metric M] [--format FORMAT]\n"
			    "                        [--history-ref REF] [-o FILE] [--no-color]\n"
			    "       himorime history prune --keep N [--history-ref REF]\n",
		.about =
			"Reads the history ref of the repository in the current directory and "
			"shows,\n"
			"per benchmark and command, each commit's value, the reference's, and the "
			"ratio\n"
			"to the reference with its interval, newest first. Change points (binary\n"
			"segmentation of the log ratio, a step only when its Hodges-Lehmann "
			"interval\n"
			"lies beyond the tolerance, segments of at least 3 commits) are marked on "
			"the\n"
			"first bad commit, with the last good one named. A commit that could not "
			"be\n"
			"measured (its build or setup failed) is a row with its error and no "
			"value.\n"
			"The table is in colour on a terminal (verdicts; a first bad commit and a\n"
			"failure in red) unless NO_COLOR or --no-color. csv and json write exact\n"
			"numbers in ns and bytes; json times are RFC 3339 with nanoseconds.\n"
			"'prune --keep N' keeps the results of the N newest commits (commit "
			"time).\n",
		FLAGS(history_flags),
		.help_column = 23,
		.run = cmd_history,
	},
	{
		.name = "merge",
		.summary = "join the documents of a sweep's shards",
		.synopsis = "merge A.json B.json ... [-o OUT.json] [--append]\n"
			    "                      [--history-ref REF]\n",
		.about = "Joins the -o documents of 'himorime sweep --shard K/N' jobs into one, "
			 "ordered\n"
			 "by commit. Slices of other suites, settings, ranges or references are "
			 "refused\n"
			 "(exit 2), and so is a commit found in two slices. --append records the "
			 "merged\n"
			 "results in the history ref of the repository in the current directory.\n",
		FLAGS(merge_flags),
		.help_column = 23,
		.run = cmd_merge,
	},
	{
		.name = "bisect",
		.summary = "find the first commit that moved a metric",
		.synopsis = "bisect --good REV --bad REV [--metric M] [flags] [PATH...]\n",
		.about = "Binary search over the first-parent line from --good to --bad. Bad is "
			 "first\n"
			 "compared with good on this machine (the procedure of 'himorime help "
			 "compare'):\n"
			 "the change to locate, with its interval; when none can be located the "
			 "search\n"
			 "stops there (exit 1). Each step then builds a candidate, compares it "
			 "with good\n"
			 "and places it nearer good or nearer bad (its interval against the "
			 "midpoint of\n"
			 "the two levels, not a tolerance). A step that cannot be placed is "
			 "measured once\n"
			 "more as one look at the cap of pairs; if it still cannot, the search "
			 "ends with\n"
			 "the smallest range it has proven. Every comparison is at confidence\n"
			 "1 - alpha / ceil(log2 N) for N candidates, so the whole search keeps the "
			 "error\n"
			 "bound. On a count (--metric instructions, allocations, "
			 "allocated_bytes or\n"
			 "artifact_size, which the suite must measure) there are no pairs: "
			 "each comparison\n"
			 "is the counts' runs under valgrind (or perf), their change widened "
			 "by their\n"
			 "spread, exact whatever the load. A 15% step at c8 of 12 commits, "
			 "beside a busy\n"
			 "loop (docs/sweeps.md):\n"
			 "  bad against good: cffa018229b5 c11\n"
			 "    work › work: cpu_total +13.4% [+11.4%, +15.7%] at 99.75%, 15 pairs:\n"
			 "    located, midpoint +6.5%\n"
			 "  step 1: bdcf2da24f3c c5\n"
			 "    work › work: cpu_total +1.0% [-1.6%, +4.4%] at 99.75%, 22 pairs: "
			 "nearer\n"
			 "    good than the midpoint +6.5%\n"
			 "    => good\n"
			 "  ... (steps 2 to 4: c8 bad, c6 good, c7 good)\n"
			 "  first bad commit: ff93740564ace5b40284eb278b6387cc976639e8 c8\n"
			 "  last good commit: 3b5870a2fef3ef1eaac26d274d83ec103437cd35 c7\n",
		.notes = "exit: 0 the search ended (named the commit or the range), 1 no change "
			 "between\n"
			 "good and bad could be located, 2 invalid suite, 3 usage (also a "
			 "--metric no\n"
			 "compared command measures), 4 a build or git step failed, or "
			 "interrupted, 6 the\n"
			 "count searched could not be measured here.\n",
		FLAGS(bisect_flags),
		.help_column = 23,
		.setup = CMD_MEASURE,
		.like = "run",
		.groups = FLAGS_SELECT | FLAGS_RUNS | FLAGS_BUDGET | FLAGS_TERMINAL,
		.mode = RESULTS_MODE_COMPARE,
		.measure = cmd_bisect,
	},
	{
		.name = "completion",
		.summary = "print a shell completion script",
		.synopsis = "completion bash|zsh|fish\n",
		.about = "Prints a completion script for the shell on standard output, for "
			 "example:\n"
			 "  himorime completion bash > /etc/bash_completion.d/himorime\n",
		.run = cmd_completion,
	},
};

const struct cmd *cli_commands(size_t *count)
{
	*count = ARRAY_SIZE(commands);
	return commands;
}

const struct cmd *cli_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* ---- parsing and running ------------------------------------------------- */

static struct opts opts_for(const struct cmd *c, struct cmd_args *a, struct session *s)
{
	const struct opts o = {
		.cmd = c->name,
		.own = c->flags,
		.n_own = c->n_flags,
		.shared = s ? session_flags : NULL,
		.n_shared = s ? ARRAY_SIZE(session_flags) : 0,
		.in = { [OPT_IN_ARGS] = a, [OPT_IN_SESSION] = s },
	};

	return o;
}

int cli_parse(const struct cmd *c, struct cmd_args *a, struct session *s, int argc, char **argv,
	      struct strlist *operands, struct err *err)
{
	const struct opts o = opts_for(c, a, s);

	assert(!s == (c->setup == CMD_PLAIN));
	opts_defaults(&o);
	return opts_parse(&o, argc, argv, operands, err);
}

void cli_args_release(const struct cmd *c, struct cmd_args *a)
{
	const struct opts o = opts_for(c, a, NULL);

	opts_release(&o); /* rows that bind the session are the session's */
	strlist_release(&a->operands);
}

static int run_measuring(const struct cmd *c, struct cmd_args *a, int argc, char **argv)
{
	struct session s;
	int code = session_start(&s, c, a, argc, argv);

	if (code == EXIT_OK)
		code = c->measure(&s, a);
	session_release(&s);
	return code;
}

int cli_run(const struct cmd *c, int argc, char **argv)
{
	struct cmd_args a;
	struct err err = ERR_INIT;
	int code;

	memset(&a, 0, sizeof(a));
	if (c->setup == CMD_MEASURE)
		code = run_measuring(c, &a, argc, argv);
	else if (cli_parse(c, &a, NULL, argc, argv, &a.operands, &err) < 0)
		code = cli_usage_error(c->name, &err);
	else
		code = c->run(&a);
	cli_args_release(c, &a);
	if (c->records_exit_code)
		cli_exit_code_output(code);
	return code;
}

/* ---- what help lists ----------------------------------------------------- */

struct rows {
	const struct opt **v;
	size_t n, alloc;
};

static void add(struct rows *r, const struct opt *o)
{
	r->v = xgrow(r->v, &r->alloc, r->n + 1, sizeof(*r->v));
	r->v[r->n++] = o;
}

/* The same flag, said the same way: a row another help lists already. */
static bool listed(const struct rows *r, const struct opt *o)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i]->name, o->name) && !strcmp(r->v[i]->help, o->help))
			return true;
	return false;
}

static const struct opt *own_flag(const struct cmd *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_flags; i++)
		if (!strcmp(c->flags[i].name, name))
			return &c->flags[i];
	return NULL;
}

/* The shared flags c takes: a measuring command's groups, less the rows its
 * own flags say more about (same name). */
static bool shared_taken(const struct cmd *c, const struct opt *o)
{
	return c->setup == CMD_MEASURE && (o->group & c->groups) && o->help &&
	       !own_flag(c, o->name);
}

static void chain_rows(const struct cmd *c, struct rows *out);

/* The rows c's own help lists, appended to out. */
static void help_rows(const struct cmd *c, struct rows *out)
{
	const struct cmd *like = c->like ? cli_find(c->like) : NULL;
	struct rows before = { .v = NULL, .n = 0, .alloc = 0 };
	size_t i;

	if (like)
		chain_rows(like, &before);
	for (i = 0; i < c->n_flags; i++)
		if (c->flags[i].help && !listed(&before, &c->flags[i]))
			add(out, &c->flags[i]);
	for (i = 0; i < ARRAY_SIZE(session_flags); i++)
		if (shared_taken(c, &session_flags[i]) && !listed(&before, &session_flags[i]))
			add(out, &session_flags[i]);
	free(before.v);
}

/* The rows the help of c and of the commands it is like list, theirs first. */
static void chain_rows(const struct cmd *c, struct rows *out)
{
	const struct cmd *like = c->like ? cli_find(c->like) : NULL;

	if (like)
		chain_rows(like, out);
	help_rows(c, out);
}

static bool takes(const struct cmd *c, const char *name)
{
	const struct opt *own = own_flag(c, name);
	size_t i;

	if (own)
		return own->help != NULL;
	for (i = 0; i < ARRAY_SIZE(session_flags); i++)
		if (!strcmp(session_flags[i].name, name) && shared_taken(c, &session_flags[i]))
			return true;
	return false;
}

const struct opt **cli_help_flags(const struct cmd *c, size_t *n)
{
	struct rows r = { .v = NULL, .n = 0, .alloc = 0 };

	help_rows(c, &r);
	*n = r.n;
	return r.v;
}

const struct opt **cli_help_except(const struct cmd *c, size_t *n)
{
	const struct cmd *like = c->like ? cli_find(c->like) : NULL;
	struct rows all = { .v = NULL, .n = 0, .alloc = 0 }, r = { .v = NULL, .n = 0, .alloc = 0 };
	size_t i;

	if (like)
		chain_rows(like, &all);
	for (i = 0; i < all.n; i++)
		if (!takes(c, all.v[i]->name))
			add(&r, all.v[i]);
	free(all.v);
	*n = r.n;
	return r.v;
}

const struct opt **cli_flags(const struct cmd *c, size_t *n)
{
	struct rows r = { .v = NULL, .n = 0, .alloc = 0 };
	size_t i;

	for (i = 0; i < c->n_flags; i++)
		if (c->flags[i].help)
			add(&r, &c->flags[i]);
	for (i = 0; i < ARRAY_SIZE(session_flags); i++)
		if (shared_taken(c, &session_flags[i]))
			add(&r, &session_flags[i]);
	*n = r.n;
	return r.v;
}
