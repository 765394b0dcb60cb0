/*
 * The engine's clock, the phases it times and its progress and build lines, which
 * every part of the engine uses: here, below them all, so that rounds and
 * sides need not reach back up into the runner.
 */
#include "engine/internal.h"

#include "common/clock.h"
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdint.h>

#include "common/banned.h"

uint64_t engine_phase(struct results *doc, enum results_phase p, uint64_t since_ns)
{
	uint64_t now = clock_monotonic_ns();

	doc->timings.phase_ns[p] += now - since_ns;
	return now;
}

void engine_progress(struct runner *r, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	if (!r->o.progress)
		return;
	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	r->o.progress(r->o.progress_ctx, sb.buf);
	strbuf_release(&sb);
}

void engine_build_line(struct runner *r, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	if (!r->o.build_line)
		return;
	strbuf_init(&sb, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	r->o.build_line(r->o.progress_ctx, sb.buf);
	strbuf_release(&sb);
}

uint64_t engine_clock_ns(const struct runner *r)
{
	return r->m.now_ns ? r->m.now_ns(r->m.ctx) : clock_monotonic_ns();
}

static void send(void (*to)(void *, const char *), void *ctx, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void send(void (*to)(void *, const char *), void *ctx, const char *fmt, va_list ap)
{
	struct strbuf sb;

	if (!to)
		return;
	strbuf_init(&sb, 0);
	strbuf_vaddf(&sb, fmt, ap);
	to(ctx, sb.buf);
	strbuf_release(&sb);
}

void engine_log(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send(r->o.look_line, r->o.progress_ctx, fmt, ap);
	va_end(ap);
}

void engine_warn(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send(r->o.warning, r->o.progress_ctx, fmt, ap);
	va_end(ap);
}
