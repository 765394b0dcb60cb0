/*
 * libFuzzer harness for artifact sizes: any bytes as a file whose ELF
 * section headers himorime reads, and whose program headers tell whether it
 * is a static program. See `make fuzz`.
 */
#include "common/err.h"
#include "measure/elf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_sizes s;
	struct err err = ERR_INIT;
	bool is_static;

	elf_sizes_parse("fuzz", data, size, &s, &err);
	elf_static_parse("fuzz", data, size, &is_static, &err);
	return 0;
}
