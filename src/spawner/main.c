/*
 * himorime-spawner: the tiny static process that starts measured commands,
 * so that their peak RSS floor is this process's few hundred KiB rather than
 * himorime's many MiB. himorime starts one per invocation with the socket on
 * fd 3 and the cancel socket on fd 4 (proto.h), reads HELLO,
 * then sends requests one at a time: a RUN, answered by one RESULT per run
 * of its batch, or a DUET, answered by one DUET_RESULT.
 *
 * It outlives no one: an end of file on either socket, or
 * SIGTERM (also its parent-death signal, for a himorime killed with SIGKILL),
 * makes it kill whatever it runs, reap it, and exit.
 */
#include "spawner/launch.h"
#include "spawner/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../common/banned.h"

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* The terminal's and a closed socket's signals are blocked, not ignored: a
 * blocked signal stays pending here and is never inherited, so the child has
 * nothing to reset for it inside the measured interval (an ignored one it
 * would have to reset, one system call each). SIGCHLD and SIGIO are blocked
 * for good: a run waits for them (launch_wait_by_signal). SIGTERM is caught,
 * and blocked except while idle. */
static void setup_signals(sigset_t *idle_mask)
{
	static const int blocked[] = { SIGINT,	SIGQUIT, SIGHUP,  SIGPIPE, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGCHLD, SIGIO };
	struct sigaction sa;
	sigset_t block;
	size_t i;

	launch_default_ignored_signals();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	for (i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++)
		sigaddset(&block, blocked[i]);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigprocmask(SIG_BLOCK, NULL, idle_mask);
	sigdelset(idle_mask, SIGTERM);
}

/* Waits while idle for the next request; false when it is time to exit. */
static bool wait_request(struct launch *l, const sigset_t *idle_mask)
{
	struct pollfd pfd[2] = { { .fd = PROTO_SOCKET_FD, .events = POLLIN },
				 { .fd = PROTO_CANCEL_FD, .events = POLLIN } };

	for (;;) {
		if (stopping || l->gone)
			return false;
		if (ppoll(pfd, 2, NULL, idle_mask) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (pfd[1].revents)
			launch_read_cancels(l);
		if (pfd[0].revents)
			return true;
	}
}

/* Runs and answers a RUN: a batch of runs, whose results go back together
 * once the last has ended, so that nothing but the runs happens in between
 * (run.h). False when it is time to exit. */
static bool serve_run(struct launch *l, char *payload, uint32_t len)
{
	static struct run_result res[RUN_MAX_BATCH];
	static unsigned char out[RUN_MAX_BATCH][PROTO_HEADER_SIZE + PROTO_RESULT_SIZE];
	struct run_request req;
	uint32_t run_id, runs, head[2] = { PROTO_RESULT, PROTO_RESULT_SIZE };
	unsigned made, i;
	char **vec = NULL;
	bool ok;

	memset(&req, 0, sizeof(req));
	if (proto_decode_run(payload, len, &run_id, &req, &runs, &vec) != 0)
		return false;
	made = launch_batch(l, run_id, &req, runs, res);
	for (i = 0; i < made; i++) {
		memcpy(out[i], head, sizeof(head));
		proto_encode_result(run_id, &res[i], out[i] + PROTO_HEADER_SIZE);
	}
	ok = proto_write_all(PROTO_SOCKET_FD, out, made * sizeof(out[0])) == 0 && !l->gone;
	free(vec);
	return ok;
}

/* Runs and answers a DUET. False when it is time to exit. */
static bool serve_duet(struct launch *l, char *payload, uint32_t len)
{
	static struct duet_result res;
	static unsigned char out[PROTO_HEADER_SIZE + PROTO_DUET_RESULT_SIZE];
	struct duet_request req;
	uint32_t run_id, head[2] = { PROTO_DUET_RESULT, PROTO_DUET_RESULT_SIZE };
	char **vec[2];
	bool ok;

	if (proto_decode_duet(payload, len, &run_id, &req, vec) != 0)
		return false;
	launch_duet(l, run_id, &req, &res);
	memcpy(out, head, sizeof(head));
	proto_encode_duet_result(run_id, &res, out + PROTO_HEADER_SIZE);
	ok = proto_write_all(PROTO_SOCKET_FD, out, sizeof(out)) == 0 && !l->gone;
	free(vec[0]);
	free(vec[1]);
	return ok;
}

/* Reads, runs and answers one request. False when it is time to exit. */
static bool serve_one(struct launch *l)
{
	uint32_t type, len;
	char *payload;
	bool ok = false;

	if (proto_recv_request(PROTO_SOCKET_FD, &type, &len) < 0)
		return false;
	payload = malloc(len ? len : 1);
	if (payload && proto_read_all(PROTO_SOCKET_FD, payload, len) == 0)
		ok = type == PROTO_DUET ? serve_duet(l, payload, len) : serve_run(l, payload, len);
	free(payload);
	return ok;
}

int main(int argc, char **argv)
{
	uint32_t hello[2] = { PROTO_VERSION, (uint32_t)getpid() };
	struct launch l;
	sigset_t idle_mask;

	(void)argv;
	if (argc != 1 || fcntl(PROTO_SOCKET_FD, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(PROTO_CANCEL_FD, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(PROTO_CANCEL_FD, F_SETFL, O_NONBLOCK) < 0)
		return 2; /* not started by himorime */
	setup_signals(&idle_mask);
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (launch_init(&l, PROTO_CANCEL_FD, PROTO_SOCKET_FD, SIGTERM, &stopping) != 0)
		return 2;
	launch_fix_signals(&l);
	launch_keep_cpu(&l);
	launch_wait_by_signal(&l); /* on failure the runs wait with ppoll */
	if (proto_send(PROTO_SOCKET_FD, PROTO_HELLO, hello, sizeof(hello)) == 0)
		while (wait_request(&l, &idle_mask) && serve_one(&l))
			;
	launch_sweep();
	return 0;
}
