/*
 * libFuzzer harness for the event parser: any bytes as the payload at
 * GITHUB_EVENT_PATH, under each event name himorime reads. See `make fuzz`.
 */
#include "common/err.h"
#include "github/event.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"pull_request", "pull_request_target", "push", "merge_group", "workflow_run",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name = names[size % (sizeof(names) / sizeof(names[0]))];
	struct github_event ev;
	struct err err = ERR_INIT;

	github_event_init(&ev);
	github_event_parse(&ev, name, (const char *)data, size,
			   "0123456789abcdef0123456789abcdef01234567", &err);
	github_event_has_label(&ev, "himorime:accept");
	github_event_release(&ev);
	return 0;
}
