/*
 * Noise guards and the measuring machine's description: see sysinfo.h.
 */
#include "measure/sysinfo.h"

#include "common/fsio.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/banned.h"

#define PROC_FILE_MAX (1u << 20)
#define CPU_MAX	      4096

static char *read_proc(const char *path)
{
	struct err err = ERR_INIT;
	char *text = NULL;
	size_t len;

	if (fsio_read_file(path, PROC_FILE_MAX, &text, &len, &err) != 0)
		return NULL;
	return text;
}

int sysinfo_parse_loadavg(const char *text, double load[3])
{
	const char *p = text;
	int i;

	for (i = 0; i < 3; i++) {
		char *end;
		errno = 0;
		load[i] = strtod(p, &end);
		if (end == p || errno || load[i] < 0)
			return -1;
		p = end;
	}
	return 0;
}

int sysinfo_parse_stat(const char *text, uint64_t *steal_ticks, uint64_t *total_ticks)
{
	const char *p = text;
	char *end;
	uint64_t v[8];
	int i;

	/* "cpu  user nice system idle iowait irq softirq steal ...": the first
	 * eight counters; guest time is already inside user. */
	if (strncmp(p, "cpu ", 4) != 0)
		return -1;
	p += 4;
	for (i = 0; i < 8; i++) {
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno)
			return -1;
		p = end;
	}
	*steal_ticks = v[7];
	*total_ticks = 0;
	for (i = 0; i < 8; i++)
		*total_ticks += v[i];
	return 0;
}

void sysinfo_sample(struct sysinfo_sample *out)
{
	char *text;

	memset(out, 0, sizeof(*out));
	text = read_proc("/proc/loadavg");
	if (text && sysinfo_parse_loadavg(text, out->load) == 0)
		out->has_load = true;
	free(text);
	text = read_proc("/proc/stat");
	if (text && sysinfo_parse_stat(text, &out->steal_ticks, &out->total_ticks) == 0)
		out->has_cpu = true;
	free(text);
}

void sysinfo_noise(const struct sysinfo_sample *before, const struct sysinfo_sample *after,
		   unsigned logical_cpus, struct sysinfo_noise *out)
{
	size_t len = 0;
	double load;

	memset(out, 0, sizeof(*out));
	if (logical_cpus == 0)
		logical_cpus = 1;
	if (before->has_load && after->has_load) {
		load = before->load[0] > after->load[0] ? before->load[0] : after->load[0];
		out->has_load = true;
		out->load_per_cpu = load / logical_cpus;
		if (out->load_per_cpu > SYSINFO_LOAD_PER_CPU_MAX) {
			out->noisy = true;
			len += (size_t)snprintf(out->reason + len, sizeof(out->reason) - len,
						"load average %.2f on %u logical CPU%s", load,
						logical_cpus, logical_cpus == 1 ? "" : "s");
		}
	}
	if (before->has_cpu && after->has_cpu && after->total_ticks > before->total_ticks &&
	    after->steal_ticks >= before->steal_ticks) {
		out->has_steal = true;
		out->steal_percent = 100.0 * (double)(after->steal_ticks - before->steal_ticks) /
				     (double)(after->total_ticks - before->total_ticks);
		if (out->steal_percent > SYSINFO_STEAL_PERCENT_MAX && len < sizeof(out->reason)) {
			out->noisy = true;
			snprintf(out->reason + len, sizeof(out->reason) - len,
				 "%sCPU steal time %.1f%% of the interval", len ? "; " : "",
				 out->steal_percent);
		}
	}
}

unsigned sysinfo_logical_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static void strip_newline(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

void sysinfo_governor(char *out, unsigned long cap)
{
	char path[96], first[32] = "";
	bool mixed = false;
	unsigned cpu;
	char *text;

	out[0] = '\0';
	for (cpu = 0; cpu < CPU_MAX; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
		text = read_proc(path);
		if (!text)
			break;
		strip_newline(text);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", text);
		else if (strcmp(first, text) != 0)
			mixed = true;
		free(text);
	}
	if (first[0])
		snprintf(out, cap, "%s%s", mixed ? "mixed, cpu0 " : "", first);
}

/* The value of the first "key<blanks>: value" line of text, into out. */
static bool field_value(const char *text, const char *key, char *out, size_t cap)
{
	const char *line = text, *colon;
	size_t klen = strlen(key);

	while (line && *line) {
		colon = strchr(line, ':');
		if (!strncmp(line, key, klen) && colon && strchr(" \t:", line[klen])) {
			colon++;
			colon += strspn(colon, " \t");
			snprintf(out, cap, "%.*s", (int)strcspn(colon, "\n"), colon);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

static void cpu_model(char *out, size_t cap)
{
	/* x86 names the model; arm kernels name the board or nothing. */
	static const char *const keys[] = { "model name", "Hardware", "cpu model", "Processor" };
	char *text = read_proc("/proc/cpuinfo");
	size_t i;

	out[0] = '\0';
	for (i = 0; text && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (field_value(text, keys[i], out, cap))
			break;
	free(text);
}

void sysinfo_environment(struct sysinfo_env *out)
{
	struct utsname u;

	memset(out, 0, sizeof(*out));
	snprintf(out->os, sizeof(out->os), "linux");
	if (uname(&u) == 0) {
		/* nodename, the host name, is deliberately never copied */
		snprintf(out->arch, sizeof(out->arch), "%s", u.machine);
		snprintf(out->kernel, sizeof(out->kernel), "%s", u.release);
	}
	cpu_model(out->cpu_model, sizeof(out->cpu_model));
	out->logical_cpus = sysinfo_logical_cpus();
	snprintf(out->libc, sizeof(out->libc), "glibc %s", gnu_get_libc_version());
	sysinfo_governor(out->governor, sizeof(out->governor));
}
