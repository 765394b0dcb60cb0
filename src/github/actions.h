/*
 * GitHub Actions workflow commands, as strings for the CLI to print or files
 * to append to; nothing here touches the network or the terminal.
 *
 * Escaping follows the runner: message data turns % \r \n into %25 %0D %0A;
 * property values additionally turn : and , into %3A and %2C.
 * Measured output is wrapped in ::stop-commands::<token> ... ::<token>:: with
 * a random token so a benchmark cannot inject commands. GITHUB_OUTPUT values
 * use a random heredoc delimiter `name<<ghadelimiter_<random>` that does not
 * occur in the value. The step summary is capped at 1 MiB per step.
 */
#ifndef HIMORIME_GITHUB_ACTIONS_H
#define HIMORIME_GITHUB_ACTIONS_H

#include "common/err.h"
#include "common/rng.h"
#include "common/strbuf.h"

#define GITHUB_SUMMARY_MAX_BYTES ((size_t)1 << 20)
#define GITHUB_TOKEN_HEX	 32 /* hex digits in stop-commands tokens and delimiters */

enum github_annotation_level {
	GITHUB_ANNOTATION_ERROR,
	GITHUB_ANNOTATION_WARNING,
	GITHUB_ANNOTATION_NOTICE,
};

struct github_annotation {
	enum github_annotation_level level;
	const char *file;  /* NULL: none */
	unsigned line;	   /* 0: none */
	const char *title; /* NULL: none */
	const char *message;
};

void github_actions_escape_data(const char *s, struct strbuf *out);
void github_actions_escape_property(const char *s, struct strbuf *out);

/* "::error file=F,line=N,title=T::message\n" (properties that are absent are left out). */
void github_actions_annotation(const struct github_annotation *a, struct strbuf *out);

/* "::add-mask::<secret>\n" (the secret escaped as data). */
void github_actions_add_mask(const char *secret, struct strbuf *out);

/* Appends `text` wrapped in stop-commands with a fresh token from `rng`:
 * "::stop-commands::T\n<text>\n::T::\n". The token never occurs in text. */
void github_actions_quote_output(struct rng *rng, const char *text, struct strbuf *out);

/* "name<<ghadelimiter_R\nvalue\nghadelimiter_R\n" with R random and absent
 * from value. ERR_USAGE for a name that is empty or holds a newline or "<<". */
int github_actions_output(struct rng *rng, const char *name, const char *value, struct strbuf *out,
			  struct err *err);
/* The same appended to the GITHUB_OUTPUT file at `path`. */
int github_actions_output_append(const char *path, struct rng *rng, const char *name,
				 const char *value, struct err *err);

/* Appends Markdown to the GITHUB_STEP_SUMMARY file, keeping the file under
 * GITHUB_SUMMARY_MAX_BYTES: a longer text is cut at a line boundary with a
 * note. */
int github_actions_summary_append(const char *path, const char *markdown, struct err *err);

#endif
