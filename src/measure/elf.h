/*
 * Artifact sizes (docs/comparison.md, "Deciding on counts"): a file's bytes
 * and, for an ELF file, the sizes of its text, data and bss as `size`
 * (Berkeley format) counts them, read from the section headers by himorime
 * itself: 32 and 64 bits, either byte order. The file is the user's, so every
 * offset is checked against its length; a malformed ELF file is refused with
 * the reason, never read past.
 *
 *     struct elf_sizes s;
 *     if (elf_sizes_read("build/tool", &s, &err) == 0 && s.is_elf) use s.text;
 *
 * The program headers tell whether a program is statically linked
 * (elf_is_static), for the counts that need a preloaded library.
 */
#ifndef HIMORIME_MEASURE_ELF_H
#define HIMORIME_MEASURE_ELF_H

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_sizes {
	uint64_t file_bytes;
	bool is_elf;   /* false: not an ELF file; only file_bytes is set */
	unsigned bits; /* 32 or 64 */
	bool big_endian;
	/* Allocated sections: read-only ones (code, constants) are text, writable
	 * ones with contents data, those without contents (SHT_NOBITS) bss. */
	uint64_t text, data, bss;
};

/* Reads the sizes of the regular file at path. A file that cannot be read is
 * ERR_METRIC ("cannot read \"x\": ..."); so is a malformed ELF file, with
 * what is wrong ("\"x\": ELF section headers run past the end of the file"). */
int elf_sizes_read(const char *path, struct elf_sizes *out, struct err *err);

/* The same for a file's whole content in memory; `name` is for messages. */
int elf_sizes_parse(const char *name, const unsigned char *buf, size_t len, struct elf_sizes *out,
		    struct err *err);

/* Whether the file at path is a program the dynamic loader does not start:
 * an ELF file with program headers, none of them PT_INTERP. Such a program
 * (static, or static-pie) gets nothing preloaded, so valgrind's DHAT cannot
 * see its malloc. *is_static is false for a dynamic program, an object file
 * and a file that is not ELF (a script); errors as for elf_sizes_read. */
int elf_is_static(const char *path, bool *is_static, struct err *err);
int elf_static_parse(const char *name, const unsigned char *buf, size_t len, bool *is_static,
		     struct err *err);

#endif
