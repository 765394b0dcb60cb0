/*
 * Tests of the valgrind backend of counts with real valgrind on real tiny
 * programs, compiled with cc in the test's temporary directory and run
 * through the measurer (in-process): instructions grow exactly with the
 * work, forked children are counted, DHAT's blocks are exactly the mallocs;
 * and the readers refuse missing, unfinished and malformed out files with
 * the file and the place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/strbuf.h"
#include "measure/helper.h"
#include "measure/valgrind.h"

#include "scratch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The loop both programs share, so that its cost per iteration is one number. */
#define LOOP                                                                                       \
	"static void work(unsigned long n) { volatile unsigned long a = 0;\n"                      \
	"  for (unsigned long i = 0; i < n; i++) a += i; }\n"

static const char loop_c[] =
	"#include <stdlib.h>\n" LOOP
	"int main(int c, char **v) { work(strtoul(v[1], 0, 10)); return 0; }\n";

static const char fork_c[] =
	"#include <stdlib.h>\n#include <sys/wait.h>\n#include <unistd.h>\n" LOOP
	"int main(int c, char **v) { int n = atoi(v[1]);\n"
	"  for (int i = 0; i < n; i++) if (fork() == 0) { work(200000); _exit(0); }\n"
	"  while (wait(0) > 0) ; return 0; }\n";

static const char alloc_c[] =
	"#include <stdlib.h>\n"
	"int main(int c, char **v) { unsigned long n = strtoul(v[1], 0, 10);\n"
	"  void *volatile p;\n"
	"  for (unsigned long i = 0; i < n; i++) { p = malloc(64); free(p); }\n"
	"  return 0; }\n";

static const char fork_alloc_c[] =
	"#include <stdlib.h>\n#include <sys/wait.h>\n#include <unistd.h>\n"
	"int main(int c, char **v) { int n = atoi(v[1]); void *volatile p;\n"
	"  for (int i = 0; i < n; i++) if (fork() == 0) {\n"
	"    for (int j = 0; j < 100; j++) { p = malloc(32); free(p); } _exit(0); }\n"
	"  while (wait(0) > 0) ; return 0; }\n";

/* Writes src to <scratch_dir>/<name>.c, compiles it; returns the binary's path. */
static char *compile(const char *name, const char *src)
{
	char *c = xasprintf("%s/%s.c", scratch_dir, name),
	     *bin = xasprintf("%s/%s", scratch_dir, name);
	char *argv[] = { (char *)"cc", (char *)"-O2", (char *)"-o", bin, c, NULL };
	struct err err = ERR_INIT;

	assert_int_equal(fsio_write_atomic(c, src, strlen(src), &err), 0);
	assert_int_equal(scratch_run(argv, NULL), 0);
	free(c);
	return bin;
}

/* Runs bin with one argument under tool and reads what it counted. */
static struct valgrind_counts count(enum valgrind_tool tool, const char *bin, const char *arg)
{
	static unsigned serial;
	char *dir = xasprintf("%s/out.%u", scratch_dir, serial++);
	const char *cmd[] = { bin, arg, NULL };
	char **argv = valgrind_argv("valgrind", tool, dir, cmd);
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(scratch_run(argv, NULL), 0);
	valgrind_argv_free(argv);
	if (tool == VALGRIND_CACHEGRIND)
		assert_int_equal(valgrind_read_instructions(dir, &c, &err), 0);
	else
		assert_int_equal(valgrind_read_heap(dir, &c, &err), 0);
	free(dir);
	return c;
}

