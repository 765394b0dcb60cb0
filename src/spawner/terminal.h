/*
 * Terminal mode of a run: the pty, and the keys typed when the program
 * waits for them. Used by launch.c before vfork and while it waits.
 */
#ifndef HIMORIME_SPAWNER_TERMINAL_H
#define HIMORIME_SPAWNER_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TERMINAL_KEY_POLL_NS 250000 /* how often readiness is checked */

/* A terminal-mode run: the pty and the keys still to type. */
struct typist {
	int master;
	int slave;
	int out;
	char *keys;
	size_t len, pos;
	bool waiting_for_read; /* a key was typed and not yet seen read */
	uint64_t reads_at_key;
};

/* Reads the keys to type from path (none when NULL); returns 0 or an errno
 * value. */
int terminal_read_keys(const char *path, struct typist *ty);
/* Opens an 80x24 pseudo-terminal; returns 0 or an errno value. */
int terminal_open(struct typist *ty);
/* Copies whatever the terminal has written to ty->out. */
void terminal_drain(struct typist *ty);
/* Types the next key when the tree of pid has read the previous one and is
 * blocked reading again with nothing left in its input queue. */
void terminal_type_key(struct typist *ty, pid_t pid);

#endif
