/*
 * The entry point of every rendering (see render.h): format names and the
 * dispatch to each format (render/formats.h). The formats share helpers
 * (render_internal.h: shared.c, notes.c, escape.c) that never call back
 * here, so the arrows run one way: render.c -> formats -> helpers.
 */
#include "render/formats.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

#include "common/banned.h"

static const char *const format_names[] = {
	[RENDER_TABLE] = "table",	[RENDER_JSON] = "json",
	[RENDER_CSV] = "csv",		[RENDER_SAMPLES_CSV] = "samples-csv",
	[RENDER_MARKDOWN] = "markdown", [RENDER_GITHUB] = "github",
	[RENDER_HTML] = "html",
};

int render_format_from_name(const char *name, enum render_format *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(name, format_names[i])) {
			*out = (enum render_format)i;
			return 0;
		}
	return -1;
}

const char *render_format_name(enum render_format f)
{
	return format_names[f];
}

static int render_json(const struct results *r, struct strbuf *out, struct err *err)
{
	char *json = NULL;
	size_t len = 0;
	int rc = results_to_json(r, &json, &len, err);

	if (!rc)
		strbuf_add(out, json, len);
	free(json);
	return rc;
}

int render_to(const struct results *r, enum render_format f, const struct render_options *o,
	      struct strbuf *out, struct err *err)
{
	struct render_options defaults = RENDER_OPTIONS_INIT;

	if (!o)
		o = &defaults;
	if (rnd_sweep_handles(r, f))
		return rnd_sweep(r, f, o, out, err);
	switch (f) {
	case RENDER_TABLE:
		return rnd_table(r, o, out);
	case RENDER_JSON:
		return render_json(r, out, err);
	case RENDER_CSV:
		return rnd_csv(r, out);
	case RENDER_SAMPLES_CSV:
		return rnd_samples_csv(r, o->sink, out, err);
	case RENDER_MARKDOWN:
		return rnd_markdown(r, o, out);
	case RENDER_GITHUB:
		return rnd_github(r, o, out);
	case RENDER_HTML:
		return rnd_html(r, out);
	}
	return err_set(err, ERR_INTERNAL, "unknown render format %d", (int)f);
}
