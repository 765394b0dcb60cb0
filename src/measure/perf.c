/*
 * Probing the hardware counter of instructions (see perf.h). Linux only;
 * glibc has no wrapper for perf_event_open, so it is a raw system call.
 */
#include "measure/perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROBE_LOOPS 100000

/* The counter as the spawner opens it: user space only, children included. */
static void instructions_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = 1;
}

/* Why the counter did not open, in words a user can act on. */
static const char *hint(int e)
{
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
		return " (no hardware counters here: a virtual machine?)";
	case EACCES:
	case EPERM:
		return " (not allowed: see /proc/sys/kernel/perf_event_paranoid)";
	case ENOSYS:
		return " (the kernel has no perf events)";
	default:
		return "";
	}
}

int perf_probe_instructions(uint64_t *counted, struct err *err)
{
	struct perf_event_attr attr;
	volatile unsigned long acc = 0;
	uint64_t value = 0;
	long fd;
	int rc = 0;

	instructions_attr(&attr);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return err_set(err, ERR_METRIC,
			       "the instructions counter is not available: perf_event_open: %s%s",
			       strerror(errno), hint(errno));
	ioctl((int)fd, PERF_EVENT_IOC_RESET, 0);
	ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned long i = 0; i < PROBE_LOOPS; i++)
		acc += i;
	ioctl((int)fd, PERF_EVENT_IOC_DISABLE, 0);
	(void)acc;
	if (read((int)fd, &value, sizeof(value)) != (ssize_t)sizeof(value))
		rc = err_set(err, ERR_METRIC,
			     "the instructions counter is not available: it cannot be read");
	else if (value == 0)
		rc = err_set(
			err, ERR_METRIC,
			"the instructions counter is not available: it opens but counts nothing");
	close((int)fd);
	*counted = value;
	return rc;
}

void perf_request_instructions(struct run_request *req)
{
	req->count = true;
	req->count_type = PERF_TYPE_HARDWARE;
	req->count_config = PERF_COUNT_HW_INSTRUCTIONS;
}

int perf_run_instructions(const struct run_result *res, uint64_t *count, struct err *err)
{
	*count = 0;
	switch (res->count_status) {
	case COUNT_OK:
		break;
	case COUNT_OPEN_FAILED:
		return err_set(err, ERR_METRIC,
			       "the instructions counter did not open for a run: perf_event_open: "
			       "%s%s",
			       strerror(res->count_error), hint(res->count_error));
	case COUNT_READ_FAILED:
		return err_set(err, ERR_METRIC,
			       "the instructions counter could not be read after a run: %s",
			       res->count_error ? strerror(res->count_error) : "a short read");
	case COUNT_NONE:
		return err_set(err, ERR_METRIC, "a run returned no count of instructions");
	}
	if (res->count_enabled_ns > 0 && res->count_running_ns == 0)
		return err_set(err, ERR_METRIC,
			       "the instructions counter never ran: other events held the hardware "
			       "counters for the whole run");
	*count = res->count;
	return 0;
}

void perf_kernel_release(struct strbuf *out)
{
	struct utsname u;

	if (uname(&u) == 0)
		strbuf_adds(out, u.release);
}
