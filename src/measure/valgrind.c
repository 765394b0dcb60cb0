/*
 * The valgrind backend of counts: the wrapping argv, the readers of
 * cachegrind's and DHAT's out files, and valgrind's version. See valgrind.h.
 *
 * DHAT writes JSON. cJSON stays in results/ and github/ (docs/design.md,
 * "Include walls"), and measuring must not depend on the report area, so the
 * few numbers needed are read here by a small strict scanner: it walks the
 * whole document (nesting bounded), and sums "tb" and "tbk" of the objects
 * in the top-level "pps" array.
 */
#include "measure/valgrind.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/fsio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DHAT_MAX_BYTES (512u << 20) /* a DHAT file larger than this is refused */
#define DHAT_MAX_DEPTH 32
#define VERSION_MAX    256

/* ---- argv ------------------------------------------------------------- */

char **valgrind_argv(const char *valgrind, enum valgrind_tool tool, const char *out_dir,
		     const char *const *argv)
{
	size_t n = 0, i, k = 0;
	char **out;

	while (argv[n])
		n++;
	out = xcalloc(n + 9, sizeof(*out));
	out[k++] = xstrdup(valgrind);
	switch (tool) {
	case VALGRIND_CACHEGRIND:
		out[k++] = xstrdup("--tool=cachegrind");
		out[k++] = xstrdup("--cache-sim=no");
		out[k++] = xasprintf("--cachegrind-out-file=%s/cg.%%p", out_dir);
		break;
	case VALGRIND_DHAT:
		out[k++] = xstrdup("--tool=dhat");
		out[k++] = xasprintf("--dhat-out-file=%s/dh.%%p", out_dir);
		break;
	}
	out[k++] = xstrdup("--trace-children=yes");
	/* No gdbserver: its FIFOs in TMPDIR outlive a valgrind that is killed
	 * (a timeout, an interrupt). */
	out[k++] = xstrdup("--vgdb=no");
	out[k++] = xasprintf("--log-file=%s/log.%%p", out_dir);
	out[k++] = xstrdup("--"); /* an argv[0] like "-x" is the command */
	for (i = 0; i < n; i++)
		out[k++] = xstrdup(argv[i]);
	out[k] = NULL;
	return out;
}

void valgrind_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* ---- out files -------------------------------------------------------- */

/* The out files lie in a directory the measured code can write: it may put
 * a FIFO, a link to /dev/zero or a huge file there. Each is read under the
 * caps of fsio_capped_open (a regular file, not followed through a link, at
 * most this large), all of one run's within COUNT_READ_NS; lines are read
 * into a bounded buffer. */
#define CACHEGRIND_MAX_BYTES ((size_t)1 << 30)
#define COUNT_MAX_FILES	     100000
#define COUNT_READ_NS	     (60 * (uint64_t)1000000000)

/* Calls fn on every file of dir whose name starts with prefix. */
static int each_file(const char *dir, const char *prefix, const char *tool,
		     int (*fn)(const char *path, uint64_t deadline_ns, struct valgrind_counts *out,
			       struct err *err),
		     struct valgrind_counts *out, struct err *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t deadline_ns = clock_monotonic_ns() + COUNT_READ_NS;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	unsigned files = 0;
	char *path;
	int rc = 0;

	if (!d) {
		int error = errno;
		struct stat st;
		if (fd >= 0)
			close(fd);
		/* O_NOFOLLOW with O_DIRECTORY: a link is ENOTDIR */
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return err_set(err, ERR_METRIC, "cannot read \"%s\": a symbolic link", dir);
		return err_set(err, ERR_METRIC, "cannot read \"%s\": %s", dir, strerror(error));
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (clock_monotonic_ns() > deadline_ns) {
			rc = err_set(err, ERR_METRIC,
				     "cannot read \"%s\": took longer than the time allowed", dir);
			break;
		}
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (files == COUNT_MAX_FILES) {
			rc = err_set(err, ERR_METRIC, "%s wrote more than %d files in \"%s\"", tool,
				     COUNT_MAX_FILES, dir);
			break;
		}
		path = xasprintf("%s/%s", dir, e->d_name);
		rc = fn(path, deadline_ns, out, err);
		free(path);
		files++;
	}
	closedir(d);
	if (rc == 0 && files == 0)
		rc = err_set(err, ERR_METRIC, "%s wrote no output in \"%s\"", tool, dir);
	out->processes += files;
	return rc;
}

