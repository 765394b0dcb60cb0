/*
 * Counting under valgrind (docs/comparison.md, "Deciding on counts"):
 * instructions with cachegrind, heap blocks and bytes with DHAT. A run wraps
 * the command in valgrind_argv() with a fresh directory for the out files,
 * runs it like any command (the spawner or in-process), then reads the
 * counts of every process of the tree from that directory:
 *
 *     char **argv = valgrind_argv("/usr/bin/valgrind", VALGRIND_CACHEGRIND, dir, cmd);
 *     run argv; valgrind_argv_free(argv);
 *     valgrind_read_instructions(dir, &counts, &err);
 *
 * --trace-children=yes follows every exec, and each process writes its own
 * file (cg.<pid>, dh.<pid>); valgrind's own messages go to log.<pid> there,
 * so that the command's stderr stays its own; `--` ends valgrind's options,
 * so a command whose argv[0] starts with `-` is the command. A child forked
 * without exec
 * carries its parent's counts up to the fork into its own file, so the sum
 * counts that part once more per such child: deterministic, hence harmless
 * to a comparison (docs/comparison.md, "Deciding on counts").
 */
#ifndef HIMORIME_MEASURE_VALGRIND_H
#define HIMORIME_MEASURE_VALGRIND_H

#include "common/err.h"
#include "common/strbuf.h"

#include <stddef.h>
#include <stdint.h>

enum valgrind_tool { VALGRIND_CACHEGRIND, VALGRIND_DHAT };

/* What one run counted, summed over the processes whose files were read. */
struct valgrind_counts {
	unsigned processes;
	uint64_t instructions;	/* cachegrind: Ir */
	uint64_t blocks, bytes; /* DHAT: heap blocks and bytes allocated */
};

/* The command `argv` (NULL-terminated) wrapped in valgrind (the absolute
 * path to execute) with `tool`, its out files in `out_dir`. A NULL-terminated
 * heap array of heap strings, for valgrind_argv_free(). */
char **valgrind_argv(const char *valgrind, enum valgrind_tool tool, const char *out_dir,
		     const char *const *argv);
void valgrind_argv_free(char **argv);

/* Sums the `summary:` line's Ir of every cachegrind file (cg.*) in dir into
 * out->instructions and out->processes. No file, or one without a summary
 * (the run died before valgrind wrote it), is ERR_METRIC; a malformed file is
 * ERR_METRIC with its path and line.
 *
 * The measured code can write dir: every file is opened without following a
 * link or blocking, must be a regular file under a size cap (1 GiB for
 * cachegrind, 512 MiB for DHAT), and all of one run's are read within 60 s;
 * each breach is ERR_METRIC with the reason (fsio_capped_open), dir itself
 * must not be a symbolic link, and more than 100,000 files is an error. */
int valgrind_read_instructions(const char *dir, struct valgrind_counts *out, struct err *err);

/* The same for one cachegrind file already in memory (`name` for messages):
 * the bounded line scanner valgrind_read_instructions() feeds chunk by chunk,
 * adding the file's Ir to out->instructions. */
int valgrind_parse_cachegrind(const char *name, const char *text, size_t len,
			      struct valgrind_counts *out, struct err *err);

/* Sums the total blocks ("tbk") and bytes ("tb") of the program points of
 * every DHAT file (dh.*) in dir into out. Errors as for instructions. */
int valgrind_read_heap(const char *dir, struct valgrind_counts *out, struct err *err);

/* The same for one DHAT JSON document already in memory (`name` for
 * messages): the scanner that valgrind_read_heap() uses, bounded and
 * strict enough for untrusted bytes. */
int valgrind_parse_dhat(const char *name, const char *json, size_t len, struct valgrind_counts *out,
			struct err *err);

/* valgrind's version ("3.19.0"), from `valgrind --version` run by its path
 * (found once at start: measure/helper.h) with the environment envp (the
 * one measured commands get). A valgrind that cannot be executed is
 * ERR_METRIC ("valgrind is not available: cannot execute
 * \"/usr/bin/valgrind\": no such file or directory"). */
int valgrind_version(const char *valgrind, char *const *envp, struct strbuf *out, struct err *err);

#endif
