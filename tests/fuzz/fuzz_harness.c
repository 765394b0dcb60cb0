/*
 * libFuzzer harness for the harness output parsers and filters (src/harness):
 * the first byte chooses what the rest is. Its low bits pick the harness
 * (its enum harness_kind, modulo their number); with its top bit clear the
 * rest is one run's output, parsed, and every value of a parse that succeeds
 * is checked (finite, at least 0, the median among them, names found by
 * lookup); with it set the rest is a filter, checked, turned into every
 * harness's selection, and matched against itself and a few names. See
 * `make fuzz`.
 */
#include "common/alloc.h"
#include "common/err.h"
#include "harness/harness.h"
#include "harness/select.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_metric(const struct harness_metric *m)
{
	size_t i, below = 0, above = 0;

	if (!m->n_values)
		abort();
	for (i = 0; i < m->n_values; i++) {
		if (!isfinite(m->values[i]) || m->values[i] < 0)
			abort();
		below += m->values[i] <= m->value;
		above += m->values[i] >= m->value;
	}
	if (2 * below < m->n_values || 2 * above < m->n_values)
		abort(); /* not a median */
}

static void parse(enum harness_kind kind, const char *text, size_t len)
{
	struct harness_output out = HARNESS_OUTPUT_INIT;
	struct err err = ERR_INIT;
	size_t i, j;

	if (harness_parse(kind, text, len, "stdout", &out, &err)) {
		if (err.code != ERR_INVALID || strncmp(err.msg, "stdout", 6) || out.n_benchmarks)
			abort();
		return;
	}
	for (i = 0; i < out.n_benchmarks; i++) {
		const struct harness_benchmark *b = &out.benchmarks[i];
		if (harness_output_find(&out, b->name) != b)
			abort();
		for (j = 0; j < b->n_metrics; j++) {
			check_metric(&b->metrics[j]);
			if (harness_benchmark_metric(b, b->metrics[j].name) != &b->metrics[j])
				abort();
		}
	}
	harness_output_release(&out);
}

static void filter(const char *text, size_t len)
{
	static const char *const names[] = { "BM_Sort/64", "", "a.b+c(d)[e]", "t.py::T::t[1]" };
	struct harness_selection sel = HARNESS_SELECTION_INIT;
	struct err err = ERR_INIT;
	char *f = xstrndup(text, len);
	const char *fs[1] = { f };
	size_t i;
	int k;

	if (strlen(f) == len && !harness_filter_check(f, &err)) {
		for (k = 0; k < HARNESS__COUNT; k++)
			if (harness_select((enum harness_kind)k, fs, 1, &sel, &err))
				abort();
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			harness_filter_matches(f, names[i]);
	}
	harness_selection_release(&sel);
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 0x80)
		filter((const char *)data + 1, size - 1);
	else
		parse((enum harness_kind)((data[0] & 0x7f) % HARNESS__COUNT),
		      (const char *)data + 1, size - 1);
	return 0;
}