/* Parses a run of decimal digits into *v; false on none or overflow. */
static bool parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return true;
}

/* The position of "Ir" among the words after "events:", or -1. */
static int ir_index(const char *events)
{
	int i = 0;
	size_t len;

	for (;;) {
		events += strspn(events, " \t");
		len = strcspn(events, " \t\r\n");
		if (len == 0)
			return -1;
		if (len == 2 && strncmp(events, "Ir", 2) == 0)
			return i;
		events += len;
		i++;
	}
}

/* The index-th number of a summary line's values. */
static bool summary_value(const char *s, int index, uint64_t *v)
{
	for (int i = 0;; i++) {
		s += strspn(s, " \t");
		if (!parse_u64(&s, v))
			return false;
		if (i == index)
			return true;
	}
}

/* cachegrind's file, line by line: only "events:" (which column is Ir) and
 * the first "summary:" matter. A line is kept up to CG_LINE_MAX bytes; a
 * longer one (a command line of many arguments) is skipped unless it is one
 * of those two. */
#define CG_LINE_MAX 4096

struct cg_scan {
	const char *name;
	char line[CG_LINE_MAX + 1];
	size_t len, lineno;
	bool cut, found;
	int ir;
	uint64_t instructions;
	struct err *err;
};

static int cg_line(struct cg_scan *s)
{
	bool events, summary;

	s->line[s->len] = '\0';
	s->lineno++;
	events = strncmp(s->line, "events:", 7) == 0;
	summary = strncmp(s->line, "summary:", 8) == 0;
	if (s->cut && (events || summary))
		return err_set(
			s->err, ERR_METRIC,
			"\"%s\":%zu: malformed cachegrind file (a line longer than %d bytes)",
			s->name, s->lineno, CG_LINE_MAX);
	if (events)
		s->ir = ir_index(s->line + 7);
	if (!summary)
		return 0;
	if (s->ir < 0 || !summary_value(s->line + 8, s->ir, &s->instructions))
		return err_set(s->err, ERR_METRIC,
			       "\"%s\":%zu: malformed cachegrind summary (no Ir count)", s->name,
			       s->lineno);
	s->found = true;
	return 0;
}

/* Feeds bytes; stops (still 0) once the summary is found. */
static int cg_feed(struct cg_scan *s, const char *p, size_t n)
{
	while (n && !s->found) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n, keep = take;
		int rc;

		if (keep > CG_LINE_MAX - s->len) {
			keep = CG_LINE_MAX - s->len;
			s->cut = true;
		}
		memcpy(s->line + s->len, p, keep);
		s->len += keep;
		p += take;
		n -= take;
		if (!nl)
			break;
		if ((rc = cg_line(s)) != 0)
			return rc;
		s->len = 0;
		s->cut = false;
		p++;
		n--;
	}
	return 0;
}

/* The end of the file: a last line without a line break, then the total. */
static int cg_end(struct cg_scan *s, struct valgrind_counts *out)
{
	int rc = s->found || !s->len ? 0 : cg_line(s);

	if (rc)
		return rc;
	if (!s->found)
		return err_set(
			s->err, ERR_METRIC,
			"\"%s\": no summary line (the process did not finish under valgrind)",
			s->name);
	if (__builtin_add_overflow(out->instructions, s->instructions, &out->instructions))
		return err_set(s->err, ERR_METRIC,
			       "\"%s\": malformed cachegrind summary (the total overflows)",
			       s->name);
	return 0;
}

static struct cg_scan *cg_new(const char *name, struct err *err)
{
	struct cg_scan *s = xcalloc(1, sizeof(*s));

	s->name = name;
	s->ir = -1;
	s->err = err;
	return s;
}

int valgrind_parse_cachegrind(const char *name, const char *text, size_t len,
			      struct valgrind_counts *out, struct err *err)
{
	struct cg_scan *s = cg_new(name, err);
	int rc = cg_feed(s, text, len);

	if (rc == 0)
		rc = cg_end(s, out);
	free(s);
	return rc;
}

static int read_cachegrind(const char *path, uint64_t deadline_ns, struct valgrind_counts *out,
			   struct err *err)
{
	struct cg_scan *s = cg_new(path, err);
	struct fsio_capped f;
	char chunk[65536];
	long n = 0;
	int rc = fsio_capped_open(&f, path, CACHEGRIND_MAX_BYTES, deadline_ns, err);

