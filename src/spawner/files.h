/*
 * Small file helpers of the spawner: see files.c. libc only, no allocation.
 */
#ifndef HIMORIME_SPAWNER_FILES_H
#define HIMORIME_SPAWNER_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads a whole small /proc file into buf (NUL-terminated); length or -1. */
ssize_t files_read_small(const char *path, char *buf, size_t cap);
/* Appends the numbers in a /proc children file to pids[n..cap); the new n. */
size_t files_read_children(const char *path, pid_t *pids, size_t n, size_t cap);
/* Opens path with O_CLOEXEC, never blocking on a FIFO, as a descriptor >= 3
 * that is blocking again (O_APPEND kept); -1 with errno on failure. */
int files_open_high(const char *path, int flags, mode_t mode);
/* Whether fd is a regular file (not a FIFO, a device, a directory...). */
bool files_is_regular(int fd);

#endif
