/*
 * Strict JSON for untrusted documents, shared by the two areas that may see
 * cJSON (results: saved reports; github: event payloads). cJSON alone accepts
 * trailing text, keeps duplicate keys (lookups find the first, so two readers
 * could see different values) and allocates without bound; this parser
 * refuses all of that before any field is read. Included only by src/results
 * and src/github (docs/github-actions.md, "Threat model").
 */
#ifndef HIMORIME_RESULTS_JSON_H
#define HIMORIME_RESULTS_JSON_H

#include "common/err.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Parses `len` bytes as one JSON value: valid UTF-8, no NUL or control
 * character in strings, strict numbers, at most RESULTS_MAX_DEPTH levels and
 * `max_values` values (counted before cJSON allocates anything), nothing but
 * whitespace after it, no object with a key twice. *out is the tree for
 * cJSON_Delete. ERR_INVALID with "<name>:<line>:<col>: why" (or a $.path for
 * a duplicate key) on anything else. */
int results_json_parse(const char *data, size_t len, const char *name, size_t max_values,
		       cJSON **out, struct err *err);

#endif