static void test_valgrind__argv(void **state)
{
	const char *cmd[] = { "./prog", "-x", NULL };
	char **a;

	(void)state;
	a = valgrind_argv("/usr/bin/valgrind", VALGRIND_CACHEGRIND, "/t/d", cmd);
	assert_string_equal(a[0], "/usr/bin/valgrind");
	assert_string_equal(a[1], "--tool=cachegrind");
	assert_string_equal(a[2], "--cache-sim=no");
	assert_string_equal(a[3], "--cachegrind-out-file=/t/d/cg.%p");
	assert_string_equal(a[4], "--trace-children=yes");
	assert_string_equal(a[5], "--vgdb=no");
	assert_string_equal(a[6], "--log-file=/t/d/log.%p");
	assert_string_equal(a[7], "--");
	assert_string_equal(a[8], "./prog");
	assert_string_equal(a[9], "-x");
	assert_null(a[10]);
	valgrind_argv_free(a);
	a = valgrind_argv("/usr/bin/valgrind", VALGRIND_DHAT, "/t/d", cmd);
	assert_string_equal(a[1], "--tool=dhat");
	assert_string_equal(a[2], "--dhat-out-file=/t/d/dh.%p");
	assert_string_equal(a[3], "--trace-children=yes");
	assert_string_equal(a[4], "--vgdb=no");
	assert_string_equal(a[5], "--log-file=/t/d/log.%p");
	assert_string_equal(a[6], "--");
	assert_string_equal(a[7], "./prog");
	assert_null(a[9]);
	valgrind_argv_free(a);
	valgrind_argv_free(NULL);
}

/* The loop's cost per iteration is constant: three runs 100,000 iterations
 * apart differ by exactly the same count. */
static void test_valgrind__instructions_grow_with_the_work(void **state)
{
	char *bin = compile("loop", loop_c);
	struct valgrind_counts a, b, c;

	(void)state;
	a = count(VALGRIND_CACHEGRIND, bin, "100000");
	b = count(VALGRIND_CACHEGRIND, bin, "200000");
	c = count(VALGRIND_CACHEGRIND, bin, "300000");
	assert_int_equal(a.processes, 1);
	assert_true(b.instructions > a.instructions + 100000);
	assert_int_equal(c.instructions - b.instructions, b.instructions - a.instructions);
	assert_int_equal(count(VALGRIND_CACHEGRIND, bin, "200000").instructions, b.instructions);
	free(bin);
}

/* Each forked child's 200,000 iterations are in the sum. */
static void test_valgrind__forked_children_are_counted(void **state)
{
	char *loop = compile("loop", loop_c), *bin = compile("fork", fork_c);
	struct valgrind_counts none, two, l1, l2;
	uint64_t per_200k;

	(void)state;
	l1 = count(VALGRIND_CACHEGRIND, loop, "100000");
	l2 = count(VALGRIND_CACHEGRIND, loop, "300000");
	per_200k = l2.instructions - l1.instructions;
	none = count(VALGRIND_CACHEGRIND, bin, "0");
	two = count(VALGRIND_CACHEGRIND, bin, "2");
	assert_int_equal(none.processes, 1);
	assert_int_equal(two.processes, 3);
	assert_true(two.instructions - none.instructions >= 2 * per_200k);
	free(loop);
	free(bin);
}

/* 1000 mallocs of 64 bytes are exactly 1000 more blocks and 64,000 more
 * bytes than none. */
static void test_valgrind__dhat_blocks_are_the_mallocs(void **state)
{
	char *bin = compile("alloc", alloc_c);
	struct valgrind_counts none, some;

	(void)state;
	none = count(VALGRIND_DHAT, bin, "0");
	some = count(VALGRIND_DHAT, bin, "1000");
	assert_int_equal(some.processes, 1);
	assert_true(some.blocks >= 1000);
	assert_int_equal(some.blocks - none.blocks, 1000);
	assert_int_equal(some.bytes - none.bytes, 64000);
	free(bin);
}

/* Each forked child's 100 mallocs of 32 bytes are in the sum. */
static void test_valgrind__dhat_counts_forked_children(void **state)
{
	char *bin = compile("fork_alloc", fork_alloc_c);
	struct valgrind_counts none, two;

	(void)state;
	none = count(VALGRIND_DHAT, bin, "0");
	two = count(VALGRIND_DHAT, bin, "2");
	assert_int_equal(none.processes, 1);
	assert_int_equal(two.processes, 3);
	assert_int_equal(two.blocks - none.blocks, 200);
	assert_int_equal(two.bytes - none.bytes, 6400);
	free(bin);
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct err err = ERR_INIT;

	assert_int_equal(fsio_write_atomic(path, text, strlen(text), &err), 0);
	return path;
}

