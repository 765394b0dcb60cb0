/*
 * Private to src/harness: a small pull parser for the XML that test
 * frameworks write (Catch2's reporter), enough to walk elements and read
 * their attributes, strict about the rest. The document must be UTF-8
 * without NUL; elements nest at most XML_MAX_DEPTH levels and close in
 * order; attribute values may use the five predefined entities and
 * character references, which are decoded; comments, processing
 * instructions, CDATA and text are passed over (text checked for `&`);
 * a DOCTYPE is refused, so nothing is ever expanded. Each error is
 * "<name>:<line>:<column>: ..." through the collector, and one that ends
 * inside an element names the element and where it opened.
 */
#ifndef HIMORIME_HARNESS_XML_H
#define HIMORIME_HARNESS_XML_H

#include "common/strbuf.h"
#include "harness/harness_internal.h"

#include <stdbool.h>
#include <stddef.h>

#define XML_MAX_DEPTH 64
#define XML_MAX_ATTRS 32

enum xml_event { XML_START, XML_END, XML_DONE };

struct xml_span {
	size_t off, len;
};

struct xml {
	struct collect *c;
	size_t pos;
	size_t depth;
	struct xml_span open[XML_MAX_DEPTH]; /* the names of the open elements */
	bool root_seen, empty_pending;
	/* The element of the last XML_START or XML_END, and at XML_START its
	 * attributes: names in the document, values decoded into `values`. */
	struct xml_span name;
	size_t tag_off; /* where its tag starts */
	size_t n_attrs;
	struct xml_span attr_names[XML_MAX_ATTRS];
	size_t attr_values[XML_MAX_ATTRS]; /* offsets into values, NUL-terminated */
	size_t attr_lens[XML_MAX_ATTRS];
	struct strbuf values;
};

void xml_init(struct xml *x, struct collect *c);
void xml_release(struct xml *x);
/* The next start or end of an element (an empty element gives both), or
 * XML_DONE after the root has closed and only comments and blanks follow. */
int xml_next(struct xml *x, enum xml_event *ev);
/* Whether the current element is named `name`. */
bool xml_is(const struct xml *x, const char *name);
/* The decoded value of an attribute of the current start tag and its
 * length (never holding NUL: &#0; is refused), or NULL when it has none. */
const char *xml_attr(const struct xml *x, const char *name, size_t *len);

#endif
