/*
 * Terminal mode of a run (see terminal.h): a pseudo-terminal is the
 * command's three streams, its output is copied out, and the keys are typed
 * one at a time, each when the program is blocked reading.
 */
#include "spawner/terminal.h"
#include "spawner/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "../common/banned.h"

#define TYPED_INPUT_MAX (1u << 20) /* at most 1 MiB of keys */
#define TREE_MAX	64	   /* processes checked for readiness */
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Reads the keys to type; returns 0 or an errno value. */
int terminal_read_keys(const char *path, struct typist *ty)
{
	struct stat st;
	ssize_t n;
	int fd;

	ty->keys = NULL;
	ty->len = ty->pos = 0;
	if (!path)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return EINVAL;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > TYPED_INPUT_MAX) {
		close(fd);
		return EFBIG;
	}
	ty->keys = malloc((size_t)st.st_size + 1);
	if (!ty->keys) {
		close(fd);
		return ENOMEM;
	}
	while (ty->len < (size_t)st.st_size) {
		n = read(fd, ty->keys + ty->len, (size_t)st.st_size - ty->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ty->len += (size_t)n;
	}
	close(fd);
	return 0;
}

/* Opens an 80x24 pseudo-terminal; returns 0 or an errno value. */
int terminal_open(struct typist *ty)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	char name[128];
	int fd;

	ty->master = ty->slave = -1;
	fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ty->master = fd;
	if (grantpt(fd) < 0 || unlockpt(fd) < 0 || ptsname_r(fd, name, sizeof(name)) != 0)
		return errno ? errno : EIO;
	ty->slave = files_open_high(name, O_RDWR | O_NOCTTY, 0);
	if (ty->slave < 0)
		return errno;
	if (ioctl(ty->slave, TIOCSWINSZ, &ws) < 0)
		return errno;
	if (fcntl(ty->master, F_SETFL, O_NONBLOCK) < 0)
		return errno;
	return 0;
}

/* Copies whatever the terminal has written to the stdout destination. */
void terminal_drain(struct typist *ty)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(ty->master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (write(ty->out, buf, (size_t)n) < 0) {
			/* a full disk loses terminal output, not the measurement */
		}
	}
}

/* Adds pid and its descendants (breadth first) to tree. */
static size_t collect_tree(pid_t pid, pid_t *tree, size_t cap)
{
	char path[64];
	size_t n = 0, i;

	tree[n++] = pid;
	for (i = 0; i < n && n < cap; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)tree[i],
			 (int)tree[i]);
		n = files_read_children(path, tree, n, cap);
	}
	return n;
}

static bool is_read_syscall(long nr)
{
	static const long reads[] = {
		SYS_read,	SYS_readv, SYS_pread64, SYS_ppoll, SYS_pselect6, SYS_epoll_pwait,
#ifdef SYS_poll
		SYS_poll,
#endif
#ifdef SYS_select
		SYS_select,
#endif
#ifdef SYS_epoll_wait
		SYS_epoll_wait,
#endif
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(reads); i++)
		if (reads[i] == nr)
			return true;
	return false;
}

/* Whether any process of the tree is blocked in a read-like system call, and
 * the sum of the read calls the tree has completed (/proc/PID/io syscr). */
static bool tree_reading(pid_t pid, uint64_t *reads)
{
	pid_t tree[TREE_MAX];
	char path[64], buf[1024];
	size_t n = collect_tree(pid, tree, TREE_MAX), i;
	bool blocked = false;
	const char *p;

	*reads = 0;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/io", (int)tree[i]);
		if (files_read_small(path, buf, sizeof(buf)) > 0 && (p = strstr(buf, "syscr:")))
			*reads += strtoull(p + 6, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tree[i]);
		if (files_read_small(path, buf, sizeof(buf)) > 0 && buf[0] >= '0' &&
		    buf[0] <= '9' && is_read_syscall(strtol(buf, NULL, 10)))
			blocked = true;
	}
	return blocked;
}

/* In canonical mode the program cannot read a key before its line ends, so
 * the keys of a line are typed without waiting for reads. */
static bool line_buffered(int slave, unsigned char c)
{
	struct termios t;

	if (tcgetattr(slave, &t) < 0 || !(t.c_lflag & ICANON))
		return false;
	return c != '\n' && c != '\r' && c != t.c_cc[VEOF] && c != t.c_cc[VEOL] &&
	       c != t.c_cc[VEOL2];
}

/* Types the next key when the program has read the previous one and is
 * blocked reading again with nothing left in its input queue. */
void terminal_type_key(struct typist *ty, pid_t pid)
{
	uint64_t reads;
	int queued = 0;
	size_t len = 1;
	unsigned char c;

	if (ty->pos >= ty->len)
		return;
	if (ioctl(ty->slave, FIONREAD, &queued) < 0 || queued > 0)
		return;
	if (!tree_reading(pid, &reads))
		return;
	if (ty->waiting_for_read && reads == ty->reads_at_key)
		return;
	c = (unsigned char)ty->keys[ty->pos];
	if (c >= 0xc0) /* a UTF-8 lead byte: the character is one key */
		while (ty->pos + len < ty->len && len < 4 &&
		       ((unsigned char)ty->keys[ty->pos + len] & 0xc0) == 0x80)
			len++;
	if (write(ty->master, ty->keys + ty->pos, len) == (ssize_t)len) {
		ty->pos += len;
		ty->waiting_for_read = !line_buffered(ty->slave, c);
		ty->reads_at_key = reads;
	}
}
