/*
 * Tests of artifact sizes: ELF text, data and bss read by himorime agree with
 * binutils' `size` on real files built in the test (a dynamic and a static
 * executable, a 32-bit object), byte-swapped big-endian copies read the same,
 * and truncated, corrupt and randomly damaged copies are refused with the
 * reason (under the sanitizers, never read past their end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/alloc.h"
#include "common/fsio.h"
#include "common/rng.h"
#include "measure/elf.h"

#include "scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prog_c[] = "int x = 3; int y[100]; const char s[] = \"hello\";\n"
			     "int main(void) { return x + y[1] + s[0]; }\n";

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", scratch_dir, name);
}

/* cc FLAGS -o <scratch_dir>/name <scratch_dir>/prog.c */
static char *build(const char *name, const char *flag1, const char *flag2)
{
	char *src = path_of("prog.c"), *out = path_of(name);
	char *argv[] = { (char *)"cc", (char *)"-O2", (char *)flag1, (char *)flag2,
			 (char *)"-o", out,	      src,	     NULL };
	struct err err = ERR_INIT;

	assert_int_equal(fsio_write_atomic(src, prog_c, strlen(prog_c), &err), 0);
	if (!flag2) { /* shift the NULL flag out */
		argv[3] = argv[4];
		argv[4] = argv[5];
		argv[5] = argv[6];
		argv[6] = NULL;
	}
	assert_int_equal(scratch_run(argv, NULL), 0);
	free(src);
	return out;
}

/* text, data and bss as `size` prints them (Berkeley format). */
static void binutils_size(const char *file, uint64_t want[3])
{
	char *out = path_of("size.out"), *text = NULL;
	char *argv[] = { (char *)"size", (char *)file, NULL };
	struct err err = ERR_INIT;
	unsigned long long t, d, b;
	size_t len;

	assert_int_equal(scratch_run(argv, out), 0);
	assert_int_equal(fsio_read_file(out, 4096, &text, &len, &err), 0);
	assert_int_equal(sscanf(strchr(text, '\n'), "%llu %llu %llu", &t, &d, &b), 3);
	want[0] = t;
	want[1] = d;
	want[2] = b;
	free(text);
	free(out);
}

static void read_ok(const char *file, struct elf_sizes *s)
{
	struct err err = ERR_INIT;

	assert_int_equal(elf_sizes_read(file, s, &err), 0);
	assert_true(s->is_elf);
}

static void assert_like_size(const char *file, unsigned bits)
{
	struct elf_sizes s;
	uint64_t want[3];

	binutils_size(file, want);
	read_ok(file, &s);
	assert_int_equal(s.bits, bits);
	assert_false(s.big_endian);
	assert_int_equal(s.text, want[0]);
	assert_int_equal(s.data, want[1]);
	assert_int_equal(s.bss, want[2]);
	assert_true(s.bss >= 400); /* int y[100] */
}

static void test_elf__executables_and_32_bit_object_like_size(void **state)
{
	char *dyn = build("dyn", "-pie", NULL), *sta = build("static", "-static", NULL);
	char *obj = build("obj32.o", "-m32", "-c");

	(void)state;
	assert_like_size(dyn, 64);
	assert_like_size(sta, 64);
	assert_like_size(obj, 32);
	free(dyn);
	free(sta);
	free(obj);
}

static unsigned char *load(const char *file, size_t *len)
{
	char *text = NULL;
	struct err err = ERR_INIT;

	assert_int_equal(fsio_read_file(file, 64u << 20, &text, len, &err), 0);
	return (unsigned char *)text;
}

static void swap(unsigned char *p, unsigned n)
{
	for (unsigned i = 0; i < n / 2; i++) {
		unsigned char c = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = c;
	}
}

/* Rewrites a little-endian ELF file's header and section headers big-endian
 * (program headers dropped): what a big-endian toolchain would have written
 * for the same sections. */
static void make_big_endian(unsigned char *f)
{
	bool b64 = f[4] == 2;
	unsigned w = b64 ? 8 : 4, i, k;
	unsigned hdr64[] = { 2, 2, 4, 8, 8, 8, 4, 2, 2, 2, 2, 2, 2 };
	unsigned hdr32[] = { 2, 2, 4, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2 };
	unsigned sh[] = { 4, 4, w, w, w, w, 4, 4, w, w };
	unsigned *h = b64 ? hdr64 : hdr32;
	uint64_t shoff = 0, shentsize, shnum;
	unsigned char *p = f + 16;

	memcpy(&shoff, f + (b64 ? 0x28 : 0x20), w);
	shentsize = (uint64_t)f[b64 ? 0x3A : 0x2E] | (uint64_t)f[b64 ? 0x3B : 0x2F] << 8;
	shnum = (uint64_t)f[b64 ? 0x3C : 0x30] | (uint64_t)f[b64 ? 0x3D : 0x31] << 8;
	f[5] = 2;
	for (k = 0; k < 13; p += h[k], k++)
		swap(p, h[k]);
	for (i = 0; i < shnum; i++) {
		p = f + shoff + i * shentsize;
		for (k = 0; k < 10; p += sh[k], k++)
			swap(p, sh[k]);
	}
}