	while (rc == 0 && !s->found && (n = fsio_capped_read(&f, chunk, sizeof(chunk), err)) > 0)
		rc = cg_feed(s, chunk, (size_t)n);
	if (rc == 0 && n < 0)
		rc = ERR_EXEC;
	if (rc == 0)
		rc = cg_end(s, out);
	fsio_capped_close(&f);
	free(s);
	if (rc) /* an out file that cannot be read: unmeasurable */
		err->code = rc = ERR_METRIC;
	return rc;
}

int valgrind_read_instructions(const char *dir, struct valgrind_counts *out, struct err *err)
{
	return each_file(dir, "cg.", "cachegrind", read_cachegrind, out, err);
}

/* ---- DHAT's JSON ------------------------------------------------------ */

/* Where a value sits: only the objects of the top-level "pps" array count. */
enum where { AT_ROOT, AT_PPS, AT_PP, AT_COUNT_TB, AT_COUNT_TBK, ELSEWHERE };

struct scan {
	const char *name, *p, *start, *end;
	unsigned depth;
	bool saw_pps;
	struct valgrind_counts *out;
	struct err *err;
};

static int fail(struct scan *s, const char *what)
{
	return err_set(s->err, ERR_METRIC, "\"%s\": byte %zu: malformed DHAT output: %s", s->name,
		       (size_t)(s->p - s->start), what);
}

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool next_is(struct scan *s, char c)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

/* A string; its first bytes (up to cap - 1, escapes kept as they are) go to
 * key when key is not NULL. */
static int string(struct scan *s, char *key, size_t cap)
{
	size_t n = 0;

	s->p++; /* the opening quote */
	for (; s->p < s->end && *s->p != '"'; s->p++) {
		if ((unsigned char)*s->p < 0x20)
			return fail(s, "control character in a string");
		if (*s->p == '\\' && ++s->p == s->end)
			break;
		if (key && n + 1 < cap)
			key[n++] = *s->p;
	}
	if (s->p == s->end)
		return fail(s, "unterminated string");
	s->p++;
	if (key)
		key[n] = '\0';
	return 0;
}

static int count(struct scan *s, enum where where)
{
	uint64_t v;
	uint64_t *sum = where == AT_COUNT_TB ? &s->out->bytes : &s->out->blocks;
	const char *p = s->p;
	char buf[24];
	size_t n = 0;

	while (p < s->end && *p >= '0' && *p <= '9' && n + 1 < sizeof(buf))
		buf[n++] = *p++;
	buf[n] = '\0';
	p = buf;
	if (!parse_u64(&p, &v) ||
	    (s->p + n < s->end && (!s->p[n] || !strchr(" \t\r\n,}]", s->p[n]))))
		return fail(s, where == AT_COUNT_TB ? "\"tb\" is not a count"
						    : "\"tbk\" is not a count");
	if (__builtin_add_overflow(*sum, v, sum))
		return fail(s, "the total overflows");
	s->p += n;
	return 0;
}

static int value(struct scan *s, enum where where);

static enum where member_where(enum where parent, const char *key)
{
	if (parent == AT_ROOT && strcmp(key, "pps") == 0)
		return AT_PPS;
	if (parent == AT_PP && strcmp(key, "tb") == 0)
		return AT_COUNT_TB;
	if (parent == AT_PP && strcmp(key, "tbk") == 0)
		return AT_COUNT_TBK;
	return ELSEWHERE;
}

static int object(struct scan *s, enum where where)
{
	char key[8];
	int rc;

	s->p++;
	if (next_is(s, '}'))
		return 0;
	do {
		skip_ws(s);
		if (s->p == s->end || *s->p != '"')
			return fail(s, "expected a member name");
		if ((rc = string(s, key, sizeof(key))) != 0)
			return rc;
		if (!next_is(s, ':'))
			return fail(s, "expected ':'");
		if ((rc = value(s, member_where(where, key))) != 0)
			return rc;
	} while (next_is(s, ','));
	return next_is(s, '}') ? 0 : fail(s, "expected ',' or '}'");
}

static int array(struct scan *s, enum where where)
{
	int rc;

	if (where == AT_PPS)
		s->saw_pps = true;
	s->p++;
	if (next_is(s, ']'))
		return 0;
	do {
		if ((rc = value(s, where == AT_PPS ? AT_PP : ELSEWHERE)) != 0)
			return rc;
	} while (next_is(s, ','));
	return next_is(s, ']') ? 0 : fail(s, "expected ',' or ']'");
}

