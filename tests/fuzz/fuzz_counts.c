/*
 * libFuzzer harness for the count-file readers: any bytes as a cachegrind
 * out file and as a DHAT out file, which the measured code can write
 * (docs/github-actions.md, "Threat model"). See `make fuzz`.
 */
#include "common/err.h"
#include "measure/valgrind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct valgrind_counts c;
	struct err err = ERR_INIT;

	memset(&c, 0, sizeof(c));
	valgrind_parse_cachegrind("fuzz", (const char *)data, size, &c, &err);
	memset(&c, 0, sizeof(c));
	valgrind_parse_dhat("fuzz", (const char *)data, size, &c, &err);
	return 0;
}
