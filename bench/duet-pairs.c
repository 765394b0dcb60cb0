/*
 * Duet runs against sequential pairs, through the measurer and the real
 * spawner (src/measure/measure.h), in one process. Each of N iterations
 * makes, in a random order, one duet of PROGRAM beside itself (the two CPUs
 * swapped from one duet to the next, as the engine will) and one sequential
 * pair (two runs back to back, as the interleaved schedule makes them, the
 * labels base and head coin-flipped): both A/A, both meeting the machine at
 * the same moment. It prints one JSON object:
 *
 *   alone, duet      median latency and CPU time (ms) of a run alone (the
 *                    sequential runs) and of a run beside its twin (both
 *                    sides of the duets), and their ratio
 *   skew             the duets' start skews (|side 1 - side 0| at execve):
 *                    median, 90th percentile and largest, in ns
 *   spread           of each pair's ln(base / head) latency: the standard
 *                    deviation and the interquartile range / 1.349, duet
 *                    and sequential, and duet / sequential for both
 *   cpu_bias         median ln(latency on the lower CPU / on the higher) in
 *                    the duets: what the CPUs themselves add
 *
 *   cc -O2 -D_GNU_SOURCE -Isrc -o /tmp/duet-pairs bench/duet-pairs.c \
 *      build/libhimorime.a -lm
 *   /tmp/duet-pairs [--in-process] [--seed S] N PROGRAM [ARG...]
 *
 * bench/duet builds the workloads, the noise, and runs this under each.
 */
#include "measure/measure.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	double wall_ms, cpu_ms;
};

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q quantile (type 7) of v[0..n), sorted in place. */
static double quantile(double *v, size_t n, double q)
{
	double h;
	size_t lo;

	qsort(v, n, sizeof(*v), compare_double);
	h = q * (double)(n - 1);
	lo = (size_t)h;
	return lo + 1 < n ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[lo];
}

