/*
 * The measuring client: starts the spawner, speaks its protocol (see
 * spawner/proto.h), and falls back to the same engine in-process when the
 * spawner cannot start. See measure.h.
 */
#include "measure/measure.h"

#include "common/alloc.h"
#include "common/fsio.h"
#include "measure/helper.h"
#include "spawner/launch.h"
#include "spawner/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/banned.h"

#define HELLO_TIMEOUT_MS 10000
#define TAIL_BYTES	 (64 * 1024)

extern char **environ;

struct measurer {
	bool spawner;
	pid_t spawner_pid;
	int sock;      /* the request socket (spawner mode) */
	int cancel_tx; /* measurer_cancel sends run ids here */
	int cancel_rx; /* the in-process engine's end (fallback mode) */
	struct launch launch;
	volatile sig_atomic_t current_id;
	uint32_t next_id;
	char *fallback_reason;
	/* valgrind, found once when the measurer starts, before anything of
	 * the suite runs (helper.h); NULL with the reason in valgrind_why. */
	char *valgrind, *valgrind_why;
};

/* strerror, lower-cased for our one-line messages. */
static void errno_text(int error, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", strerror(error));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Waits for HELLO; returns 0, or -1 with the reason in *reason. */
static int await_hello(struct measurer *m, char **reason)
{
	struct pollfd pfd = { .fd = m->sock, .events = POLLIN };
	uint32_t hello[2], len;
	char msg[128];
	int r;

	do {
		r = poll(&pfd, 1, HELLO_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR);
	if (r == 0) {
		*reason = xasprintf("it did not answer within %d seconds", HELLO_TIMEOUT_MS / 1000);
		return -1;
	}
	if (r < 0 || proto_recv_header(m->sock, PROTO_HELLO, &len) < 0 || len != PROTO_HELLO_SIZE ||
	    proto_read_all(m->sock, hello, sizeof(hello)) < 0) {
		if (errno == 0)
			*reason = xstrdup("it exited before answering");
		else {
			errno_text(errno, msg, sizeof(msg));
			*reason = xasprintf("it did not answer: %s", msg);
		}
		return -1;
	}
	if (hello[0] != PROTO_VERSION) {
		*reason = xasprintf("it speaks protocol %u, this himorime %u", hello[0],
				    PROTO_VERSION);
		return -1;
	}
	return 0;
}

/* Starts the spawner with the socket on fd 3 and the cancel socket on fd 4.
 * Returns 0, or -1 with the reason in *reason. */
static int start_spawner(struct measurer *m, const char *path, char **reason)
{
	char *const argv[] = { (char *)path, NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int req[2] = { -1, -1 }, cancel[2] = { -1, -1 }, kid_req = -1, kid_cancel = -1;
	int error = 0, status;
	char msg[128];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cancel) < 0) {
		error = errno;
		goto done;
	}
	/* Above 4, so that the dup2 onto 3 and 4 never meets its own source. */
	kid_req = fcntl(req[1], F_DUPFD_CLOEXEC, 10);
	kid_cancel = fcntl(cancel[1], F_DUPFD_CLOEXEC, 10);
	if (kid_req < 0 || kid_cancel < 0) {
		error = errno;
		goto done;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, kid_req, PROTO_SOCKET_FD);
	posix_spawn_file_actions_adddup2(&fa, kid_cancel, PROTO_CANCEL_FD);
	posix_spawn_file_actions_addclosefrom_np(&fa, PROTO_CANCEL_FD + 1);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	/* Its own process group: a terminal's ^C goes to himorime, which cancels. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETPGROUP);
	error = posix_spawn(&m->spawner_pid, path, &fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (error) {
		m->spawner_pid = -1;
		goto done;
	}
	m->sock = req[0];
	m->cancel_tx = cancel[0];
	req[0] = cancel[0] = -1;
done:
	close_fd(&kid_req);
	close_fd(&kid_cancel);
	close_fd(&req[0]);
	close_fd(&req[1]);
	close_fd(&cancel[0]);
	close_fd(&cancel[1]);
	if (error) {
		errno_text(error, msg, sizeof(msg));
		*reason = xasprintf("cannot execute \"%s\": %s", path, msg);
		return -1;
	}
	if (await_hello(m, reason) < 0) {
		close_fd(&m->sock);
		close_fd(&m->cancel_tx);
		kill(m->spawner_pid, SIGKILL);
		while (waitpid(m->spawner_pid, &status, 0) < 0 && errno == EINTR)
			;
		m->spawner_pid = -1;
		return -1;
	}
	return 0;
}

static int start_in_process(struct measurer *m, struct err *err)
{
	int pair[2];
	int error;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) < 0)
		return err_set(err, ERR_EXEC, "cannot create the cancel socket: %s",
			       strerror(errno));
	m->cancel_tx = pair[0];
	m->cancel_rx = pair[1];
	error = launch_init(&m->launch, m->cancel_rx, -1, 0, NULL);
	if (error)
		return err_set(err, ERR_EXEC, "cannot become a child subreaper: %s",
			       strerror(error));
	return 0;
}

/* The helper programs the measurer may run itself, found now: nothing of the
 * suite has run yet, so nothing of the pull request's can be in the way. */
static void find_helpers(struct measurer *m)
{
	struct err err = ERR_INIT;

	if (helper_find("valgrind", getenv("PATH"), &m->valgrind, &err) < 0)
		m->valgrind_why = xasprintf("valgrind is not available: %s", err.msg);
}

int measurer_new(const struct measurer_options *opts, struct measurer **out, struct err *err)
{
	struct measurer *m = xcalloc(1, sizeof(*m));
	char *reason = NULL;
	int ret;

	m->spawner_pid = -1;
	m->sock = m->cancel_tx = m->cancel_rx = -1;
	*out = NULL;
	if (opts->use_spawner) {
		if (!opts->spawner_path)
			reason = xstrdup("no spawner path was given");
		else if (start_spawner(m, opts->spawner_path, &reason) == 0)
			m->spawner = true;
	}
	find_helpers(m);
	if (!m->spawner) {
		m->fallback_reason = reason;
		ret = start_in_process(m, err);
		if (ret) {
			measurer_free(m);
			return ret;
		}
	}
	*out = m;
	return 0;
}

void measurer_free(struct measurer *m)
{
	int status;

	if (!m)
		return;
	close_fd(&m->sock);
	close_fd(&m->cancel_tx);
	close_fd(&m->cancel_rx);
	launch_release(&m->launch);
	if (m->spawner_pid > 0)
		while (waitpid(m->spawner_pid, &status, 0) < 0 && errno == EINTR)
			;
	free(m->fallback_reason);
	free(m->valgrind);
	free(m->valgrind_why);
	free(m);
}

bool measurer_uses_spawner(const struct measurer *m)
{
	return m->spawner;
}

const char *measurer_fallback_reason(const struct measurer *m)
{
	return m->fallback_reason;
}

const char *measurer_valgrind(const struct measurer *m, const char **why)
{
	*why = m->valgrind_why;
	return m->valgrind;
}

void measurer_cancel(struct measurer *m)
{
	uint32_t id = (uint32_t)m->current_id;
	pid_t group = m->spawner ? 0 : (pid_t)m->launch.running_pgid;
	pid_t twin = m->spawner ? 0 : (pid_t)m->launch.running_twin_pgid;
	int saved = errno;

	if (m->cancel_tx >= 0 && id)
		send(m->cancel_tx, &id, sizeof(id), MSG_NOSIGNAL | MSG_DONTWAIT);
	/* In-process, kill the groups at once too: if himorime exits right
	 * after (a second signal), no spawner remains to do it. The cancel is
	 * sent first, so the run still ends as interrupted. */
	if (group > 0)
		kill(-group, SIGKILL);
	if (twin > 0)
		kill(-twin, SIGKILL);
	errno = saved;
}

/* A path the spawner can open whatever its current directory: relative
 * paths are taken from himorime's. NULL stays NULL. */
static char *absolute(const char *path, const char *cwd)
{
	if (!path)
		return NULL;
	if (path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

static int run_in_spawner(struct measurer *m, uint32_t id, const struct run_request *req,
			  unsigned runs, struct run_result *res, struct err *err)
{
	unsigned char in[PROTO_RESULT_SIZE];
	uint32_t len, got_id;
	unsigned made = 0;
	size_t size;
	char *payload;
	int error;

	error = proto_encode_run(id, req, runs, &payload, &size);
	if (error == E2BIG)
		return err_set(err, ERR_INVALID,
			       "command \"%s\": arguments and environment are too large",
			       req->argv[0]);
	if (proto_send(m->sock, PROTO_RUN, payload, size) < 0) {
		free(payload);
		return err_set(err, ERR_EXEC, "the spawner stopped answering: %s", strerror(errno));
	}
	free(payload);
	/* The spawner ends a batch by the rule this loop applies (run.h). */
	do {
		if (proto_recv_header(m->sock, PROTO_RESULT, &len) < 0 ||
		    len != PROTO_RESULT_SIZE || proto_read_all(m->sock, in, sizeof(in)) < 0)
			return err_set(err, ERR_EXEC, "the spawner stopped answering: %s",
				       errno ? strerror(errno) : "it exited");
		if (proto_decode_result(in, &got_id, &res[made]) != 0 || got_id != id)
			return err_set(err, ERR_EXEC, "the spawner sent a malformed result");
	} while (++made < runs && !run_result_ends_batch(&res[made - 1]));
	return (int)made;
}

/* A request whose paths the spawner can open whatever its current
 * directory, and with an environment: what measurer_run and measurer_duet
 * send. The copies of the paths are freed by release_absolute. */
struct absolute_request {
	struct run_request req;
	char *paths[4];
};

static void make_absolute(const struct run_request *req, const char *cwd,
			  struct absolute_request *abs)
{
	abs->req = *req;
	abs->req.cwd = abs->paths[0] = absolute(req->cwd, cwd);
	abs->req.stdin_path = abs->paths[1] = absolute(req->stdin_path, cwd);
	abs->req.stdout_path = abs->paths[2] = absolute(req->stdout_path, cwd);
	abs->req.stderr_path = abs->paths[3] = absolute(req->stderr_path, cwd);
	if (!abs->req.envp)
		abs->req.envp = environ;
}

static void release_absolute(struct absolute_request *abs)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(abs->paths); i++)
		free(abs->paths[i]);
}

/* The id of the next run, never 0, and the one a cancel now names. */
static uint32_t next_run_id(struct measurer *m)
{
	uint32_t id = ++m->next_id & 0x7fffffff;

	if (!id)
		id = m->next_id = 1;
	m->current_id = (sig_atomic_t)id;
	return id;
}

int measurer_run(struct measurer *m, const struct run_request *req, unsigned runs,
		 struct run_result *res, struct err *err)
{
	struct absolute_request abs;
	char *cwd = NULL;
	uint32_t id;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!req->argv || !req->argv[0] || !req->argv[0][0])
		return err_set(err, ERR_INVALID, "a command needs a program to run");
	if (runs < 1 || runs > RUN_MAX_BATCH)
		return err_set(err, ERR_INVALID, "a batch is 1 to %u runs, not %u", RUN_MAX_BATCH,
			       runs);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return err_set(err, ERR_EXEC, "cannot read the current directory: %s",
			       strerror(errno));
	make_absolute(req, cwd, &abs);
	id = next_run_id(m);
	if (m->spawner)
		ret = run_in_spawner(m, id, &abs.req, runs, res, err);
	else
		ret = (int)launch_batch(&m->launch, id, &abs.req, runs, res);
	free(cwd);
	release_absolute(&abs);
	return ret;
}

int measurer_duet_cpus(int cpu[2], struct err *err)
{
	cpu_set_t set;
	int i, n = 0, only = -1;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return err_set(err, ERR_EXEC, "cannot read the CPUs himorime may use: %s",
			       strerror(errno));
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set)) {
			only = i;
			cpu[n++] = i;
		}
	if (n < 2)
		return err_set(err, ERR_INVALID,
			       "duet runs need two CPUs, and himorime may use only CPU %d (its "
			       "affinity mask): use the interleaved schedule",
			       only);
	return 0;
}

