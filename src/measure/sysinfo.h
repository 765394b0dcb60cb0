/*
 * Noise guards and the machine a report was measured on. A caller brackets a
 * benchmark with two samples (load average, CPU steal counters), asks whether
 * the interval looks noisy, and records the environment once per report: OS,
 * architecture, kernel, CPU model, logical CPUs, libc and frequency governor.
 * Never the host name, the user or any environment value.
 *
 *     struct sysinfo_sample before, after;
 *     sysinfo_sample(&before);  ...measure...  sysinfo_sample(&after);
 *     sysinfo_noise(&before, &after, sysinfo_logical_cpus(), &noise);
 *     if (noise.noisy) report noise.reason;
 */
#ifndef HIMORIME_MEASURE_SYSINFO_H
#define HIMORIME_MEASURE_SYSINFO_H

#include <stdbool.h>
#include <stdint.h>

#define SYSINFO_LOAD_PER_CPU_MAX  1.0 /* more runnable tasks than CPUs */
#define SYSINFO_STEAL_PERCENT_MAX 5.0

struct sysinfo_sample {
	bool has_load;	/* /proc/loadavg was readable */
	double load[3]; /* 1-, 5- and 15-minute load averages */
	bool has_cpu;	/* /proc/stat was readable */
	uint64_t steal_ticks, total_ticks;
};

struct sysinfo_noise {
	bool has_load, has_steal;
	double load_per_cpu;  /* the larger 1-minute load of the two samples, per CPU */
	double steal_percent; /* steal ticks / all ticks over the interval */
	bool noisy;
	char reason[160]; /* "load average 3.10 on 2 logical CPUs; CPU steal 7.5%" */
};

struct sysinfo_env {
	char os[32];	    /* "linux" */
	char arch[65];	    /* "x86_64" */
	char kernel[65];    /* "6.1.0-18-amd64" */
	char cpu_model[96]; /* "AMD EPYC 7763 64-Core Processor", or "" */
	unsigned logical_cpus;
	char libc[32];	   /* "glibc 2.36" */
	char governor[64]; /* "performance", "mixed: ...", or "" where unreadable */
};

/* Reads what is readable now; a part that is not stays marked absent. */
void sysinfo_sample(struct sysinfo_sample *out);
void sysinfo_noise(const struct sysinfo_sample *before, const struct sysinfo_sample *after,
		   unsigned logical_cpus, struct sysinfo_noise *out);
unsigned sysinfo_logical_cpus(void);
/* The governor of every CPU, when they agree; "" when none is readable. */
void sysinfo_governor(char *out, unsigned long cap);
void sysinfo_environment(struct sysinfo_env *out);

/* Parsers of /proc text, split out so that unusual content is testable.
 * Return 0, or -1 when the text is not what they expect. */
int sysinfo_parse_loadavg(const char *text, double load[3]);
int sysinfo_parse_stat(const char *text, uint64_t *steal_ticks, uint64_t *total_ticks);

#endif