static void test_elf__big_endian_copies_read_the_same(void **state)
{
	const char *names[] = { "dyn", "obj32.o" };
	struct elf_sizes little, big;
	struct err err = ERR_INIT;
	unsigned char *f;
	size_t len, i;
	char *file;

	(void)state;
	for (i = 0; i < 2; i++) {
		file = i == 0 ? build("dyn", "-pie", NULL) : build("obj32.o", "-m32", "-c");
		read_ok(file, &little);
		f = load(file, &len);
		make_big_endian(f);
		assert_int_equal(elf_sizes_parse(names[i], f, len, &big, &err), 0);
		assert_true(big.big_endian);
		assert_int_equal(big.bits, little.bits);
		assert_int_equal(big.text, little.text);
		assert_int_equal(big.data, little.data);
		assert_int_equal(big.bss, little.bss);
		assert_int_equal(big.file_bytes, len);
		free(f);
		free(file);
	}
}

static void test_elf__other_files_are_only_bytes(void **state)
{
	char *file = path_of("notes.txt"), *dir = path_of(""), *want;
	struct elf_sizes s;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(fsio_write_atomic(file, "ELF? no.\n", 9, &err), 0);
	assert_int_equal(elf_sizes_read(file, &s, &err), 0);
	assert_false(s.is_elf);
	assert_int_equal(s.file_bytes, 9);
	assert_int_equal(s.text + s.data + s.bss, 0);
	assert_int_equal(elf_sizes_parse("empty", (const unsigned char *)"", 0, &s, &err), 0);
	assert_false(s.is_elf);
	assert_int_equal(elf_sizes_read(dir, &s, &err), ERR_METRIC);
	want = xasprintf("cannot read \"%s\": not a regular file (a directory)", dir);
	assert_string_equal(err.msg, want);
	free(want);
	free(file);
	free(dir);
	file = path_of("missing");
	assert_int_equal(elf_sizes_read(file, &s, &err), ERR_METRIC);
	want = xasprintf("cannot read \"%s\": No such file or directory", file);
	assert_string_equal(err.msg, want);
	free(want);
	free(file);
}

static void assert_refused(const unsigned char *f, size_t len, const char *why)
{
	struct elf_sizes s;
	struct err err = ERR_INIT;
	char *want = xasprintf("\"copy\": malformed ELF file: %s", why);

	assert_int_equal(elf_sizes_parse("copy", f, len, &s, &err), ERR_METRIC);
	assert_string_equal(err.msg, want);
	free(want);
}

static void test_elf__truncated_copies_are_refused(void **state)
{
	char *file = build("dyn", "-pie", NULL);
	struct elf_sizes s;
	struct err err = ERR_INIT;
	unsigned char *f;
	size_t len;

	(void)state;
	f = load(file, &len);
	assert_int_equal(elf_sizes_parse("copy", f, 3, &s, &err), 0); /* not even the magic */
	assert_false(s.is_elf);
	assert_refused(f, 5, "the ELF header is truncated");
	assert_refused(f, 10, "the ELF header is truncated");
	assert_refused(f, 63, "the ELF header is truncated");
	assert_refused(f, len / 2, "section headers run past the end of the file");
	assert_refused(f, len - 1, "section headers run past the end of the file");
	free(f);
	free(file);
}

