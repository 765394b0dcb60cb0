/*
 * Reading an ELF file's text, data and bss from its section headers (see
 * elf.h). Only the ELF header and the section header table are read, through
 * one bounded read-at function, so that a large binary costs a few small
 * reads and a buffer (the fuzzer's input) is read the same way.
 */
#include "measure/elf.h"

#include "common/fsio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHT_NOBITS_	 8
#define SHF_WRITE_	 0x1
#define SHF_ALLOC_	 0x2
#define SECTIONS_MAX	 (1u << 20) /* more section headers than this is refused */
#define ELF_HEADER_BYTES 64

/* Where the bytes come from (a file's fd, or a buffer), and where the
 * reasons go. */
struct source {
	const char *name;
	int fd;
	const unsigned char *buf;
	uint64_t len;
	struct err *err;
};

/* Layout of one ELF class: header fields and section header fields. */
struct layout {
	unsigned header_bytes, shoff, shentsize, shnum, entry_bytes;
	unsigned sh_type, sh_flags, sh_offset, sh_size, word;
};

static const struct layout layout32 = {
	.header_bytes = 52,
	.shoff = 0x20,
	.shentsize = 0x2E,
	.shnum = 0x30,
	.entry_bytes = 40,
	.sh_type = 4,
	.sh_flags = 8,
	.sh_offset = 0x10,
	.sh_size = 0x14,
	.word = 4,
};
static const struct layout layout64 = {
	.header_bytes = 64,
	.shoff = 0x28,
	.shentsize = 0x3A,
	.shnum = 0x3C,
	.entry_bytes = 64,
	.sh_type = 4,
	.sh_flags = 8,
	.sh_offset = 0x18,
	.sh_size = 0x20,
	.word = 8,
};

static bool read_at(const struct source *src, uint64_t off, void *dst, size_t n)
{
	ssize_t got;

	if (off > src->len || n > src->len - off)
		return false;
	if (src->buf) {
		memcpy(dst, src->buf + off, n);
		return true;
	}
	do
		got = pread(src->fd, dst, n, (off_t)off);
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)n;
}

static uint64_t get(const unsigned char *p, unsigned bytes, bool big)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[big ? bytes - 1 - i : i] << (8 * i);
	return v;
}

static int malformed(const struct source *src, const char *what)
{
	return err_set(src->err, ERR_METRIC, "\"%s\": malformed ELF file: %s", src->name, what);
}

/* Class and byte order from e_ident; 1 when the file is not ELF at all. */
static int identify(const struct source *src, struct elf_sizes *out)
{
	unsigned char ident[6];

	if (!read_at(src, 0, ident, 4) || memcmp(ident, "\177ELF", 4) != 0)
		return 1;
	out->is_elf = true;
	if (!read_at(src, 0, ident, sizeof(ident)))
		return malformed(src, "the ELF header is truncated");
	if (ident[4] != 1 && ident[4] != 2)
		return malformed(src, "unknown class (neither 32 nor 64 bits)");
	if (ident[5] != 1 && ident[5] != 2)
		return malformed(src, "unknown byte order");
	out->bits = ident[4] == 1 ? 32 : 64;
	out->big_endian = ident[5] == 2;
	return 0;
}

/* Adds one section header's size to text, data or bss. */
static int section(const struct source *src, const struct layout *l, const unsigned char *sh,
		   struct elf_sizes *out)
{
	bool big = out->big_endian;
	uint64_t type = get(sh + l->sh_type, 4, big), flags = get(sh + l->sh_flags, l->word, big);
	uint64_t off = get(sh + l->sh_offset, l->word, big),
		 size = get(sh + l->sh_size, l->word, big);
	uint64_t *sum = (flags & SHF_WRITE_) ? &out->data : &out->text;

	if (!(flags & SHF_ALLOC_))
		return 0;
	if (type == SHT_NOBITS_)
		sum = &out->bss;
	else if (off > src->len || size > src->len - off)
		return malformed(src, "a section runs past the end of the file");
	if (__builtin_add_overflow(*sum, size, sum))
		return malformed(src, "section sizes overflow");
	return 0;
}

/* The section header table: offset, entry size and count (extended count
 * in the first entry's sh_size when e_shnum is 0). */
static int table(const struct source *src, const struct layout *l, uint64_t *shoff,
		 uint64_t *entsize, uint64_t *count)
{
	unsigned char h[ELF_HEADER_BYTES], sh0[64];
	bool big;

	if (!read_at(src, 0, h, l->header_bytes))
		return malformed(src, "the ELF header is truncated");
	big = h[5] == 2;
	*shoff = get(h + l->shoff, l->word, big);
	*entsize = get(h + l->shentsize, 2, big);
	*count = get(h + l->shnum, 2, big);
	if (*shoff == 0)
		return malformed(src, "no section headers");
	if (*entsize < l->entry_bytes)
		return malformed(src, "section header entries are too small");
	if (*count == 0 && read_at(src, *shoff, sh0, l->entry_bytes))
		*count = get(sh0 + l->sh_size, l->word, big);
	if (*count == 0 || *count > SECTIONS_MAX)
		return malformed(src, "implausible number of sections");
	if (*shoff > src->len || *count > (src->len - *shoff) / *entsize)
		return malformed(src, "section headers run past the end of the file");
	return 0;
}