static char *fresh_dir(const char *name)
{
	char *dir = xasprintf("%s/%s", scratch_dir, name);

	assert_int_equal(mkdir(dir, 0700), 0);
	return dir;
}

static void test_valgrind__cachegrind_files_summed_and_refused(void **state)
{
	char *dir = fresh_dir("cg"), *empty = fresh_dir("empty"), *bad;
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;
	char *want;

	(void)state;
	free(write_file(dir, "cg.1",
			"desc: x\ncmd: ./a\nevents: Dr Ir\nfl=a.c\n1 2 3\nsummary: 5 40\n"));
	free(write_file(dir, "cg.2", "events: Ir\nsummary: 2\n"));
	free(write_file(dir, "log.1", "not read\n"));
	assert_int_equal(valgrind_read_instructions(dir, &c, &err), 0);
	assert_int_equal(c.instructions, 42);
	assert_int_equal(c.processes, 2);

	assert_int_equal(valgrind_read_instructions(empty, &c, &err), ERR_METRIC);
	want = xasprintf("cachegrind wrote no output in \"%s\"", empty);
	assert_string_equal(err.msg, want);
	free(want);

	bad = write_file(empty, "cg.3", "events: Ir\nsummary: many\n");
	assert_int_equal(valgrind_read_instructions(empty, &c, &err), ERR_METRIC);
	want = xasprintf("\"%s\":2: malformed cachegrind summary (no Ir count)", bad);
	assert_string_equal(err.msg, want);
	free(want);
	free(write_file(empty, "cg.3", "events: Ir\nsummary: 99999999999999999999\n"));
	assert_int_equal(valgrind_read_instructions(empty, &c, &err), ERR_METRIC);
	free(write_file(empty, "cg.3", "events: Dr\nsummary: 1\n"));
	assert_int_equal(valgrind_read_instructions(empty, &c, &err), ERR_METRIC);
	free(write_file(empty, "cg.3", "events: Ir\nfl=a.c\n"));
	assert_int_equal(valgrind_read_instructions(empty, &c, &err), ERR_METRIC);
	want = xasprintf("\"%s\": no summary line (the process did not finish under valgrind)",
			 bad);
	assert_string_equal(err.msg, want);
	free(want);
	free(bad);
	free(dir);
	free(empty);
}

/* The out files lie where the measured code can write: a FIFO, a link (to
 * /dev/zero), a huge file or a linked directory there is an error of that
 * run, at once, never a wait or unbounded memory. */
static void test_valgrind__special_out_files_are_refused(void **state)
{
	static const char *const prefixes[] = { "cg.9", "dh.9" };
	char *dir = fresh_dir("special"), *path = xasprintf("%s/cg.9", dir), *link, *want;
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < 2; i++) {
		free(path);
		path = xasprintf("%s/%s", dir, prefixes[i]);
		assert_int_equal(mkfifo(path, 0600), 0);
		assert_int_equal(i ? valgrind_read_heap(dir, &c, &err)
				   : valgrind_read_instructions(dir, &c, &err),
				 ERR_METRIC);
		want = xasprintf("cannot read \"%s\": not a regular file (a FIFO)", path);
		assert_string_equal(err.msg, want);
		free(want);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(symlink("/dev/zero", path), 0);
		assert_int_equal(i ? valgrind_read_heap(dir, &c, &err)
				   : valgrind_read_instructions(dir, &c, &err),
				 ERR_METRIC);
		want = xasprintf("cannot read \"%s\": a symbolic link", path);
		assert_string_equal(err.msg, want);
		free(want);
		assert_int_equal(unlink(path), 0);
		/* a sparse file: its size is refused before anything is read */
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (off_t)1 << 31), 0);
		close(fd);
		assert_int_equal(i ? valgrind_read_heap(dir, &c, &err)
				   : valgrind_read_instructions(dir, &c, &err),
				 ERR_METRIC);
		want = xasprintf("cannot read \"%s\": larger than %u bytes", path,
				 i ? 512u << 20 : 1u << 30);
		assert_string_equal(err.msg, want);
		free(want);
		assert_int_equal(unlink(path), 0);
	}
	link = xasprintf("%s/linked", scratch_dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(valgrind_read_instructions(link, &c, &err), ERR_METRIC);
	want = xasprintf("cannot read \"%s\": a symbolic link", link);
	assert_string_equal(err.msg, want);
	free(want);
	free(link);
	free(path);
	free(dir);
}

