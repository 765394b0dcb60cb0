"""Every suite key a message names is a real key (issue 18, item 7): the
inconclusive note told users to raise `regression.max_runs`, which does not
exist. This reads every string literal of src/, takes the suite keys it names
(dotted paths that start at a suite key, and the key after "raise", "lower",
"set", "below", ... ) and resolves each in docs/schema/suite.schema.json."""
import glob
import json
import os
import re
import unittest

from harness import ROOT

SCHEMA = os.path.join(ROOT, "docs", "schema", "suite.schema.json")

# A C string literal; comments are removed first.
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r"/\*.*?\*/|^#include[^\n]*", re.S | re.M)
# a.b.c, benchmarks[0].runs, regression.<metric>.gate, report.versions.%s
# (not a part of a file name: "common/version.h", "himorime-report.json")
DOTTED = re.compile(r"(?<![-/\w.])[a-z_]+(?:\[[^\]]*\])?(?:\.(?:[a-z_]+|<[a-z_]+>|%[a-z]+)(?:\[[^\]]*\])?)+(?![-/\w])")
# "raise max_runs", "below min_samples", "set regression.confidence"
AFTER_VERB = re.compile(
    r"\b(?:[Rr]aise|[Ll]ower|[Ss]et|[Ii]ncrease|[Rr]educe|[Ww]iden|[Nn]arrow|below|above)\s+`?"
    r"([a-z]+_[a-z_.]*[a-z]|[a-z]+\.[a-z_.]*[a-z])")


def literals():
    """(file, text) of every string literal in src/."""
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            code = COMMENT.sub("", f.read())
        for text in LITERAL.findall(code):
            yield os.path.relpath(path, ROOT), text


class Schema:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.doc = json.load(f)
        self.names = set()
        self.collect(self.doc)

    def collect(self, node):
        if isinstance(node, dict):
            self.names.update(node.get("properties", {}))
            for v in node.values():
                self.collect(v)
        elif isinstance(node, list):
            for v in node:
                self.collect(v)

    def expand(self, node):
        """The object schemas a node can be: $ref and the combinators
        followed."""
        if not isinstance(node, dict):
            return []
        if "$ref" in node:
            ref = node["$ref"]
            target = self.doc
            for part in ref.lstrip("#/").split("/"):
                target = target[part]
            return self.expand(target)
        out = [node]
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(key, []):
                out += self.expand(sub)
        return out

    def child(self, node, name):
        """The schemas of property `name` (a placeholder: any property)."""
        out = []
        for n in self.expand(node):
            props = n.get("properties", {})
            if name.startswith("%") or name.startswith("<"):
                out += list(props.values())
                if isinstance(n.get("additionalProperties"), dict):
                    out.append(n["additionalProperties"])
                out += list(n.get("patternProperties", {}).values())
                continue
            if name in props:
                out.append(props[name])
            else:
                for pattern, sub in n.get("patternProperties", {}).items():
                    if re.search(pattern, name):
                        out.append(sub)
        return out

    def items(self, node):
        return [n["items"] for n in self.expand(node) if isinstance(n.get("items"), dict)]

    def resolves(self, path, start):
        nodes = [start]
        for segment in path.split("."):
            m = re.fullmatch(r"([^\[]+)(\[[^\]]*\])?", segment)
            name, index = m.group(1), m.group(2)
            nodes = [c for n in nodes for c in self.child(n, name)]
            if index:
                nodes = [i for n in nodes for i in self.items(n)]
            if not nodes:
                return False
        return True

    def starts(self):
        """Where a key path can start: the top level, a benchmark (also
        under defaults) and a command."""
        defs = self.doc["$defs"]
        return [self.doc, defs["benchmark"], defs["command"]]

    def is_key(self, path):
        return any(self.resolves(path, s) for s in self.starts())

    def first_segment_is_key(self, path):
        first = re.match(r"[a-z_]+", path).group(0)
        return any(self.child(s, first) for s in self.starts())


def named_keys(schema):
    """(file, text, key) for each suite key a literal names."""
    for path, text in literals():
        for m in DOTTED.finditer(text):
            key = m.group(0)
            if schema.first_segment_is_key(key):
                yield path, text, key
        for m in AFTER_VERB.finditer(text):
            key = m.group(1)
            if "_" in key or schema.first_segment_is_key(key):
                yield path, text, key


class MessageKeysTest(unittest.TestCase):
    maxDiff = None

    def test_issue18_item7__every_key_a_message_names_is_a_suite_key(self):
        schema = Schema(SCHEMA)
        found = list(named_keys(schema))
        # the extraction itself sees the keys messages use
        keys = {k for _, _, k in found}
        for k in ("max_cv", "regression.min_samples", "metrics.throughput.work",
                  "report.versions"):
            self.assertIn(k, keys)
        wrong = ["%s: %r names %s" % (p, t, k) for p, t, k in found
                 if not (schema.is_key(k) or k in schema.names)]
        self.assertEqual(wrong, [])

    def test_issue18_item7__the_check_refuses_keys_that_do_not_exist(self):
        schema = Schema(SCHEMA)
        self.assertFalse(schema.is_key("regression.max_runs"))
        self.assertTrue(schema.is_key("max_runs"))
        self.assertTrue(schema.is_key("regression.latency.gate"))
        self.assertTrue(schema.is_key("regression.<metric>.max_percent"))
        self.assertTrue(schema.is_key("benchmarks[0].regression.min_samples"))
        self.assertTrue(schema.is_key("defaults.regression.confidence"))


if __name__ == "__main__":
    unittest.main()