static void put(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The first allocated section's header in a 64-bit little-endian file. */
static unsigned char *first_alloc(unsigned char *f)
{
	uint64_t shoff = 0, i;

	memcpy(&shoff, f + 0x28, 8);
	for (i = 1;; i++)
		if (f[shoff + i * 64 + 8] & 2)
			return f + shoff + i * 64;
}

static void test_elf__corrupt_copies_are_refused(void **state)
{
	char *file = build("dyn", "-pie", NULL);
	unsigned char *f, *c, *sh;
	size_t len;

	(void)state;
	f = load(file, &len);
	c = xmalloc(len);
#define FRESH() memcpy(c, f, len)
	FRESH();
	c[4] = 3;
	assert_refused(c, len, "unknown class (neither 32 nor 64 bits)");
	FRESH();
	c[5] = 0;
	assert_refused(c, len, "unknown byte order");
	FRESH();
	put(c + 0x28, 0, 8);
	assert_refused(c, len, "no section headers");
	FRESH();
	put(c + 0x3A, 10, 2);
	assert_refused(c, len, "section header entries are too small");
	FRESH();
	put(c + 0x3C, 0, 2); /* extended count, and the first entry's sh_size is 0 */
	assert_refused(c, len, "implausible number of sections");
	FRESH();
	put(c + 0x28, UINT64_MAX - 10, 8);
	assert_refused(c, len, "section headers run past the end of the file");
	FRESH();
	sh = first_alloc(c);
	put(sh + 0x18, len - 4, 8);
	put(sh + 0x20, 8, 8);
	assert_refused(c, len, "a section runs past the end of the file");
	FRESH();
	sh = first_alloc(c);
	put(sh + 4, 8, 4); /* NOBITS: no bytes in the file, any size */
	put(sh + 0x20, UINT64_MAX, 8);
	assert_refused(c, len, "section sizes overflow");
#undef FRESH
	free(c);
	free(f);
	free(file);
}

/* Seeded random damage in the headers: every copy is read or refused, and
 * the sanitizers see no read outside the buffer. */
static void test_elf__random_damage_never_reads_past_the_end(void **state)
{
	char *file = build("dyn", "-pie", NULL);
	struct elf_sizes s;
	struct err err = ERR_INIT;
	struct rng rng;
	unsigned char *f, *c;
	uint64_t shoff = 0;
	size_t len, cut, i, k;
	bool is_static;
	int rc;

	(void)state;
	f = load(file, &len);
	memcpy(&shoff, f + 0x28, 8);
	rng_init(&rng, 14, "elf");
	for (i = 0; i < 3000; i++) {
		cut = len - (size_t)rng_below(&rng, 2) * (size_t)rng_below(&rng, len);
		c = xmalloc(cut ? cut : 1);
		memcpy(c, f, cut);
		for (k = 0; k < 4; k++) {
			size_t at = rng_below(&rng, 2) ? (size_t)rng_below(&rng, 64)
						       : shoff + rng_below(&rng, len - shoff);

			if (at < cut)
				c[at] = (unsigned char)rng_next(&rng);
		}
		rc = elf_sizes_parse("copy", c, cut, &s, &err);
		assert_true(rc == 0 ||
			    (rc == ERR_METRIC && strstr(err.msg, "\"copy\": ") == err.msg));
		rc = elf_static_parse("copy", c, cut, &is_static, &err);
		assert_true(rc == 0 ||
			    (rc == ERR_METRIC && strstr(err.msg, "\"copy\": ") == err.msg));
		free(c);
	}
	free(f);
	free(file);
}

/* A program the dynamic loader does not start (no PT_INTERP) is static:
 * DHAT cannot see its malloc. Dynamic programs, objects and scripts are not;
 * program headers past the end are refused. */
static void test_elf__static_programs_are_told_apart(void **state)
{
	char *dyn = build("dyn", "-pie", NULL), *sta = build("static", "-static", NULL);
	char *spie = build("static-pie", "-static-pie", NULL), *obj = build("obj.o", "-c", NULL);
	char *script = path_of("script.sh"), *missing = path_of("none"), *want;
	struct err err = ERR_INIT;
	unsigned char *f;
	bool is_static = true;
	uint64_t phoff = 0;
	size_t len;

	(void)state;
	assert_int_equal(elf_is_static(dyn, &is_static, &err), 0);
	assert_false(is_static);
	assert_int_equal(elf_is_static(sta, &is_static, &err), 0);
	assert_true(is_static);
	assert_int_equal(elf_is_static(spie, &is_static, &err), 0);
	assert_true(is_static);
	assert_int_equal(elf_is_static(obj, &is_static, &err), 0);
	assert_false(is_static);
	assert_int_equal(fsio_write_atomic(script, "#!/bin/sh\n", 10, &err), 0);
	assert_int_equal(elf_is_static(script, &is_static, &err), 0);
	assert_false(is_static);
	assert_int_equal(elf_is_static(missing, &is_static, &err), ERR_METRIC);
	want = xasprintf("cannot read \"%s\": No such file or directory", missing);
	assert_string_equal(err.msg, want);
	free(want);
	f = load(sta, &len);
	memcpy(&phoff, f + 0x20, 8);
	assert_int_equal(elf_static_parse("copy", f, (size_t)phoff + 8, &is_static, &err),
			 ERR_METRIC);
	assert_string_equal(err.msg, "\"copy\": malformed ELF file: program headers run past "
				     "the end of the file");
	assert_int_equal(elf_static_parse("copy", f, 40, &is_static, &err), ERR_METRIC);
	assert_string_equal(err.msg, "\"copy\": malformed ELF file: the ELF header is truncated");
	free(f);
	free(dyn);
	free(sta);
	free(spie);
	free(obj);
	free(script);
	free(missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf__executables_and_32_bit_object_like_size),
		cmocka_unit_test(test_elf__big_endian_copies_read_the_same),
		cmocka_unit_test(test_elf__other_files_are_only_bytes),
		cmocka_unit_test(test_elf__truncated_copies_are_refused),
		cmocka_unit_test(test_elf__corrupt_copies_are_refused),
		cmocka_unit_test(test_elf__random_damage_never_reads_past_the_end),
		cmocka_unit_test(test_elf__static_programs_are_told_apart),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
