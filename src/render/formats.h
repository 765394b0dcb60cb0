/*
 * The formats of a results document, one file each (render_table.c,
 * render_csv.c, render_markdown.c, render_html.c, render_sweep.c), called by
 * render_to (render.c) and by nothing else in render/. Each builds on the
 * shared helpers of render_internal.h.
 */
#ifndef HIMORIME_RENDER_FORMATS_H
#define HIMORIME_RENDER_FORMATS_H

#include "render/render_internal.h"

/* A sweep document is rendered as its commits' trends (render_sweep.c) in
 * every format but json and samples-csv. */
bool rnd_sweep_handles(const struct results *r, enum render_format f);
int rnd_sweep(const struct results *r, enum render_format f, struct strbuf *out, struct err *err);

int rnd_table(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_csv(const struct results *r, struct strbuf *out);
int rnd_samples_csv(const struct results *r, struct strbuf *out);
int rnd_markdown(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_github(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_html(const struct results *r, struct strbuf *out);

#endif
