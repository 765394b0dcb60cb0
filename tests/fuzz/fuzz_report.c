/*
 * libFuzzer harness for the report reader and every renderer: any bytes as a
 * saved report (what `himorime report` and the fork-safe `himorime comment`
 * read from an untrusted artifact). A document that reads is rendered in
 * every format, the pull-request comment included, then written to JSON and
 * read back: the second JSON must equal the first. See `make fuzz`.
 */
#include "common/alloc.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "render/render.h"
#include "results/results.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum render_format formats[] = {
	RENDER_TABLE,	 RENDER_JSON,	RENDER_CSV,  RENDER_SAMPLES_CSV,
	RENDER_MARKDOWN, RENDER_GITHUB, RENDER_HTML,
};

static void render_all(const struct results *doc)
{
	struct render_options ro = RENDER_OPTIONS_INIT;
	struct err err = ERR_INIT;
	struct strbuf out;
	size_t i;

	strbuf_init(&out, 0);
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		ro.color = i % 2 == 0;
		render_to(doc, formats[i], &ro, &out, &err);
		strbuf_reset(&out);
	}
	ro.comment = true;
	ro.marker = "<!-- himorime:comment v1 suite=fuzz -->";
	ro.run_url = "https://github.com/o/r/actions/runs/1";
	render_to(doc, RENDER_GITHUB, &ro, &out, &err);
	strbuf_release(&out);
}

/* write -> read -> write gives the same bytes. */
static void round_trip(const struct results *doc)
{
	struct results *again = NULL;
	struct err err = ERR_INIT;
	char *first = NULL, *second = NULL;
	size_t n1 = 0, n2 = 0;

	if (results_to_json(doc, &first, &n1, &err) < 0)
		goto done; /* values JSON cannot hold: refused, not crashed */
	if (results_from_json(first, n1, "written", &again, &err) < 0) {
		fprintf(stderr, "fuzz_report: a written report does not read back: %s\n", err.msg);
		abort();
	}
	if (results_to_json(again, &second, &n2, &err) < 0 || n1 != n2 ||
	    memcmp(first, second, n1)) {
		fprintf(stderr, "fuzz_report: write -> read -> write changed the report\n");
		abort();
	}
done:
	free(first);
	free(second);
	results_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results *doc = NULL;
	struct err err = ERR_INIT;

	if (results_from_json((const char *)data, size, "fuzz.json", &doc, &err) < 0)
		return 0;
	render_all(doc);
	round_trip(doc);
	results_free(doc);
	return 0;
}
