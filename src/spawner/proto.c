/*
 * The spawner's wire format: see proto.h. The decoder trusts nothing: every
 * count is checked against the bytes that are actually there.
 */
#include "spawner/proto.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/banned.h"

#define RUN_FIXED_SIZE 40u
#define FLAG_TERMINAL  1u
#define FLAG_COUNT     2u

int proto_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL); /* a dead peer is an error, not SIGPIPE */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int proto_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int proto_send(int fd, uint32_t type, const void *payload, size_t len)
{
	uint32_t header[2] = { type, (uint32_t)len };

	if (len > PROTO_MAX_PAYLOAD) {
		errno = E2BIG;
		return -1;
	}
	if (proto_write_all(fd, header, sizeof(header)) < 0)
		return -1;
	return proto_write_all(fd, payload, len);
}

/* Reads a frame header; fails with EPROTO when its length passes the bound. */
static int read_header(int fd, uint32_t *type, uint32_t *len)
{
	uint32_t header[2];

	if (proto_read_all(fd, header, sizeof(header)) < 0)
		return -1;
	*type = header[0];
	*len = header[1];
	if (header[1] > PROTO_MAX_PAYLOAD) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int proto_recv_header(int fd, uint32_t want_type, uint32_t *len)
{
	uint32_t type;

	if (read_header(fd, &type, len) < 0)
		return -1;
	if (type != want_type) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int proto_recv_request(int fd, uint32_t *type, uint32_t *len)
{
	if (read_header(fd, type, len) < 0)
		return -1;
	if (*type != PROTO_RUN && *type != PROTO_DUET) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static void put32(char **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

static void put64(char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void put_str(char **p, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	memcpy(*p, s ? s : "", n + 1);
	*p += n + 1;
}

static size_t count_vec(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int proto_encode_run(uint32_t run_id, const struct run_request *req, uint32_t runs, char **out,
		     size_t *len)
{
	size_t argc = count_vec(req->argv), envc = count_vec(req->envp), size = RUN_FIXED_SIZE;
	const char *tail[4] = { req->cwd, req->stdin_path, req->stdout_path, req->stderr_path };
	char *buf, *p;
	size_t i;

	if (argc + envc > PROTO_MAX_STRINGS)
		return E2BIG;
	for (i = 0; i < argc; i++)
		size += strlen(req->argv[i]) + 1;
	for (i = 0; i < envc; i++)
		size += strlen(req->envp[i]) + 1;
	for (i = 0; i < 4; i++)
		size += (tail[i] ? strlen(tail[i]) : 0) + 1;
	if (size > PROTO_MAX_PAYLOAD)
		return E2BIG;
	buf = malloc(size);
	if (!buf)
		return ENOMEM;
	p = buf;
	put32(&p, run_id);
	put32(&p, (req->terminal ? FLAG_TERMINAL : 0) | (req->count ? FLAG_COUNT : 0));
	put64(&p, req->timeout_ns);
	put32(&p, (uint32_t)argc);
	put32(&p, (uint32_t)envc);
	put32(&p, req->count_type);
	put64(&p, req->count_config);
	put32(&p, runs);
	for (i = 0; i < argc; i++)
		put_str(&p, req->argv[i]);
	for (i = 0; i < envc; i++)
		put_str(&p, req->envp[i]);
	for (i = 0; i < 4; i++)
		put_str(&p, tail[i]);
	*out = buf;
	*len = size;
	return 0;
}

/* Takes the next NUL-terminated string from [*p, end); NULL if none. */
static char *take_str(char **p, char *end)
{
	char *s = *p, *nul;

	if (s >= end)
		return NULL;
	nul = memchr(s, '\0', (size_t)(end - s));
	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

int proto_decode_run(char *payload, size_t len, uint32_t *run_id, struct run_request *req,
		     uint32_t *runs, char ***vec)
{
	char *p = payload + RUN_FIXED_SIZE, *end = payload + len, *tail[4];
	uint32_t flags, argc, envc;
	char **v;
	size_t i;

	*vec = NULL;
	if (len < RUN_FIXED_SIZE)
		return EPROTO;
	memcpy(run_id, payload, 4);
	memcpy(&flags, payload + 4, 4);
	memcpy(&req->timeout_ns, payload + 8, 8);
	memcpy(&argc, payload + 16, 4);
	memcpy(&envc, payload + 20, 4);
	memcpy(&req->count_type, payload + 24, 4);
	memcpy(&req->count_config, payload + 28, 8);
	memcpy(runs, payload + 36, 4);
	/* Every string takes at least one byte, which bounds the counts. */
	if (*runs < 1 || *runs > RUN_MAX_BATCH || argc < 1 || argc > PROTO_MAX_STRINGS ||
	    envc > PROTO_MAX_STRINGS || (size_t)argc + envc + 4 > len - RUN_FIXED_SIZE ||
	    (flags & ~(FLAG_TERMINAL | FLAG_COUNT)))
		return EPROTO;
	v = malloc(((size_t)argc + envc + 2) * sizeof(*v));
	if (!v)
		return ENOMEM;
	for (i = 0; i < argc; i++)
		if (!(v[i] = take_str(&p, end)))
			goto bad;
	v[argc] = NULL;
	for (i = 0; i < envc; i++)
		if (!(v[argc + 1 + i] = take_str(&p, end)))
			goto bad;
	v[argc + 1 + envc] = NULL;
	for (i = 0; i < 4; i++)
		if (!(tail[i] = take_str(&p, end)))
			goto bad;
	if (p != end)
		goto bad;
	req->argv = v;
	req->envp = v + argc + 1;
	req->cwd = tail[0][0] ? tail[0] : NULL;
	req->stdin_path = tail[1][0] ? tail[1] : NULL;
	req->stdout_path = tail[2][0] ? tail[2] : NULL;
	req->stderr_path = tail[3][0] ? tail[3] : NULL;
	req->terminal = flags & FLAG_TERMINAL;
	req->count = flags & FLAG_COUNT;
	*vec = v;
	return 0;
bad:
	free(v);
	return EPROTO;
}

void proto_encode_result(uint32_t run_id, const struct run_result *res,
			 unsigned char out[PROTO_RESULT_SIZE])
{
	char *p = (char *)out;

	put32(&p, run_id);
	put32(&p, (uint32_t)res->status);
	put32(&p, (uint32_t)res->code);
	put32(&p, (uint32_t)res->step);
	put64(&p, res->wall_ns);
	put64(&p, res->user_ns);
	put64(&p, res->system_ns);
	put64(&p, res->peak_rss_bytes);
	put64(&p, res->floor_bytes);
	put32(&p, (uint32_t)res->count_status);
	put32(&p, (uint32_t)res->count_error);
	put64(&p, res->count);
	put64(&p, res->count_enabled_ns);
	put64(&p, res->count_running_ns);
	put64(&p, res->start_ns);
	put64(&p, res->end_ns);
}

int proto_decode_result(const unsigned char in[PROTO_RESULT_SIZE], uint32_t *run_id,
			struct run_result *res)
{
	uint32_t status, step, count_status;
	int32_t code, count_error;

	memcpy(run_id, in, 4);
	memcpy(&status, in + 4, 4);
	memcpy(&code, in + 8, 4);
	memcpy(&step, in + 12, 4);
	memcpy(&count_status, in + 56, 4);
	memcpy(&count_error, in + 60, 4);
	if (status > RUN_INTERRUPTED || step > STEP_EXEC || count_status > COUNT_READ_FAILED)
		return EPROTO;
	res->status = (enum run_status)status;
	res->code = code;
	res->step = (enum run_step)step;
	memcpy(&res->wall_ns, in + 16, 8);
	memcpy(&res->user_ns, in + 24, 8);
	memcpy(&res->system_ns, in + 32, 8);
	memcpy(&res->peak_rss_bytes, in + 40, 8);
	memcpy(&res->floor_bytes, in + 48, 8);
	res->count_status = (enum count_status)count_status;
	res->count_error = count_error;
	memcpy(&res->count, in + 64, 8);
	memcpy(&res->count_enabled_ns, in + 72, 8);
	memcpy(&res->count_running_ns, in + 80, 8);
	memcpy(&res->start_ns, in + 88, 8);
	memcpy(&res->end_ns, in + 96, 8);
	return 0;
}

#define DUET_FIXED_SIZE 16u

int proto_encode_duet(uint32_t run_id, const struct duet_request *req, char **out, size_t *len)
{
	char *part[2] = { NULL, NULL }, *buf = NULL, *p;
	size_t size[2];
	int error = 0, i;

	for (i = 0; i < 2 && !error; i++)
		error = proto_encode_run(run_id, &req->side[i], 1, &part[i], &size[i]);
	if (!error && DUET_FIXED_SIZE + size[0] + size[1] > PROTO_MAX_PAYLOAD)
		error = E2BIG;
	if (!error && !(buf = malloc(DUET_FIXED_SIZE + size[0] + size[1])))
		error = ENOMEM;
	if (!error) {
		p = buf;
		put32(&p, run_id);
		put32(&p, (uint32_t)req->cpu[0]);
		put32(&p, (uint32_t)req->cpu[1]);
		put32(&p, (uint32_t)size[0]);
		memcpy(p, part[0], size[0]);
		memcpy(p + size[0], part[1], size[1]);
		*out = buf;
		*len = DUET_FIXED_SIZE + size[0] + size[1];
	}
	free(part[0]);
	free(part[1]);
	return error;
}

int proto_decode_duet(char *payload, size_t len, uint32_t *run_id, struct duet_request *req,
		      char **vec[2])
{
	uint32_t len0, id, runs;
	int32_t cpu[2];
	int error = 0, i;
	char *part;
	size_t size;

	vec[0] = vec[1] = NULL;
	if (len < DUET_FIXED_SIZE)
		return EPROTO;
	memcpy(run_id, payload, 4);
	memcpy(cpu, payload + 4, 8);
	memcpy(&len0, payload + 12, 4);
	if (len0 > len - DUET_FIXED_SIZE || cpu[0] < 0 || cpu[1] < 0 || cpu[0] >= CPU_SETSIZE ||
	    cpu[1] >= CPU_SETSIZE || cpu[0] == cpu[1])
		return EPROTO;
	for (i = 0; i < 2 && !error; i++) {
		part = payload + DUET_FIXED_SIZE + (i ? len0 : 0);
		size = i ? len - DUET_FIXED_SIZE - len0 : len0;
		memset(&req->side[i], 0, sizeof(req->side[i]));
		error = proto_decode_run(part, size, &id, &req->side[i], &runs, &vec[i]);
		if (!error && (runs != 1 || req->side[i].terminal))
			error = EPROTO;
		req->cpu[i] = cpu[i];
	}
	if (error) {
		free(vec[0]);
		free(vec[1]);
		vec[0] = vec[1] = NULL;
	}
	return error;
}

void proto_encode_duet_result(uint32_t run_id, const struct duet_result *res,
			      unsigned char out[PROTO_DUET_RESULT_SIZE])
{
	char *p = (char *)out;

	put32(&p, run_id);
	put32(&p, (res->stopped_by_twin[0] ? 1u : 0u) | (res->stopped_by_twin[1] ? 2u : 0u));
	put64(&p, (uint64_t)res->start_skew_ns);
	proto_encode_result(run_id, &res->side[0], out + 16);
	proto_encode_result(run_id, &res->side[1], out + 16 + PROTO_RESULT_SIZE);
}

int proto_decode_duet_result(const unsigned char in[PROTO_DUET_RESULT_SIZE], uint32_t *run_id,
			     struct duet_result *res)
{
	uint32_t flags, id;
	int i;

	memcpy(run_id, in, 4);
	memcpy(&flags, in + 4, 4);
	memcpy(&res->start_skew_ns, in + 8, 8);
	if (flags > 3)
		return EPROTO;
	for (i = 0; i < 2; i++) {
		res->stopped_by_twin[i] = flags >> i & 1;
		if (proto_decode_result(in + 16 + (size_t)i * PROTO_RESULT_SIZE, &id,
					&res->side[i]) != 0 ||
		    id != *run_id)
			return EPROTO;
	}
	return 0;
}
