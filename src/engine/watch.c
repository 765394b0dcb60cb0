/*
 * Signs of life from a long build (docs/revisions.md#builds). A build
 * step runs through the measurer, which holds the engine's thread until the
 * step ends: a jq build took 11 minutes in which a CI log showed nothing. So
 * while a build runs, a second thread wakes every tick, reads the last
 * non-empty line of whichever of the build's stdout and stderr files was
 * written last, and hands it to the options' build_line. The thread only
 * reads those two files: it starts nothing (runs come from the main thread,
 * measure.h) and blocks every signal, which stay the main thread's, whose
 * handler interrupts the build.
 */
#include "engine/internal.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/strbuf.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/banned.h"

/* What a tick reads of a file, and shows of its last line. */
#define TAIL_BYTES 4096
#define LINE_BYTES 200

struct watch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop; /* under lock */
	struct runner *r;
	char *label;
	char *paths[2];
	uint64_t started_ns;
};

/* The last non-empty line of buf[0..n) (what follows its last carriage
 * return: a progress bar redrawn in place shows its last state), trimmed
 * and at most LINE_BYTES long. */
static void last_line_of(const char *buf, size_t n, struct strbuf *out)
{
	size_t end = n, start;

	for (;;) {
		while (end > 0 && strchr(" \t\r\n", buf[end - 1]))
			end--;
		if (end == 0)
			return;
		start = end;
		while (start > 0 && buf[start - 1] != '\n' && buf[start - 1] != '\r')
			start--;
		while (start < end && strchr(" \t", buf[start]))
			start++;
		if (start < end)
			break;
	}
	strbuf_add(out, buf + start, end - start < LINE_BYTES ? end - start : LINE_BYTES);
}

/* The newer of the two files that has something in it, by modification
 * time; its last line into out. */
static void newest_line(const struct watch *w, struct strbuf *out)
{
	struct stat st, best_st;
	char buf[TAIL_BYTES];
	ssize_t got;
	int i, best = -1, fd;

	for (i = 0; i < 2; i++) {
		if (!w->paths[i] || stat(w->paths[i], &st) < 0 || st.st_size == 0)
			continue;
		if (best < 0 || st.st_mtim.tv_sec > best_st.st_mtim.tv_sec ||
		    (st.st_mtim.tv_sec == best_st.st_mtim.tv_sec &&
		     st.st_mtim.tv_nsec > best_st.st_mtim.tv_nsec)) {
			best = i;
			best_st = st;
		}
	}
	if (best < 0)
		return;
	fd = open(w->paths[best], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	got = pread(fd, buf, sizeof(buf),
		    best_st.st_size > TAIL_BYTES ? best_st.st_size - TAIL_BYTES : 0);
	close(fd);
	if (got > 0)
		last_line_of(buf, (size_t)got, out);
}

static void tick(struct watch *w, uint64_t now_ns)
{
	struct strbuf line;

	strbuf_init(&line, 0);
	newest_line(w, &line);
	engine_build_line(w->r, "%s running for %llu s; last output: %s", w->label,
			  (unsigned long long)((now_ns - w->started_ns) / UINT64_C(1000000000)),
			  line.len ? line.buf : "(none yet)");
	strbuf_release(&line);
}

static struct timespec at_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / UINT64_C(1000000000)),
			       .tv_nsec = (long)(ns % UINT64_C(1000000000)) };
	return ts;
}

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	uint64_t next = w->started_ns + w->r->o.build_tick_ns;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec until = at_ns(next);
		if (pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0 || w->stop)
			continue;
		if (clock_monotonic_ns() < next)
			continue;
		pthread_mutex_unlock(&w->lock);
		tick(w, clock_monotonic_ns());
		next += w->r->o.build_tick_ns;
		if (next <= clock_monotonic_ns()) /* a tick that took longer than a tick */
			next = clock_monotonic_ns() + w->r->o.build_tick_ns;
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void watch_free(struct watch *w)
{
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w->label);
	free(w->paths[0]);
	free(w->paths[1]);
	free(w);
}

/* A condition variable on CLOCK_MONOTONIC, the engine's clock. */
static int init_sync(struct watch *w)
{
	pthread_condattr_t attr;
	int rc;

	if (pthread_mutex_init(&w->lock, NULL))
		return -1;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (rc)
		pthread_mutex_destroy(&w->lock);
	return rc ? -1 : 0;
}

struct watch *watch_start(struct runner *r, const char *label, const char *out, const char *err)
{
	struct watch *w;
	sigset_t all, old;
	int rc;

	if (!r->o.build_line || !r->o.build_tick_ns)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	if (init_sync(w) < 0) {
		free(w);
		return NULL;
	}
	w->r = r;
	w->label = xstrdup(label);
	w->paths[0] = out ? xstrdup(out) : NULL;
	w->paths[1] = err ? xstrdup(err) : NULL;
	w->started_ns = clock_monotonic_ns();
	/* The thread inherits this mask: every signal blocked there. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		watch_free(w);
		return NULL;
	}
	return w;
}

void watch_stop(struct watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	watch_free(w);
}