static double stddev(const double *v, size_t n)
{
	double mean = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += v[i] / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

static double robust_sd(double *v, size_t n)
{
	return (quantile(v, n, 0.75) - quantile(v, n, 0.25)) / 1.349;
}

static struct sample sample_of(const struct run_result *res)
{
	return (struct sample){ (double)res->wall_ns / 1e6,
				(double)(res->user_ns + res->system_ns) / 1e6 };
}

static bool ok(const struct run_result *res)
{
	return res->status == RUN_EXITED && res->code == 0;
}

/* One sequential pair: two runs back to back; base is a coin flip. */
static int sequential(struct measurer *m, const struct run_request *req, struct sample out[2],
		      double *diff)
{
	struct run_result res[2];
	struct err err = ERR_INIT;
	int i, base = rand() % 2;

	for (i = 0; i < 2; i++)
		if (measurer_run(m, req, 1, &res[i], &err) != 1 || !ok(&res[i])) {
			fprintf(stderr, "duet-pairs: a run failed: %s\n", err.msg);
			return -1;
		}
	out[0] = sample_of(&res[0]);
	out[1] = sample_of(&res[1]);
	*diff = log(out[base].wall_ms / out[1 - base].wall_ms);
	return 0;
}

/* One duet, its CPUs swapped every other call. */
static int duet(struct measurer *m, const struct run_request *req, const int cpu[2], long k,
		struct sample out[2], double *diff, double *bias, double *skew)
{
	struct duet_request d = { .side = { *req, *req } };
	struct duet_result res;
	struct err err = ERR_INIT;
	int i;

	d.cpu[0] = cpu[k % 2];
	d.cpu[1] = cpu[1 - k % 2];
	if (measurer_duet(m, &d, &res, &err) != 0 || !ok(&res.side[0]) || !ok(&res.side[1])) {
		fprintf(stderr, "duet-pairs: a duet failed: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < 2; i++)
		out[i] = sample_of(&res.side[i]);
	*diff = log(out[0].wall_ms / out[1].wall_ms);
	*bias = log(out[k % 2].wall_ms / out[1 - k % 2].wall_ms); /* lower CPU / higher */
	*skew = fabs((double)res.start_skew_ns);
	return 0;
}

static double median_of(const struct sample *s, size_t n, bool cpu)
{
	double *v = malloc(n * sizeof(*v)), q;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = cpu ? s[i].cpu_ms : s[i].wall_ms;
	q = quantile(v, n, 0.5);
	free(v);
	return q;
}

static void report(const char *program, long n, struct sample *alone, struct sample *twin,
		   double *seq_diff, double *duet_diff, double *bias, double *skew)
{
	double sd_duet = stddev(duet_diff, (size_t)n), sd_seq = stddev(seq_diff, (size_t)n);
	double rsd_duet = robust_sd(duet_diff, (size_t)n), rsd_seq = robust_sd(seq_diff, (size_t)n);
	double wall_alone = median_of(alone, 2 * (size_t)n, false);
	double wall_duet = median_of(twin, 2 * (size_t)n, false);
	double cpu_alone = median_of(alone, 2 * (size_t)n, true);
	double cpu_duet = median_of(twin, 2 * (size_t)n, true);

	printf("{\"program\": \"%s\", \"pairs\": %ld,\n", program, n);
	printf(" \"alone\": {\"latency_ms\": %.4f, \"cpu_ms\": %.4f},\n", wall_alone, cpu_alone);
	printf(" \"duet\": {\"latency_ms\": %.4f, \"cpu_ms\": %.4f},\n", wall_duet, cpu_duet);
	printf(" \"duet_over_alone\": {\"latency\": %.4f, \"cpu\": %.4f},\n",
	       wall_duet / wall_alone, cpu_duet / cpu_alone);
	printf(" \"skew_ns\": {\"median\": %.0f, \"p90\": %.0f, \"max\": %.0f},\n",
	       quantile(skew, (size_t)n, 0.5), quantile(skew, (size_t)n, 0.9),
	       quantile(skew, (size_t)n, 1.0));
	printf(" \"spread\": {\"sd_duet\": %.5f, \"sd_sequential\": %.5f, \"sd_ratio\": %.3f,\n"
	       "            \"robust_duet\": %.5f, \"robust_sequential\": %.5f, "
	       "\"robust_ratio\": %.3f},\n",
	       sd_duet, sd_seq, sd_duet / sd_seq, rsd_duet, rsd_seq, rsd_duet / rsd_seq);
	printf(" \"cpu_bias\": %.5f}\n", quantile(bias, (size_t)n, 0.5));
}

int main(int argc, char **argv)
{
	struct measurer_options o = MEASURER_OPTIONS_INIT;
	struct run_request req = { 0 };
	struct measurer *m = NULL;
	struct err err = ERR_INIT;
	struct sample *alone, *twin;
	double *seq_diff, *duet_diff, *bias, *skew;
	int cpu[2], a = 1, rc = 0;
	unsigned seed = 1;
	long n, i;

	for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
		if (!strcmp(argv[a], "--in-process"))
			o.use_spawner = false;
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = (unsigned)strtoul(argv[++a], NULL, 10);
		else
			break;
	}
	if (argc - a < 2 || (n = strtol(argv[a], NULL, 10)) < 2) {
		fprintf(stderr, "usage: duet-pairs [--in-process] [--seed S] N PROGRAM [ARG...]\n");
		return 2;
	}
	req.argv = argv + a + 1;
	o.spawner_path = getenv("HIMORIME_SPAWNER") ? getenv("HIMORIME_SPAWNER")
						    : "build/himorime-spawner";
	if (measurer_new(&o, &m, &err) != 0 || measurer_duet_cpus(cpu, &err) != 0) {
		fprintf(stderr, "duet-pairs: %s\n", err.msg);
		return 1;
	}
	if (o.use_spawner && !measurer_uses_spawner(m)) {
		fprintf(stderr, "duet-pairs: no spawner: %s\n", measurer_fallback_reason(m));
		return 1;
	}
	srand(seed);
	alone = calloc(2 * (size_t)n, sizeof(*alone));
	twin = calloc(2 * (size_t)n, sizeof(*twin));
	seq_diff = calloc((size_t)n, sizeof(double));
	duet_diff = calloc((size_t)n, sizeof(double));
	bias = calloc((size_t)n, sizeof(double));
	skew = calloc((size_t)n, sizeof(double));
	for (i = 0; i < n && rc == 0; i++) {
		if (rand() % 2)
			rc = sequential(m, &req, &alone[2 * i], &seq_diff[i]) ||
			     duet(m, &req, cpu, i, &twin[2 * i], &duet_diff[i], &bias[i], &skew[i]);
		else
			rc = duet(m, &req, cpu, i, &twin[2 * i], &duet_diff[i], &bias[i], &skew[i]) ||
			     sequential(m, &req, &alone[2 * i], &seq_diff[i]);
	}
	if (rc == 0)
		report(req.argv[0], n, alone, twin, seq_diff, duet_diff, bias, skew);
	free(alone);
	free(twin);
	free(seq_diff);
	free(duet_diff);
	free(bias);
	free(skew);
	measurer_free(m);
	return rc ? 1 : 0;
}
