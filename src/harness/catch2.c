/*
 * Catch2 v2's XML reporter (-r xml; -o FILE keeps what the tests print out
 * of it). A BENCHMARK lives in a TEST_CASE, perhaps in SECTIONs: its name
 * here is the test case's, the sections' and its own, joined by "/"
 * ("sorting/small/std::sort"), unique where its own name alone need not be.
 * Its one value is the <mean> of its samples, in ns: v2's XML holds neither
 * the samples nor their median. <failed message=...> inside it (the
 * benchmark threw) marks it failed. The root must be <Catch>; a document
 * that ends before it closes was cut short.
 */
#include "common/strbuf.h"
#include "harness/harness_internal.h"
#include "harness/xml.h"

#include <string.h>

#include "common/banned.h"

struct catch2 {
	struct xml x;
	struct collect *c;
	/* The test case and sections the parser is in, joined by '/', and
	 * where each part starts (so that its end can cut it off). */
	struct strbuf path;
	size_t starts[XML_MAX_DEPTH];
	size_t depth;
	bool in_bench, bench_done;
	size_t bench;	    /* its index in the output */
	size_t bench_depth; /* the depth of its element */
};

/* An error at the current tag. */
static int bad(struct catch2 *k, const char *what)
{
	struct where w = where_at(k->c, k->x.tag_off);

	return collect_bad(k->c, &w, "%s", what);
}

static int name_attr(struct catch2 *k, const char **out, size_t *len)
{
	*out = xml_attr(&k->x, "name", len);
	if (*out)
		return 0;
	return bad(k, "missing the attribute name");
}

static int enter(struct catch2 *k)
{
	const char *name;
	size_t len;

	bool test_case = xml_is(&k->x, "TestCase");

	if (k->in_bench)
		return bad(k, "a TestCase or Section inside BenchmarkResults");
	if (test_case && k->depth)
		return bad(k, "a TestCase inside a TestCase");
	if (!test_case && !k->depth)
		return bad(k, "a Section outside a TestCase");
	if (name_attr(k, &name, &len))
		return ERR_INVALID;
	k->starts[k->depth++] = k->path.len;
	if (k->path.len)
		strbuf_addch(&k->path, '/');
	strbuf_add(&k->path, name, len);
	return 0;
}

static int benchmark(struct catch2 *k)
{
	struct where w = where_at(k->c, k->x.tag_off);
	const char *name;
	size_t len, base = k->path.len;
	int rc;

	if (k->in_bench)
		return bad(k, "BenchmarkResults inside BenchmarkResults");
	if (!k->depth)
		return bad(k, "BenchmarkResults outside a TestCase");
	if (name_attr(k, &name, &len))
		return ERR_INVALID;
	strbuf_addch(&k->path, '/');
	strbuf_add(&k->path, name, len);
	rc = collect_benchmark(k->c, k->path.buf, k->path.len, IDENT_UNIQUE, &w, &k->bench);
	strbuf_setlen(&k->path, base);
	k->in_bench = true;
	k->bench_done = false;
	k->bench_depth = k->x.depth;
	return rc;
}

static int mean(struct catch2 *k)
{
	struct where w = where_at(k->c, k->x.tag_off);
	size_t len;
	const char *v = xml_attr(&k->x, "value", &len);
	double x;
	char q[128];

	if (!v)
		return bad(k, "missing the attribute value");
	if (!len || scan_number(v, len, &x) != len) {
		quote(q, sizeof(q), v, len);
		return collect_bad(k->c, &w, "mean: expected a number, got %s", q);
	}
	k->bench_done = true;
	return collect_value(k->c, k->bench, "time", "ns", BETTER_LOWER, x, &w);
}

static int start(struct catch2 *k)
{
	size_t len;
	const char *msg;

	if (k->x.depth == 1 && !xml_is(&k->x, "Catch"))
		return bad(k, "expected the root element <Catch> (Catch2 v2's -r xml)");
	if (xml_is(&k->x, "TestCase") || xml_is(&k->x, "Section"))
		return enter(k);
	if (xml_is(&k->x, "BenchmarkResults"))
		return benchmark(k);
	if (k->in_bench && xml_is(&k->x, "mean") && k->x.depth == k->bench_depth + 1)
		return mean(k);
	if (k->in_bench && xml_is(&k->x, "failed")) {
		msg = xml_attr(&k->x, "message", &len);
		collect_error(k->c, k->bench, msg ? msg : "", msg ? len : 0);
		k->bench_done = true;
	}
	return 0;
}

static int end(struct catch2 *k)
{
	if (xml_is(&k->x, "BenchmarkResults")) {
		k->in_bench = false;
		if (!k->bench_done)
			return bad(k, "BenchmarkResults without a mean or a failed element");
	} else if (xml_is(&k->x, "TestCase") || xml_is(&k->x, "Section")) {
		strbuf_setlen(&k->path, k->starts[--k->depth]);
	}
	return 0;
}

int parse_catch2(struct collect *c)
{
	struct catch2 k = { .c = c };
	enum xml_event ev = XML_START;
	int rc = 0;

	xml_init(&k.x, c);
	strbuf_init(&k.path, 0);
	while (!rc && ev != XML_DONE) {
		rc = xml_next(&k.x, &ev);
		if (!rc && ev == XML_START)
			rc = start(&k);
		else if (!rc && ev == XML_END)
			rc = end(&k);
	}
	strbuf_release(&k.path);
	xml_release(&k.x);
	return rc ? ERR_INVALID : 0;
}