/* Lines are read into a bounded buffer: a long command line is skipped, a
 * long events or summary line is an error; the last line may lack its
 * line break. */
static void test_valgrind__cachegrind_lines_are_bounded(void **state)
{
	struct strbuf text = STRBUF_INIT;
	char *dir;
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;
	size_t i;

	(void)state;
	strbuf_adds(&text, "desc: x\ncmd: ./a");
	for (i = 0; i < 100000; i++)
		strbuf_adds(&text, " arg");
	strbuf_adds(&text, "\nevents: Ir\nsummary: 7");
	assert_int_equal(valgrind_parse_cachegrind("cg.1", text.buf, text.len, &c, &err), 0);
	assert_int_equal(c.instructions, 7);
	/* the same from a file, read in chunks that cut the long line */
	dir = fresh_dir("long");
	free(write_file(dir, "cg.1", text.buf));
	memset(&c, 0, sizeof(c));
	assert_int_equal(valgrind_read_instructions(dir, &c, &err), 0);
	assert_int_equal(c.instructions, 7);
	free(dir);
	strbuf_reset(&text);
	strbuf_adds(&text, "events: Ir\nsummary: 1");
	for (i = 0; i < 5000; i++)
		strbuf_adds(&text, " 1");
	strbuf_addch(&text, '\n');
	assert_int_equal(valgrind_parse_cachegrind("cg.1", text.buf, text.len, &c, &err),
			 ERR_METRIC);
	assert_string_equal(err.msg, "\"cg.1\":2: malformed cachegrind file (a line longer "
				     "than 4096 bytes)");
	assert_int_equal(valgrind_parse_cachegrind("cg.1", "events: Ir\n", 11, &c, &err),
			 ERR_METRIC);
	assert_string_equal(err.msg, "\"cg.1\": no summary line (the process did not finish "
				     "under valgrind)");
	strbuf_release(&text);
}

/* The files the fuzzer starts from (tests/data/counts) as valgrind 3.19
 * writes them: the summary's Ir, the sums of every program point's tb and
 * tbk. */
static void test_valgrind__sample_out_files(void **state)
{
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;
	char *text = NULL;
	size_t len;

	(void)state;
	assert_int_equal(
		fsio_read_file("tests/data/counts/cachegrind.out", 1 << 20, &text, &len, &err), 0);
	assert_int_equal(valgrind_parse_cachegrind("cg", text, len, &c, &err), 0);
	assert_int_equal(c.instructions, 128758);
	free(text);
	assert_int_equal(fsio_read_file("tests/data/counts/dhat.json", 1 << 20, &text, &len, &err),
			 0);
	assert_int_equal(valgrind_parse_dhat("dh", text, len, &c, &err), 0);
	assert_int_equal(c.blocks, 201);
	assert_int_equal(c.bytes, 22995);
	free(text);
}

static int parse(const char *json, struct valgrind_counts *c, struct err *err)
{
	memset(c, 0, sizeof(*c));
	return valgrind_parse_dhat("dh.1", json, strlen(json), c, err);
}