static int parse(const struct source *src, struct elf_sizes *out)
{
	const struct layout *l;
	unsigned char sh[64];
	uint64_t shoff = 0, entsize = 0, count = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->file_bytes = src->len;
	if ((rc = identify(src, out)) != 0)
		return rc < 0 ? rc : 0;
	l = out->bits == 32 ? &layout32 : &layout64;
	if ((rc = table(src, l, &shoff, &entsize, &count)) != 0)
		return rc;
	for (i = 0; i < count; i++) {
		if (!read_at(src, shoff + i * entsize, sh, l->entry_bytes))
			return err_set(src->err, ERR_METRIC, "cannot read \"%s\": %s", src->name,
				       errno ? strerror(errno) : "short read");
		if ((rc = section(src, l, sh, out)) != 0)
			return rc;
	}
	return 0;
}

/* ---- how the program starts ------------------------------------------- */

#define PT_INTERP_   3
#define SEGMENTS_MAX (1u << 16) /* more program headers than this is refused */

/* Whether a program header names an interpreter (the dynamic loader):
 * *is_static stays true when none does. A file with no program headers (an
 * object, not a program) is not static. */
static int linking(const struct source *src, bool *is_static)
{
	/* e_phoff, e_phentsize, e_phnum, the entry's size, for 32 and 64 bits */
	static const unsigned at[2][4] = { { 0x1C, 0x2A, 0x2C, 32 }, { 0x20, 0x36, 0x38, 56 } };
	struct elf_sizes id;
	unsigned char h[ELF_HEADER_BYTES], ph[4];
	const unsigned *l;
	uint64_t off, size, count, i;
	int rc;

	*is_static = false;
	memset(&id, 0, sizeof(id));
	if ((rc = identify(src, &id)) != 0)
		return rc < 0 ? rc : 0;
	l = at[id.bits == 64];
	if (!read_at(src, 0, h, id.bits == 64 ? 64 : 52))
		return malformed(src, "the ELF header is truncated");
	off = get(h + l[0], id.bits / 8, id.big_endian);
	size = get(h + l[1], 2, id.big_endian);
	count = get(h + l[2], 2, id.big_endian);
	if (count == 0)
		return 0;
	if (size < l[3] || count > SEGMENTS_MAX || off > src->len ||
	    count > (src->len - off) / size)
		return malformed(src, "program headers run past the end of the file");
	for (i = 0; i < count; i++) {
		if (!read_at(src, off + i * size, ph, sizeof(ph)))
			return err_set(src->err, ERR_METRIC, "cannot read \"%s\": %s", src->name,
				       errno ? strerror(errno) : "short read");
		if (get(ph, 4, id.big_endian) == PT_INTERP_)
			return 0;
	}
	*is_static = true;
	return 0;
}

int elf_static_parse(const char *name, const unsigned char *buf, size_t len, bool *is_static,
		     struct err *err)
{
	struct source src = { .name = name, .fd = -1, .buf = buf, .len = len, .err = err };

	return linking(&src, is_static);
}

/* Opens the regular file at `path` as a source read from its descriptor
 * (the caller closes src->fd); ERR_METRIC when it cannot be opened or read. */
static int open_source(struct source *src, const char *path, struct err *err)
{
	struct stat st;

	*src = (struct source){ .name = path, .fd = -1, .buf = NULL, .len = 0, .err = err };
	src->fd = fsio_open_regular(path, err);
	if (src->fd < 0) {
		err->code = ERR_METRIC;
		return ERR_METRIC;
	}
	if (fstat(src->fd, &st) != 0) {
		int rc = err_set(err, ERR_METRIC, "cannot read \"%s\": %s", path, strerror(errno));

		close(src->fd);
		return rc;
	}
	src->len = (uint64_t)st.st_size;
	errno = 0; /* a short read leaves it 0: "short read", not a stale cause */
	return 0;
}

int elf_is_static(const char *path, bool *is_static, struct err *err)
{
	struct source src;
	int rc;

	*is_static = false;
	rc = open_source(&src, path, err);
	if (rc)
		return rc;
	rc = linking(&src, is_static);
	close(src.fd);
	return rc;
}

int elf_sizes_parse(const char *name, const unsigned char *buf, size_t len, struct elf_sizes *out,
		    struct err *err)
{
	struct source src = { .name = name, .fd = -1, .buf = buf, .len = len, .err = err };

	return parse(&src, out);
}

int elf_sizes_read(const char *path, struct elf_sizes *out, struct err *err)
{
	struct source src;
	int rc = open_source(&src, path, err);

	if (rc)
		return rc;
	rc = parse(&src, out);
	close(src.fd);
	return rc;
}
