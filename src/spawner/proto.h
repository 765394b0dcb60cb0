/*
 * The spawner's wire format, spoken over a socketpair between himorime and
 * the spawner it started. Every message is a frame: a 32-bit type, a 32-bit
 * payload length (host byte order: both ends run on one machine) and the
 * payload. Lengths and counts read from the socket are bounded before use.
 *
 *   HELLO   spawner -> client, once: u32 version, u32 pid
 *   RUN     client -> spawner: u32 run id, u32 flags (1: terminal, 2: count),
 *           u64 timeout_ns, u32 argc, u32 envc, u32 count_type,
 *           u64 count_config, u32 runs (1 to RUN_MAX_BATCH: a batch, see
 *           run.h), then NUL-terminated strings: argv, envp, cwd, stdin,
 *           stdout, stderr (an empty string for "none")
 *   RESULT  spawner -> client, one per run made, all of a batch's at its
 *           end (in one write): u32 run id, u32 status, i32 code, u32 step,
 *           u64 wall_ns, user_ns, system_ns, peak_rss_bytes, floor_bytes,
 *           u32 count_status, i32 count_error, u64 count, count_enabled_ns,
 *           count_running_ns
 *
 * Cancels travel on a separate SOCK_SEQPACKET socket as bare 4-byte run ids
 * (see launch.h), so that a signal handler can send one with a single send().
 */
#ifndef HIMORIME_SPAWNER_PROTO_H
#define HIMORIME_SPAWNER_PROTO_H

#include "spawner/run.h"

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION	  3u	     /* 2: counts (run.h); 3: batches */
#define PROTO_MAX_PAYLOAD (8u << 20) /* well above ARG_MAX plus paths */
#define PROTO_MAX_STRINGS (1u << 20)
#define PROTO_HEADER_SIZE 8u
#define PROTO_HELLO_SIZE  8u
#define PROTO_RESULT_SIZE 88u
/* The spawner's fixed descriptors: the request socket and the cancel socket. */
#define PROTO_SOCKET_FD 3
#define PROTO_CANCEL_FD 4

enum proto_type {
	PROTO_HELLO = 0x484d0001,
	PROTO_RUN = 0x484d0002,
	PROTO_RESULT = 0x484d0003,
};

/* Writes (to a socket) or reads exactly len bytes, retrying after EINTR.
 * Returns 0, or -1 with errno set (0 for an end of file). */
int proto_write_all(int fd, const void *buf, size_t len);
int proto_read_all(int fd, void *buf, size_t len);

/* Sends a frame. Returns 0 or -1 with errno set. */
int proto_send(int fd, uint32_t type, const void *payload, size_t len);
/* Reads a frame header and checks the type and the length bound. Returns 0,
 * or -1 with errno set (0 for an end of file, EPROTO for a bad header). */
int proto_recv_header(int fd, uint32_t want_type, uint32_t *len);

/* Builds a RUN payload in a malloc'd buffer. Returns 0, or E2BIG when the
 * request passes the bounds, or ENOMEM. */
int proto_encode_run(uint32_t run_id, const struct run_request *req, uint32_t runs, char **out,
		     size_t *len);
/* Parses a RUN payload in place: the request's strings point into payload,
 * and *vec (malloc'd, freed by the caller) holds argv and envp. Returns 0 or
 * EPROTO for a malformed payload, ENOMEM. */
int proto_decode_run(char *payload, size_t len, uint32_t *run_id, struct run_request *req,
		     uint32_t *runs, char ***vec);

void proto_encode_result(uint32_t run_id, const struct run_result *res,
			 unsigned char out[PROTO_RESULT_SIZE]);
/* Returns 0, or EPROTO for a status, step or count status out of range. */
int proto_decode_result(const unsigned char in[PROTO_RESULT_SIZE], uint32_t *run_id,
			struct run_result *res);

#endif