static void test_valgrind__dhat_scanner(void **state)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "", "\"dh.1\": byte 0: malformed DHAT output: unexpected end" },
		{ "[]", "\"dh.1\": byte 0: malformed DHAT output: not an object" },
		{ "{\"a\":1}", "\"dh.1\": byte 7: malformed DHAT output: no \"pps\" array" },
		{ "{\"pps\":{}}",
		  "\"dh.1\": byte 7: malformed DHAT output: \"pps\" is not an array" },
		{ "{\"pps\":[{\"tb\":-1}]}",
		  "\"dh.1\": byte 14: malformed DHAT output: \"tb\" is not a count" },
		{ "{\"pps\":[{\"tbk\":1.5}]}",
		  "\"dh.1\": byte 15: malformed DHAT output: \"tbk\" is not a count" },
		{ "{\"pps\":[{\"tb\":18446744073709551615},{\"tb\":1}]}",
		  "\"dh.1\": byte 42: malformed DHAT output: the total overflows" },
		{ "{\"pps\":[{\"tb\":1}",
		  "\"dh.1\": byte 16: malformed DHAT output: expected ',' or ']'" },
		{ "{\"a\":\"x", "\"dh.1\": byte 7: malformed DHAT output: unterminated string" },
		{ "{\"a\":\"\x01\"}",
		  "\"dh.1\": byte 6: malformed DHAT output: control character in a string" },
		{ "{\"pps\":[]} x",
		  "\"dh.1\": byte 11: malformed DHAT output: text after the document" },
		{ "{\"a\" 1}", "\"dh.1\": byte 5: malformed DHAT output: expected ':'" },
		{ "{\"a\":#}", "\"dh.1\": byte 5: malformed DHAT output: unexpected character" },
	};
	struct valgrind_counts c;
	struct err err = ERR_INIT;
	struct strbuf deep = STRBUF_INIT;
	size_t i;

	(void)state;
	assert_int_equal(parse("{\"dhatFileVersion\":2,\"cmd\":\"a \\\"tb\\\":9\",\"pps\":\n"
			       " [{\"tb\":8000,\"tbk\":1,\"tl\":5,\"fs\":[1,2],\"acc\":[-64,0]}\n"
			       " ,{\"tb\":64000,\"tbk\":1000,\"x\":{\"tb\":7},\"y\":[true,null]}\n"
			       " ],\"ftbl\":[\"[root]\",\"0x1: main\"],\"tb\":3}",
			       &c, &err),
			 0);
	assert_int_equal(c.bytes, 72000);
	assert_int_equal(c.blocks, 1001);
	assert_int_equal(parse("{\"pps\":[]}", &c, &err), 0);
	assert_int_equal(c.blocks, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].json, &c, &err), ERR_METRIC);
		assert_string_equal(err.msg, bad[i].msg);
	}
	/* NUL bytes are neither part of a number nor a separator. */
	memset(&c, 0, sizeof(c));
	assert_int_equal(valgrind_parse_dhat("dh.1", "{\"pps\":[{\"tb\":1\0}]}", 19, &c, &err),
			 ERR_METRIC);
	assert_string_equal(err.msg,
			    "\"dh.1\": byte 14: malformed DHAT output: \"tb\" is not a count");
	assert_int_equal(valgrind_parse_dhat("dh.1", "{\"pps\":[],\"a\":\0}", 16, &c, &err),
			 ERR_METRIC);
	assert_string_equal(err.msg,
			    "\"dh.1\": byte 14: malformed DHAT output: unexpected character");
	strbuf_adds(&deep, "{\"a\":");
	for (i = 0; i < 40; i++)
		strbuf_addch(&deep, '[');
	assert_int_equal(parse(deep.buf, &c, &err), ERR_METRIC);
	assert_string_equal(err.msg, "\"dh.1\": byte 36: malformed DHAT output: nested too deeply");
	strbuf_release(&deep);
}

