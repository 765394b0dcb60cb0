/*
 * The formats of a results document, one file each (render_table.c,
 * render_csv.c, render_markdown.c, render_github.c, render_html.c,
 * render_sweep.c), called by render_to (render.c); only the github summary
 * reuses the Markdown tables declared at the end. Each builds on the shared
 * helpers of render_internal.h.
 */
#ifndef HIMORIME_RENDER_FORMATS_H
#define HIMORIME_RENDER_FORMATS_H

#include "render/render_internal.h"

/* A sweep document is rendered as its commits' trends (render_sweep.c) in
 * every format but json and samples-csv. */
bool rnd_sweep_handles(const struct results *r, enum render_format f);
int rnd_sweep(const struct results *r, enum render_format f, const struct render_options *o,
	      struct strbuf *out, struct err *err);

int rnd_table(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_csv(const struct results *r, struct strbuf *out);
int rnd_samples_csv(const struct results *r, const struct render_sink *sink, struct strbuf *out,
		    struct err *err);
int rnd_markdown(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_github(const struct results *r, const struct render_options *o, struct strbuf *out);
int rnd_html(const struct results *r, struct strbuf *out);

/* Markdown pieces the github summary reuses (render_markdown.c): the label
 * cell "bench › command", statistics per group (false when nothing was
 * measured), comparisons and budgets (their row counts), the notes. */
void rnd_md_cell_label(struct strbuf *sb, const struct rnd_row *row);
bool rnd_md_stats_table(const struct results *r, const struct rnd_rows *rows, enum metric_group g,
			struct strbuf *out);
size_t rnd_md_compare_table(const struct rnd_rows *rows, int group, bool pairs, struct strbuf *out);
size_t rnd_md_budget_table(const struct rnd_rows *rows, bool problems_only, struct strbuf *out);
void rnd_md_notes_list(const struct results *r, struct strbuf *out);

#endif
