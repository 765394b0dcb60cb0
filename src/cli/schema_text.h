/*
 * The suite's JSON Schema, docs/schema/suite.schema.json, compiled into the
 * binary as its bytes (the Makefile generates the definition from that one
 * file): `himorime init` writes it beside the suite it makes, so that the
 * suite's `$schema` comment names a file that exists and matches this
 * himorime, with no network.
 */
#ifndef HIMORIME_CLI_SCHEMA_TEXT_H
#define HIMORIME_CLI_SCHEMA_TEXT_H

#include <stddef.h>

extern const unsigned char cli_suite_schema[];
extern const size_t cli_suite_schema_len;

#endif