static bool same_path(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* What measurer_duet refuses, before anything is sent or started. */
static int check_duet(const struct duet_request *req, const struct absolute_request abs[2],
		      struct err *err)
{
	cpu_set_t set;
	int i;

	for (i = 0; i < 2; i++) {
		if (!req->side[i].argv || !req->side[i].argv[0] || !req->side[i].argv[0][0])
			return err_set(err, ERR_INVALID, "a command needs a program to run");
		if (req->side[i].terminal)
			return err_set(err, ERR_INVALID,
				       "command \"%s\" runs on a terminal (terminal: true), which "
				       "a duet run cannot give both sides: use the interleaved "
				       "schedule",
				       req->side[i].argv[0]);
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 2)
		return measurer_duet_cpus((int[2]){ 0, 0 }, err);
	for (i = 0; i < 2; i++)
		if (req->cpu[i] < 0 || req->cpu[i] >= CPU_SETSIZE || !CPU_ISSET(req->cpu[i], &set))
			return err_set(err, ERR_INVALID,
				       "a duet run cannot use CPU %d: himorime may not run there",
				       req->cpu[i]);
	if (req->cpu[0] == req->cpu[1])
		return err_set(err, ERR_INVALID,
			       "a duet run needs two CPUs, not CPU %d for both sides", req->cpu[0]);
	if (same_path(abs[0].req.stdout_path, abs[1].req.stdout_path) ||
	    same_path(abs[0].req.stderr_path, abs[1].req.stderr_path))
		return err_set(err, ERR_INVALID,
			       "both sides of a duet run write to \"%s\": each needs its own file",
			       same_path(abs[0].req.stdout_path, abs[1].req.stdout_path)
				       ? abs[0].req.stdout_path
				       : abs[0].req.stderr_path);
	return 0;
}

static int duet_in_spawner(struct measurer *m, uint32_t id, const struct duet_request *req,
			   struct duet_result *res, struct err *err)
{
	unsigned char in[PROTO_DUET_RESULT_SIZE];
	uint32_t len, got_id;
	size_t size;
	char *payload;
	int error;

	error = proto_encode_duet(id, req, &payload, &size);
	if (error == E2BIG)
		return err_set(err, ERR_INVALID,
			       "commands \"%s\" and \"%s\": arguments and environments are too "
			       "large",
			       req->side[0].argv[0], req->side[1].argv[0]);
	if (error || proto_send(m->sock, PROTO_DUET, payload, size) < 0) {
		free(payload);
		return err_set(err, ERR_EXEC, "the spawner stopped answering: %s",
			       strerror(error ? error : errno));
	}
	free(payload);
	if (proto_recv_header(m->sock, PROTO_DUET_RESULT, &len) < 0 ||
	    len != PROTO_DUET_RESULT_SIZE || proto_read_all(m->sock, in, sizeof(in)) < 0)
		return err_set(err, ERR_EXEC, "the spawner stopped answering: %s",
			       errno ? strerror(errno) : "it exited");
	if (proto_decode_duet_result(in, &got_id, res) != 0 || got_id != id)
		return err_set(err, ERR_EXEC, "the spawner sent a malformed result");
	return 0;
}

int measurer_duet(struct measurer *m, const struct duet_request *req, struct duet_result *res,
		  struct err *err)
{
	struct absolute_request abs[2];
	struct duet_request sent = *req;
	char *cwd = NULL;
	uint32_t id;
	int ret, i;

	memset(res, 0, sizeof(*res));
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return err_set(err, ERR_EXEC, "cannot read the current directory: %s",
			       strerror(errno));
	for (i = 0; i < 2; i++) {
		make_absolute(&req->side[i], cwd, &abs[i]);
		sent.side[i] = abs[i].req;
	}
	free(cwd);
	ret = check_duet(req, abs, err);
	if (ret == 0) {
		id = next_run_id(m);
		if (m->spawner)
			ret = duet_in_spawner(m, id, &sent, res, err);
		else
			launch_duet(&m->launch, id, &sent, res);
	}
	for (i = 0; i < 2; i++)
		release_absolute(&abs[i]);
	return ret;
}

/* EINVAL from the starter's check at the open: the file is there but is no
 * regular file; what it is, from a stat now, makes the message clear. */
static void describe_stdin_failure(const struct run_request *req, int code, const char *msg,
				   struct strbuf *out)
{
	const char *path = req->stdin_path ? req->stdin_path : "/dev/null";
	struct stat st;

	if (code == EINVAL && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		strbuf_addf(out, "could not open stdin \"%s\": not a regular file (%s)", path,
			    fsio_kind_name(st.st_mode));
	else
		strbuf_addf(out, "could not open stdin \"%s\": %s", path, msg);
}

char *run_request_program(const struct run_request *req)
{
	char path[LAUNCH_PATH_CAP];

	if (!req->argv || !req->argv[0] || launch_resolve_program(req, path) != 0)
		return NULL;
	return xstrdup(path);
}

static void describe_start_failure(const struct run_request *req, const struct run_result *res,
				   struct strbuf *out)
{
	const char *prog = req->argv[0];
	char msg[128];

	errno_text(res->code, msg, sizeof(msg));
	switch (res->step) {
	case STEP_NONE:
	case STEP_START:
		strbuf_addf(out, "could not start \"%s\": %s", prog, msg);
		return;
	case STEP_LOOKUP:
		if (res->code == ENOENT && !strchr(prog, '/'))
			strbuf_addf(out, "could not start \"%s\": not found in the command's PATH",
				    prog);
		else
			strbuf_addf(out, "could not start \"%s\": %s", prog, msg);
		return;
	case STEP_STDIN:
		describe_stdin_failure(req, res->code, msg, out);
		return;
	case STEP_STDOUT:
		strbuf_addf(out, "could not create stdout \"%s\": %s",
			    req->stdout_path ? req->stdout_path : "/dev/null", msg);
		return;
	case STEP_STDERR:
		strbuf_addf(out, "could not create stderr \"%s\": %s",
			    req->stderr_path ? req->stderr_path : "/dev/null", msg);
		return;
	case STEP_TERMINAL:
		strbuf_addf(out, "could not set up a pseudo-terminal: %s", msg);
		return;
	case STEP_CHDIR:
		strbuf_addf(out, "could not change to \"%s\": %s", req->cwd ? req->cwd : ".", msg);
		return;
	case STEP_EXEC:
		strbuf_addf(out, "could not execute \"%s\": %s", prog, msg);
		return;
	}
}

void run_result_describe(const struct run_request *req, const struct run_result *res,
			 struct strbuf *out)
{
	const char *abbrev;

	switch (res->status) {
	case RUN_EXITED:
		strbuf_addf(out, "exited with code %d", res->code);
		return;
	case RUN_SIGNALED:
		abbrev = sigabbrev_np(res->code);
		strbuf_addf(out, "killed by signal %d (SIG%s)", res->code, abbrev ? abbrev : "?");
		return;
	case RUN_TIMED_OUT:
		strbuf_addf(out, "timed out after %.3gs", (double)req->timeout_ns / 1e9);
		return;
	case RUN_START_FAILED:
		describe_start_failure(req, res, out);
		return;
	case RUN_INTERRUPTED:
		strbuf_adds(out, "interrupted");
		return;
	}
}

void duet_result_describe(const struct duet_request *req, const struct duet_result *res, int i,
			  struct strbuf *out)
{
	const struct run_result *twin = &res->side[1 - i];

	if (!res->stopped_by_twin[i]) {
		run_result_describe(&req->side[i], &res->side[i], out);
		return;
	}
	strbuf_adds(out, "stopped: the other side ");
	run_result_describe(&req->side[1 - i], twin, out);
}

int run_output_tail(const char *path, size_t max_lines, struct strbuf *out, struct err *err)
{
	char buf[TAIL_BYTES];
	const char *start;
	ssize_t n;
	size_t len = 0, lines = 0;
	off_t size;
	struct stat st;
	/* The measured command can put a FIFO in its stderr file's place:
	 * opened without blocking, and only when regular. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		errno_text(errno, buf, 128);
		return err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, buf);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, ERR_EXEC, "cannot read \"%s\": not a regular file", path);
	}
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf))
		lseek(fd, size - (off_t)sizeof(buf), SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	close(fd);
	/* Walk back over max_lines line ends, not counting a final one. */
	start = buf + len;
	if (start > buf && start[-1] == '\n')
		start--;
	while (start > buf && lines < max_lines) {
		start--;
		if (*start == '\n' && ++lines == max_lines) {
			start++;
			break;
		}
	}
	if (max_lines == 0)
		start = buf + len;
	strbuf_add(out, start, (size_t)(buf + len - start));
	return 0;
}
