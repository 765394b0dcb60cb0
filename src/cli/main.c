/*
 * Entry point: finds the subcommand in the table and runs it. `-h`, `--help`
 * and `-help` mean `help`; `-v`, `--version` and `-version` mean `version`.
 */
#include "cli/cli.h"

#include "common/alloc.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/banned.h"

static const struct cmd commands[] = {
	{ "help", cmd_help, "show the commands, or one command's usage",
	  "usage: himorime help [COMMAND]\n"
	  "\n"
	  "Shows the list of commands, or the usage of one command.\n" },
	{ "version", cmd_version, "print the version",
	  "usage: himorime version\n"
	  "\n"
	  "Prints himorime's version, the compiler and the platform.\n" },
	{ "init", cmd_init, "write a small runnable suite file",
	  "usage: himorime init [--force] [PATH]\n"
	  "\n"
	  "Writes a small runnable suite to PATH (default himorime.yaml) and, beside it,\n"
	  "himorime.schema.json, the JSON Schema its first line points editors at. When\n"
	  "the directory (or one above it, up to the repository's top) has a Cargo.toml,\n"
	  "go.mod, CMakeLists.txt, meson.build, configure.ac, configure, Makefile or\n"
	  "package.json, the suite gets a build step that leaves the program at\n"
	  "${artifact}, and a benchmark that runs it. An existing suite is kept unless\n"
	  "--force is given (exit 3).\n"
	  "\n"
	  "flags:\n"
	  "  -f, --force   overwrite an existing file\n" },
	{ "validate", cmd_validate, "check suite files without running anything",
	  "usage: himorime validate [PATH...]\n"
	  "\n"
	  "Checks suite files: YAML, every key, type and range, and the rules between\n"
	  "them. Runs nothing. PATH is a suite file or a directory (its himorime.yaml and\n"
	  "every *.himorime.yaml); the default is himorime.yaml. Prints one ok line per\n"
	  "file, or every problem as file:line:column: key.path: message [HMR2001]\n"
	  "and exits 2. Files are at most 4 MiB. runs or max_runs below\n"
	  "regression.min_samples is valid: a comparison refuses it (exit 2).\n" },
	{ "list", cmd_list, "list the commands a suite would measure",
	  "usage: himorime list [--format text|json] [--filter RE] [--tag T] [--skip-tag T] "
	  "[PATH...]\n"
	  "\n"
	  "Prints one line per selected command: suite file, benchmark, tags, stdin,\n"
	  "command name and the command as written (tab-separated). With --format json,\n"
	  "the fully resolved settings of each command: durations in ns, numbers exact\n"
	  "(they read back bit for bit, as in reports).\n"
	  "\n"
	  "flags:\n"
	  "  --format FORMAT   text (default) or json\n"
	  "  --filter RE       benchmarks whose name matches RE (unanchored)\n"
	  "  --tag TAG         benchmarks with any of the tags (repeatable, comma-separated)\n"
	  "  --skip-tag TAG    drop benchmarks with any of the tags; wins over --tag\n"
	  "\n"
	  "An empty selection exits 3.\n" },
	{ "run", cmd_run, "measure the suites and check their budgets",
	  "usage: himorime run [flags] [PATH...]\n"
	  "\n"
	  "Builds (when the suite has `build:`), then measures every selected benchmark:\n"
	  "setup, warmup, rounds of every command in a seeded shuffled order, cleanup.\n"
	  "Checks budgets and writes the report. PATH is a suite file or a directory\n"
	  "(its himorime.yaml and every *.himorime.yaml); default himorime.yaml.\n"
	  "In a git repository the report records the commit and whether the tree\n"
	  "had uncommitted changes.\n"
	  "\n"
	  "flags:\n"
	  "  --filter REGEXP        measure benchmarks whose name matches\n"
	  "  --tag TAG              keep benchmarks with any of the tags (repeatable)\n"
	  "  --skip-tag TAG         drop benchmarks with any of the tags; wins over --tag\n"
	  "  --format FORMAT        table (default), json, csv, samples-csv, markdown,\n"
	  "                         github, html\n"
	  "  -o, --output FILE      write the report there (atomically), not to stdout\n"
	  "  --section NAME         with markdown and --output: replace only the section\n"
	  "                         between <!-- himorime:begin NAME --> and its end marker\n"
	  "  --summary FILE         also append the GitHub summary to FILE\n"
	  "  --seed SEED            0..2^53-1; default random; printed and stored\n"
	  "  --runs N               exact measured runs per command\n"
	  "  --warmup N             warmup runs per command\n"
	  "  -q, --quiet            no progress on stderr (without a terminal, compare,\n"
	  "                         ci and sweep print one line per look or commit)\n"
	  "  -v, --verbose          at the end, the wall time of each phase (resolve,\n"
	  "                         materialise, build, warmup, rounds, judging, rendering,\n"
	  "                         publishing) on stderr; the JSON report has them in\n"
	  "                         `timings` either way\n"
	  "  --no-color             no colour (NO_COLOR is respected too)\n"
	  "\n"
	  "SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the run: the measured tree is killed,\n"
	  "cleanup runs, temporary directories are removed, exit 4. When the reader of\n"
	  "standard output goes away (EPIPE), the run ends the same way, without a message.\n"
	  "In GitHub Actions (GITHUB_ACTIONS=true) the report on standard output is\n"
	  "wrapped in ::stop-commands:: so that no name or output can issue a workflow\n"
	  "command; so are those of compare, report and comment.\n"
	  "\n"
	  "exit: 0 ok, 1 budget broken, 2 invalid suite, 3 usage, 4 a command or hook\n"
	  "failed or the run was interrupted, 6 a metric could not be measured.\n" },
	{ "compare", cmd_compare, "measure the working tree against a revision and judge it",
	  "usage: himorime compare --against REV [--head REV] [--merge-base] [flags] [PATH...]\n"
	  "\n"
	  "Materialises REV with libgit2 into a private temporary tree, builds both sides,\n"
	  "and measures them in pairs: each round runs every command once on base and once\n"
	  "on head, back to back, in coin-flipped order. After each planned look the judge\n"
	  "decides latency, cpu_total and peak_rss per command: regression, improved, pass,\n"
	  "inconclusive or skipped (see docs/comparison.md). Head is the working tree as it\n"
	  "is, uncommitted changes included, unless --head names a commit. When both builds\n"
	  "produce the same ${artifact} byte for byte, both sides run that one file.\n"
	  "Every comparison says the smallest change it could have seen (COULD SEE), and\n"
	  "an inconclusive one how many pairs would have decided it. On a noisy runner\n"
	  "(a robust CV above max_cv) a verdict stands only when the first and the second\n"
	  "half of the pairs, each on its own, agree, and the report says so.\n"
	  "Counts a suite asks for (artifact_size, instructions, allocations; per benchmark\n"
	  "or per command) are decided after the timed rounds, on their medians;\n"
	  "instructions and allocations come from separate, untimed runs under valgrind,\n"
	  "for the commands that ask only.\n"
	  "\n"
	  "Which suite file: the working tree's decides what both sides measure; a suite\n"
	  "whose file the base revision does not have is a new suite, measured on head\n"
	  "only with nothing compared. --suite-from head measures the base with the\n"
	  "working tree's suite anyway (two releases that predate it); --suite-from base\n"
	  "measures both sides with the base revision's copy (docs/revisions.md).\n"
	  "\n"
	  "flags (besides those of 'himorime help run'):\n"
	  "  --against REV            the base: a sha, branch, tag, HEAD~2, origin/main\n"
	  "  --head REV               measure this commit instead of the working tree\n"
	  "  --merge-base             compare against the merge base of REV and head\n"
	  "  --suite-from head|base   measure both sides with this revision's suite file\n"
	  "  --max-time DURATION      stop the rounds when spent; undecided metrics are\n"
	  "                           inconclusive\n"
	  "  --fail-on-inconclusive   exit 1 when a gated comparison is inconclusive\n"
	  "\n"
	  "exit: 0 ok, 1 regression or budget broken, 2 invalid suite (also runs or max_runs\n"
	  "below regression.min_samples in a suite both sides have), 3 usage, 4 a build,\n"
	  "command or git step failed, 6 a metric could not be measured.\n" },
	{ "calibrate", cmd_calibrate, "compare head against itself to see the noise",
	  "usage: himorime calibrate [--against REV] [flags] [PATH...]\n"
	  "\n"
	  "Runs the comparison procedure with the same revision on both sides (an A/A\n"
	  "comparison) on this machine: every verdict other than pass is noise. The report\n"
	  "shows the intervals the settings reach within the cap: the smallest change they\n"
	  "can tell apart. Use it to choose tolerances honestly before trusting a gate.\n"
	  "The two builds stay two files even when they are byte-identical, as in a real\n"
	  "change, so the noise shown includes what two files add.\n"
	  "\n"
	  "flags (besides those of 'himorime help run'):\n"
	  "  --against REV            calibrate on this commit instead of the working tree\n"
	  "  --suite-from head|base   measure with the working tree's suite (head), or the\n"
	  "                           commit's copy (base); by default the commit's, and a\n"
	  "                           suite the commit lacks is measured once, uncompared\n"
	  "  --max-time DURATION      stop the rounds when spent; undecided metrics are\n"
	  "                           inconclusive\n"
	  "  --fail-on-inconclusive   exit 1 when a gated comparison is inconclusive\n"
	  "\n"
	  "exit: 0 ok, 1 a regression (here: noise) or budget broken, 2 invalid suite,\n"
	  "3 usage, 4 a build, command or git step failed, 6 a metric not measurable.\n" },
	{ "ci", cmd_ci, "compare with CI defaults and publish to the pull request",
	  "usage: himorime ci [--against REV] [--comment true|false] [--accept-label NAME]\n"
	  "                   [--dry-run] [flags] [PATH...]\n"
	  "\n"
	  "'compare' with CI defaults. The base is --against, else HIMORIME_BASE_REF, else\n"
	  "the event at GITHUB_EVENT_PATH: pull_request.base.sha, merge_group.base_sha, or a\n"
	  "push's `before`. Head is the working tree as checked out (on pull_request, the\n"
	  "merge of head into base: what would land). pull_request_target is refused.\n"
	  "\n"
	  "The JSON report is always written: to --output with --format json, else to\n"
	  "$RUNNER_TEMP/himorime-report.json, else (RUNNER_TEMP unset) to a new private\n"
	  "directory under TMPDIR, never into the measured tree; stderr says where.\n"
	  "\n"
	  "In GitHub Actions: no colour; annotations for regressions, broken budgets,\n"
	  "inconclusive comparisons and failures; the summary appended to\n"
	  "GITHUB_STEP_SUMMARY; the token (GITHUB_TOKEN or INPUT_GITHUB-TOKEN) masked and\n"
	  "never passed to commands, nor the runner's credentials and files (see\n"
	  "docs/github-actions.md, \"Threat model\"). Then one sticky pull-request\n"
	  "comment and a commit status `himorime` through the REST API (GITHUB_API_URL);\n"
	  "--comment false sends no request at all. Without a token nothing is published\n"
	  "and a notice says what to set; a read-only token (a fork) keeps the report and\n"
	  "says how to use 'himorime comment' from a workflow_run workflow; either way the\n"
	  "exit code is the gate's. Last, the outputs in GITHUB_OUTPUT: result, exit-code (the "
	  "code\n"
	  "ci exits with: 4 when publishing failed), report (the --output file, empty\n"
	  "without) and json (the JSON report).\n"
	  "\n"
	  "A suite the pull request adds (no file in the base) is measured on head only:\n"
	  "a new suite, nothing compared, a neutral headline; --suite-from head|base picks\n"
	  "one suite file for both sides as in compare (docs/revisions.md).\n"
	  "\n"
	  "flags (besides those of 'himorime help compare'):\n"
	  "  --comment true|false   post the comment and the status (default true); false\n"
	  "                         sends no request\n"
	  "  --accept-label NAME    a label that accepts a known regression: still reported,\n"
	  "                         marked accepted, not failing (default himorime:accept)\n"
	  "  --dry-run              print the comment and the requests; send nothing (the\n"
	  "                         default outside Actions when no token is set)\n" },
	{ "comment", cmd_comment, "post the comment and status of a saved report (fork-safe)",
	  "usage: himorime comment [--event PATH] [--dry-run] [--hide-footer] REPORT.json\n"
	  "\n"
	  "The publishing half of the two-job setup: run in a job that never checks out\n"
	  "or runs pull-request code (the measuring workflow's second job on pull_request,\n"
	  "or a workflow_run workflow for forks). REPORT.json is untrusted: it is\n"
	  "size-capped (16 MiB), validated field by field and rendered escaped, and it must\n"
	  "be about the commit of the event (its git.status_sha, written by 'himorime ci',\n"
	  "is pull_request.head.sha or workflow_run.head_sha), else exit 2. The pull\n"
	  "request and the head sha come from the trusted event (--event, default\n"
	  "GITHUB_EVENT_PATH), looked up through the API when the event lists none (forks).\n"
	  "A fork's status is marked advisory: its own code made the report. The comment\n"
	  "and the status link to the run that measured (workflow_run.id of the event),\n"
	  "whose job summary holds the full report.\n"
	  "Any suite name goes in the comment marker (other bytes than [A-Za-z0-9._,:/+=@-]\n"
	  "as %XX). In Actions, what it prints is wrapped in ::stop-commands::.\n"
	  "\n"
	  "The comment shows the problems (failures, regressions, broken budgets; at most\n"
	  "10 rows) and one line counting the rest above its first <details>, everything\n"
	  "else folded, under 65,536 characters (docs/reports.md).\n"
	  "\n"
	  "flags:\n"
	  "  --event PATH    the trusted workflow_run event (default GITHUB_EVENT_PATH)\n"
	  "  --dry-run       print the comment and the requests; send nothing\n"
	  "  --hide-footer   leave out the comment's last line (the link to the run,\n"
	  "                  himorime's version and the seed)\n" },
	{ "report", cmd_report, "render a saved JSON report again, without measuring",
	  "usage: himorime report [--format FORMAT] [-o FILE] [--section NAME]\n"
	  "                       [--summary FILE] [--no-color] [--check] INPUT.json\n"
	  "\n"
	  "Renders a report that himorime wrote, with its stored verdicts. Nothing is\n"
	  "measured, and rendering succeeds with exit 0 whatever the report found.\n"
	  "\n"
	  "  --format FORMAT    table (default), json, csv, samples-csv, markdown, github,\n"
	  "                     html\n"
	  "  -o, --output FILE  write there (atomically) instead of standard output\n"
	  "  --section NAME     with --format markdown and --output: replace only the text\n"
	  "                     between <!-- himorime:begin NAME --> and\n"
	  "                     <!-- himorime:end NAME --> in FILE\n"
	  "  --summary FILE     also append the GitHub job summary to FILE\n"
	  "  --no-color         no colour (also NO_COLOR)\n"
	  "  --check            exit with the stored exit code (summary.exit_code), so\n"
	  "                     that a CI step can judge again from an artifact\n"
	  "\n"
	  "Exit status: 0, or the stored one with --check; 2 when the input cannot be\n"
	  "read, is not a valid report or is also the output; 3 for a bad command line;\n"
	  "4 when writing fails.\n" },
	{ "sweep", cmd_sweep, "measure a range of commits against a reference and keep the history",
	  "usage: himorime sweep REV_RANGE [--every N] [--first-parent] [--max-commits N]\n"
	  "                      [--shard K/N] [--reference REV] [--force] [--history-ref REF]\n"
	  "                      [-o OUT.json] [flags] [PATH...]\n"
	  "\n"
	  "Walks REV_RANGE (A..B, or B for all of its history) with libgit2, materialises\n"
	  "each selected commit in a private tree, builds it and measures it with the\n"
	  "working tree's suite, in interleaved pairs against one fixed reference commit\n"
	  "(the range's first commit, or --reference): machine drift cancels out in the\n"
	  "ratio to the reference. Each commit's results (a document in mode sweep, one\n"
	  "per suite) are appended to the history ref as soon as they are measured. A\n"
	  "commit already there with the same suite hash and settings hash is skipped.\n"
	  "Prints the trend of the range (measured now or already in the history) with\n"
	  "its change points. A commit whose build or setup failed is recorded with its\n"
	  "error, named on stderr, and shown in the trend without a value.\n"
	  "\n"
	  "flags (besides --filter, --tag, --skip-tag, --seed, --runs, --warmup,\n"
	  "--max-time, --quiet, --verbose, --no-color of 'himorime help run'):\n"
	  "  --every N            every Nth commit counting back from the tip (kept)\n"
	  "  --first-parent       follow only first parents from the tip\n"
	  "  --max-commits N      the newest N commits of the range only\n"
	  "  --shard K/N          measure the K-th of N contiguous slices (CI matrices)\n"
	  "  --reference REV      measure every commit against REV\n"
	  "  --force              measure commits that are in the history already\n"
	  "  --history-ref REF    default refs/himorime/history\n"
	  "  -o, --output FILE    write the whole sweep as one JSON document\n"
	  "  --format FORMAT      the trend on stdout: table (default), markdown, csv,\n"
	  "                       json, html\n"
	  "\n"
	  "exit: 0 ok, 2 invalid suite, 3 usage, 4 a commit could not be built or measured\n"
	  "(the others are still recorded) or the sweep was interrupted.\n" },
	{ "history", cmd_history, "show the trend kept by sweep, with change points",
	  "usage: himorime history [--benchmark RE] [--metric M] [--format FORMAT]\n"
	  "                        [--history-ref REF] [-o FILE] [--no-color]\n"
	  "       himorime history prune --keep N [--history-ref REF]\n"
	  "\n"
	  "Reads the history ref of the repository in the current directory and shows,\n"
	  "per benchmark and command, each commit's value, the reference's, and the ratio\n"
	  "to the reference with its interval, newest first. Change points (binary\n"
	  "segmentation of the log ratio, a step only when its Hodges-Lehmann interval\n"
	  "lies beyond the tolerance, segments of at least 3 commits) are marked on the\n"
	  "first bad commit, with the last good one named. A commit that could not be\n"
	  "measured (its build or setup failed) is a row with its error and no value.\n"
	  "The table is in colour on a terminal (verdicts; a first bad commit and a\n"
	  "failure in red) unless NO_COLOR or --no-color. csv and json write exact\n"
	  "numbers in ns and bytes; json times are RFC 3339 with nanoseconds.\n"
	  "'prune --keep N' keeps the results of the N newest commits (commit time).\n"
	  "\n"
	  "flags:\n"
	  "  --benchmark RE       benchmarks whose name matches RE\n"
	  "  --metric M           latency (default), cpu_total or peak_rss\n"
	  "  --format FORMAT      table (default), markdown, csv, json, html\n"
	  "  --history-ref REF    default refs/himorime/history\n"
	  "  -o, --output FILE    write there (atomically) instead of stdout\n"
	  "  --keep N             prune: how many commits to keep\n"
	  "  --no-color           no colour (NO_COLOR is respected too)\n" },
	{ "merge", cmd_merge, "join the documents of a sweep's shards",
	  "usage: himorime merge A.json B.json ... [-o OUT.json] [--append]\n"
	  "                      [--history-ref REF]\n"
	  "\n"
	  "Joins the -o documents of 'himorime sweep --shard K/N' jobs into one, ordered\n"
	  "by commit. Slices of other suites, settings, ranges or references are refused\n"
	  "(exit 2), and so is a commit found in two slices. --append records the merged\n"
	  "results in the history ref of the repository in the current directory.\n"
	  "\n"
	  "flags:\n"
	  "  -o, --output FILE    write the merged sweep document there\n"
	  "  --append             record it in the history ref\n"
	  "  --history-ref REF    default refs/himorime/history\n" },
	{ "bisect", cmd_bisect, "find the first commit that moved a metric",
	  "usage: himorime bisect --good REV --bad REV [--metric M] [flags] [PATH...]\n"
	  "\n"
	  "Binary search over the first-parent line from --good to --bad. Each step builds\n"
	  "the candidate and compares it with the good commit on this machine (the full\n"
	  "procedure of 'himorime help compare') at confidence 1 - alpha / ceil(log2 N)\n"
	  "for N candidates, so the whole search keeps the error bound. A regression of\n"
	  "the metric in any compared command marks the candidate bad; pass or improved\n"
	  "everywhere marks it good; anything else ends the search with the smallest\n"
	  "range it has proven. Prints the evidence of each step and the first bad commit.\n"
	  "\n"
	  "flags (besides --filter, --tag, --skip-tag, --seed, --runs, --warmup,\n"
	  "--max-time, --quiet, --verbose of 'himorime help run'):\n"
	  "  --good REV           a commit without the change\n"
	  "  --bad REV            a commit with the change (a first-parent descendant)\n"
	  "  --metric M           latency (default), cpu_total or peak_rss\n"
	  "\n"
	  "exit: 0 the search ended (named the commit or the range), 2 invalid suite,\n"
	  "3 usage, 4 a build or git step failed, or interrupted.\n" },
	{ "completion", cmd_completion, "print a shell completion script",
	  "usage: himorime completion bash|zsh|fish\n"
	  "\n"
	  "Prints a completion script for the shell on standard output, for example:\n"
	  "  himorime completion bash > /etc/bash_completion.d/himorime\n" },
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

int cli_exit_for(int err_code)
{
	switch ((enum err_code)err_code) {
	case ERR_OK:
		return EXIT_OK;
	case ERR_INVALID:
		return EXIT_CONFIG;
	case ERR_USAGE:
		return EXIT_USAGE;
	case ERR_EXEC:
	case ERR_INTERRUPTED:
		return EXIT_EXEC;
	case ERR_INTERNAL:
		return EXIT_INTERNAL;
	case ERR_METRIC:
		return EXIT_METRIC;
	}
	return EXIT_INTERNAL;
}

const char *cli_diag_code(int exit_code)
{
	switch (exit_code) {
	case EXIT_CONFIG:
		return "HMR2001";
	case EXIT_USAGE:
		return "HMR3001";
	case EXIT_EXEC:
		return "HMR4001";
	case EXIT_INTERNAL:
		return "HMR5001";
	case EXIT_METRIC:
		return "HMR6001";
	default:
		return "";
	}
}

int cli_exit(int exit_code, const char *fmt, ...)
{
	va_list ap;

	if (cli_reader_gone())
		return exit_code;
	fflush(stdout);
	fprintf(stderr, "himorime: exit %d: ", exit_code);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return exit_code;
}

int cli_fail(const struct err *err)
{
	int code = cli_exit_for(err->code);

	if (cli_reader_gone())
		return code;
	fflush(stdout);
	fprintf(stderr, "himorime: error: %s [%s]\n", err->msg, cli_diag_code(code));
	switch (code) {
	case EXIT_USAGE:
		return cli_exit(code, "invalid command line");
	case EXIT_CONFIG:
		return cli_exit(code, "invalid input");
	case EXIT_METRIC:
		return cli_exit(code, "a metric could not be measured");
	case EXIT_INTERNAL:
		return cli_exit(code, "internal error");
	default:
		return cli_exit(code,
				err->code == ERR_INTERRUPTED ? "interrupted" : "execution failed");
	}
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *name;

	cli_secrets_take();
	/* A reader that goes away is an EPIPE to handle, not a death that
	 * would leave temporary directories behind. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		char *help_argv[] = { (char *)"help", NULL };
		return cmd_help(1, help_argv);
	}
	name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "-help"))
		name = "help";
	else if (!strcmp(name, "-v") || !strcmp(name, "--version") || !strcmp(name, "-version"))
		name = "version";
	c = cli_find(name);
	if (!c) {
		fprintf(stderr, "himorime: error: unknown command \"%s\" [HMR3001]\n", argv[1]);
		fprintf(stderr, "  hint: run 'himorime help' for the list of commands\n");
		return cli_exit(EXIT_USAGE, "invalid command line");
	}
	argv[1] = (char *)c->name;
	return c->run(argc - 1, argv + 1);
}
