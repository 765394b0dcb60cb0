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
 *           count_running_ns, start_ns, end_ns
 *   DUET    client -> spawner: u32 run id, i32 cpu[0], i32 cpu[1], u32 the
 *           length of side 0's part, then each side's request as a RUN
 *           payload of one run (no terminal)
 *   DUET_RESULT spawner -> client, once per DUET: u32 run id, u32 flags
 *           (1: side 0 stopped by its twin, 2: side 1), i64 start_skew_ns,
 *           then each side's RESULT payload
 *
 * Cancels travel on a separate SOCK_SEQPACKET socket as bare 4-byte run ids
 * (see launch.h), so that a signal handler can send one with a single send().
 */
#ifndef HIMORIME_SPAWNER_PROTO_H
#define HIMORIME_SPAWNER_PROTO_H

#include "spawner/run.h"

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION	       4u	  /* 2: counts (run.h); 3: batches; 4: duets */
#define PROTO_MAX_PAYLOAD      (8u << 20) /* well above ARG_MAX plus paths */
#define PROTO_MAX_STRINGS      (1u << 20)
#define PROTO_HEADER_SIZE      8u
#define PROTO_HELLO_SIZE       8u
#define PROTO_RESULT_SIZE      104u
#define PROTO_DUET_RESULT_SIZE (16u + 2u * PROTO_RESULT_SIZE)
/* The spawner's fixed descriptors: the request socket and the cancel socket. */
#define PROTO_SOCKET_FD 3
#define PROTO_CANCEL_FD 4

enum proto_type {
	PROTO_HELLO = 0x484d0001,
	PROTO_RUN = 0x484d0002,
	PROTO_RESULT = 0x484d0003,
	PROTO_DUET = 0x484d0004,
	PROTO_DUET_RESULT = 0x484d0005,
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
/* The same for a request: RUN or DUET, its type in *type. */
int proto_recv_request(int fd, uint32_t *type, uint32_t *len);

/* Builds a RUN payload in a malloc'd buffer. Returns 0, or E2BIG when the
 * request passes the bounds, or ENOMEM. */
int proto_encode_run(uint32_t run_id, const struct run_request *req, uint32_t runs, char **out,
		     size_t *len);
/* Parses a RUN payload in place: the request's strings point into payload,
 * and *vec (malloc'd, freed by the caller) holds argv and envp. Returns 0 or
 * EPROTO for a malformed payload, ENOMEM. */
int proto_decode_run(char *payload, size_t len, uint32_t *run_id, struct run_request *req,
		     uint32_t *runs, char ***vec);

/* Builds a DUET payload in a malloc'd buffer. Returns 0, or E2BIG, ENOMEM. */
int proto_encode_duet(uint32_t run_id, const struct duet_request *req, char **out, size_t *len);
/* Parses a DUET payload in place, as proto_decode_run does; vec[i] (freed
 * by the caller, NULL on failure) holds side i's argv and envp. Returns 0,
 * or EPROTO (also for a terminal, a batch, CPUs out of range or equal), ENOMEM. */
int proto_decode_duet(char *payload, size_t len, uint32_t *run_id, struct duet_request *req,
		      char **vec[2]);

void proto_encode_result(uint32_t run_id, const struct run_result *res,
			 unsigned char out[PROTO_RESULT_SIZE]);
/* Returns 0, or EPROTO for a status, step or count status out of range. */
int proto_decode_result(const unsigned char in[PROTO_RESULT_SIZE], uint32_t *run_id,
			struct run_result *res);
void proto_encode_duet_result(uint32_t run_id, const struct duet_result *res,
			      unsigned char out[PROTO_DUET_RESULT_SIZE]);
/* Returns 0, or EPROTO for a side's result out of range or bad flags. */
int proto_decode_duet_result(const unsigned char in[PROTO_DUET_RESULT_SIZE], uint32_t *run_id,
			     struct duet_result *res);

#endif
