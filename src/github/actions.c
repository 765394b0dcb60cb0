/*
 * Workflow commands: see actions.h.
 */
#include "github/actions.h"

#include "common/fsio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/banned.h"

#define SUMMARY_CUT_NOTE "\n… cut: the step summary is limited to 1 MiB\n"

static void escape(const char *s, int property, struct strbuf *out)
{
	for (; *s; s++) {
		switch (*s) {
		case '%':
			strbuf_adds(out, "%25");
			break;
		case '\r':
			strbuf_adds(out, "%0D");
			break;
		case '\n':
			strbuf_adds(out, "%0A");
			break;
		case ':':
			strbuf_adds(out, property ? "%3A" : ":");
			break;
		case ',':
			strbuf_adds(out, property ? "%2C" : ",");
			break;
		default:
			strbuf_addch(out, *s);
		}
	}
}

void github_actions_escape_data(const char *s, struct strbuf *out)
{
	escape(s, 0, out);
}

void github_actions_escape_property(const char *s, struct strbuf *out)
{
	escape(s, 1, out);
}

static const char *level_name(enum github_annotation_level level)
{
	switch (level) {
	case GITHUB_ANNOTATION_ERROR:
		return "error";
	case GITHUB_ANNOTATION_WARNING:
		return "warning";
	case GITHUB_ANNOTATION_NOTICE:
		return "notice";
	}
	return "error";
}

void github_actions_annotation(const struct github_annotation *a, struct strbuf *out)
{
	const char *sep = " ";

	strbuf_addf(out, "::%s", level_name(a->level));
	if (a->file) {
		strbuf_addf(out, "%sfile=", sep);
		github_actions_escape_property(a->file, out);
		sep = ",";
	}
	if (a->line) {
		strbuf_addf(out, "%sline=%u", sep, a->line);
		sep = ",";
	}
	if (a->title) {
		strbuf_addf(out, "%stitle=", sep);
		github_actions_escape_property(a->title, out);
	}
	strbuf_adds(out, "::");
	github_actions_escape_data(a->message ? a->message : "", out);
	strbuf_addch(out, '\n');
}

void github_actions_add_mask(const char *secret, struct strbuf *out)
{
	strbuf_adds(out, "::add-mask::");
	github_actions_escape_data(secret, out);
	strbuf_addch(out, '\n');
}

/* GITHUB_TOKEN_HEX random hex digits that do not occur in `avoid`. */
static void fresh_token(struct rng *rng, const char *prefix, const char *avoid, char *out,
			size_t size)
{
	static const char hex[] = "0123456789abcdef";

	do {
		size_t p = strlen(prefix), i;

		memcpy(out, prefix, p);
		for (i = 0; i < GITHUB_TOKEN_HEX && p + i + 1 < size; i++)
			out[p + i] = hex[rng_below(rng, 16)];
		out[p + i] = '\0';
	} while (strstr(avoid, out));
}

void github_actions_quote_output(struct rng *rng, const char *text, struct strbuf *out)
{
	char token[GITHUB_TOKEN_HEX + 1];
	size_t n = strlen(text);

	fresh_token(rng, "", text, token, sizeof(token));
	strbuf_addf(out, "::stop-commands::%s\n", token);
	strbuf_adds(out, text);
	if (n && text[n - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addf(out, "::%s::\n", token);
}

int github_actions_output(struct rng *rng, const char *name, const char *value, struct strbuf *out,
			  struct err *err)
{
	char delim[sizeof("ghadelimiter_") + GITHUB_TOKEN_HEX];

	if (!*name || strpbrk(name, "\r\n=") || strstr(name, "<<"))
		return err_set(err, ERR_USAGE, "github: output name \"%s\" is not valid", name);
	fresh_token(rng, "ghadelimiter_", value, delim, sizeof(delim));
	strbuf_addf(out, "%s<<%s\n%s\n%s\n", name, delim, value, delim);
	return 0;
}

int github_actions_output_append(const char *path, struct rng *rng, const char *name,
				 const char *value, struct err *err)
{
	struct strbuf sb;
	int rc;

	strbuf_init(&sb, 0);
	rc = github_actions_output(rng, name, value, &sb, err);
	if (!rc)
		rc = fsio_append(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return rc;
}

int github_actions_summary_append(const char *path, const char *markdown, struct err *err)
{
	struct stat st;
	size_t used = 0, room, n = strlen(markdown);
	size_t note = sizeof(SUMMARY_CUT_NOTE) - 1;
	struct strbuf sb;
	int rc;

	if (stat(path, &st) == 0)
		used = (size_t)st.st_size;
	else if (errno != ENOENT)
		return err_set(err, ERR_EXEC, "cannot read \"%s\": %s", path, strerror(errno));
	room = used < GITHUB_SUMMARY_MAX_BYTES ? GITHUB_SUMMARY_MAX_BYTES - used : 0;
	if (n <= room)
		return fsio_append(path, markdown, n, err);
	if (room <= note)
		return 0; /* full already: adding the note would pass the limit too */
	n = room - note;
	while (n && markdown[n - 1] != '\n')
		n--;
	strbuf_init(&sb, 0);
	strbuf_add(&sb, markdown, n);
	strbuf_adds(&sb, SUMMARY_CUT_NOTE);
	rc = fsio_append(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return rc;
}