static void test_valgrind__dhat_files_refused(void **state)
{
	char *dir = fresh_dir("dh"), *path, *want;
	struct valgrind_counts c = { 0 };
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(valgrind_read_heap(dir, &c, &err), ERR_METRIC);
	want = xasprintf("DHAT wrote no output in \"%s\"", dir);
	assert_string_equal(err.msg, want);
	free(want);
	path = write_file(dir, "dh.7", "{\"pps\":[{\"tb\":1,\"tbk\":1}]");
	assert_int_equal(valgrind_read_heap(dir, &c, &err), ERR_METRIC);
	want = xasprintf("\"%s\": byte 25: malformed DHAT output: expected ',' or '}'", path);
	assert_string_equal(err.msg, want);
	free(want);
	free(path);
	free(dir);
}

/* valgrind_version runs valgrind by its path with the environment given
 * (the measured commands'), not himorime's own. */
static void test_valgrind__version(void **state)
{
	char *out = xasprintf("%s/version", scratch_dir), *fake = xasprintf("%s/fake", scratch_dir);
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"valgrind --version > \"$0\"", out,
			 NULL };
	char *envp[] = { (char *)"ONLY=this", NULL };
	static const char script[] = "#!/bin/sh\nenv > \"$0.env\"\necho valgrind-9.8.7\n";
	struct strbuf v = STRBUF_INIT;
	struct err err = ERR_INIT;
	char *text = NULL, *want, *valgrind;
	size_t len;

	(void)state;
	assert_int_equal(scratch_run(argv, NULL), 0);
	assert_int_equal(fsio_read_file(out, 1024, &text, &len, &err), 0);
	assert_int_equal(helper_find("valgrind", getenv("PATH"), &valgrind, &err), 0);
	assert_int_equal(valgrind_version(valgrind, envp, &v, &err), 0);
	want = xasprintf("valgrind-%s\n", v.buf);
	assert_string_equal(text, want);
	assert_true(v.len >= 4);
	free(want);
	free(text);
	strbuf_reset(&v);
	assert_int_equal(fsio_write_atomic(fake, script, strlen(script), &err), 0);
	assert_int_equal(chmod(fake, 0755), 0);
	assert_int_equal(valgrind_version(fake, envp, &v, &err), 0);
	assert_string_equal(v.buf, "9.8.7");
	want = xasprintf("%s.env", fake);
	assert_int_equal(fsio_read_file(want, 1024, &text, &len, &err), 0);
	/* what sh adds itself, and ONLY: nothing of himorime's environment */
	assert_non_null(strstr(text, "ONLY=this\n"));
	assert_null(strstr(text, "HOME="));
	assert_null(strstr(text, "\nPATH=/"));
	free(want);
	strbuf_reset(&v);
	assert_int_equal(valgrind_version("/nonexistent/valgrind", envp, &v, &err), ERR_METRIC);
	assert_string_equal(err.msg, "valgrind is not available: cannot execute "
				     "\"/nonexistent/valgrind\": No such file or directory");
	assert_int_equal(valgrind_version("/bin/true", envp, &v, &err), ERR_METRIC);
	assert_string_equal(err.msg, "\"/bin/true --version\" did not say a valgrind version");
	strbuf_release(&v);
	free(valgrind);
	free(text);
	free(fake);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valgrind__argv),
		cmocka_unit_test(test_valgrind__instructions_grow_with_the_work),
		cmocka_unit_test(test_valgrind__forked_children_are_counted),
		cmocka_unit_test(test_valgrind__dhat_blocks_are_the_mallocs),
		cmocka_unit_test(test_valgrind__dhat_counts_forked_children),
		cmocka_unit_test(test_valgrind__cachegrind_files_summed_and_refused),
		cmocka_unit_test(test_valgrind__dhat_scanner),
		cmocka_unit_test(test_valgrind__dhat_files_refused),
		cmocka_unit_test(test_valgrind__special_out_files_are_refused),
		cmocka_unit_test(test_valgrind__cachegrind_lines_are_bounded),
		cmocka_unit_test(test_valgrind__sample_out_files),
		cmocka_unit_test(test_valgrind__version),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
