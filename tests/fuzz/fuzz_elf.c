/*
 * libFuzzer harness for artifact sizes: any bytes as a file whose ELF
 * section headers himorime reads. See `make fuzz`.
 */
#include "common/err.h"
#include "measure/elf.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_sizes s;
	struct err err = ERR_INIT;

	elf_sizes_parse("fuzz", data, size, &s, &err);
	return 0;
}