/* Numbers and literals other than the counts: their characters, unchecked. */
static int scalar(struct scan *s)
{
	const char *from = s->p;

	while (s->p < s->end && *s->p && strchr("+-.0123456789Eeaflnrstu", *s->p))
		s->p++;
	return s->p > from ? 0 : fail(s, "unexpected character");
}

static int value(struct scan *s, enum where where)
{
	int rc;

	skip_ws(s);
	if (s->p == s->end)
		return fail(s, "unexpected end");
	if (where == AT_COUNT_TB || where == AT_COUNT_TBK)
		return count(s, where);
	if (where == AT_PPS && *s->p != '[')
		return fail(s, "\"pps\" is not an array");
	if (where == AT_ROOT && *s->p != '{')
		return fail(s, "not an object");
	if (s->depth == DHAT_MAX_DEPTH)
		return fail(s, "nested too deeply");
	s->depth++;
	switch (*s->p) {
	case '{':
		rc = object(s, where);
		break;
	case '[':
		rc = array(s, where);
		break;
	case '"':
		rc = string(s, NULL, 0);
		break;
	default:
		rc = scalar(s);
		break;
	}
	s->depth--;
	return rc;
}

int valgrind_parse_dhat(const char *name, const char *json, size_t len, struct valgrind_counts *out,
			struct err *err)
{
	struct scan s = {
		.name = name,
		.p = json,
		.start = json,
		.end = json + len,
		.out = out,
		.err = err,
	};
	int rc = value(&s, AT_ROOT);

	if (rc != 0)
		return rc;
	skip_ws(&s);
	if (s.p != s.end)
		return fail(&s, "text after the document");
	if (!s.saw_pps)
		return fail(&s, "no \"pps\" array");
	return 0;
}

static int read_dhat(const char *path, uint64_t deadline_ns, struct valgrind_counts *out,
		     struct err *err)
{
	char *json = NULL;
	size_t len = 0;
	int rc = fsio_capped_read_all(path, DHAT_MAX_BYTES, deadline_ns, &json, &len, err);

	if (rc != 0) {
		err->code = ERR_METRIC; /* an out file that cannot be read: unmeasurable */
		return ERR_METRIC;
	}
	rc = valgrind_parse_dhat(path, json, len, out, err);
	free(json);
	return rc;
}

int valgrind_read_heap(const char *dir, struct valgrind_counts *out, struct err *err)
{
	return each_file(dir, "dh.", "DHAT", read_dhat, out, err);
}

/* ---- version ---------------------------------------------------------- */

/* Reads at most cap bytes of fd into out, to the end. */
static void read_all(int fd, struct strbuf *out, size_t cap)
{
	char buf[128];
	ssize_t n;

	while (out->len < cap &&
	       ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			strbuf_add(out, buf, (size_t)n);
}

/* "valgrind-3.19.0\n" -> "3.19.0"; false for anything else. */
static bool parse_version(const char *text, struct strbuf *out)
{
	const char *v = strncmp(text, "valgrind-", 9) == 0 ? text + 9 : NULL;
	size_t len = v ? strspn(v, "0123456789.") : 0;

	if (len == 0 || (v[len] != '\0' && v[len] != '\n' && v[len] != '.' && v[len] != '-'))
		return false;
	strbuf_add(out, v, len);
	return true;
}

int valgrind_version(const char *valgrind, char *const *envp, struct strbuf *out, struct err *err)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)valgrind, (char *)"--version", NULL };
	struct strbuf text = STRBUF_INIT;
	int fds[2], rc = 0, status = 0, e;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return err_set(err, ERR_EXEC, "cannot make a pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	e = posix_spawn(&pid, valgrind, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (e != 0) {
		rc = err_set(err, ERR_METRIC,
			     "valgrind is not available: cannot execute \"%s\": %s", valgrind,
			     strerror(e));
		goto done;
	}
	read_all(fds[0], &text, VERSION_MAX);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parse_version(text.buf, out))
		rc = err_set(err, ERR_METRIC, "\"%s --version\" did not say a valgrind version",
			     valgrind);
done:
	close(fds[0]);
	strbuf_release(&text);
	return rc;
}
