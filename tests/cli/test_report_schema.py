"""The JSON Schema of reports (docs/schema/report.schema.json): it is valid
JSON, uses only the keywords the small checker below understands, and every
fixture in tests/data/reports validates against it. Python's standard library
has no jsonschema, so the checker implements the subset the schema uses."""
import copy
import glob
import json
import os
import re
import unittest

from harness import DATA, ROOT

SCHEMA = os.path.join(ROOT, "docs", "schema", "report.schema.json")
KEYWORDS = {"$schema", "$id", "$ref", "$defs", "title", "description", "type", "required",
            "properties", "additionalProperties", "items", "enum", "const", "minimum",
            "maximum", "maxLength", "pattern"}


def type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise AssertionError(f"unknown type {name}")


def validate(schema, value, root, path="$"):
    """Returns a list of "path: problem" strings; empty when value is valid."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return validate(root["$defs"][name], value, root, path)
    errors = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(type_ok(value, t) for t in types):
            return [f"{path}: expected {'/'.join(types)}, got {json.dumps(value)[:40]}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {json.dumps(value)} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {json.dumps(schema['const'])}")
    if type_ok(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above {schema['maximum']}")
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing {key}")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                errors += validate(props[key], item, root, f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += validate(schema["additionalProperties"], item, root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(schema["items"], item, root, f"{path}[{i}]")
    return errors


def keywords(schema, found):
    """Collects every keyword used by the schema (not property names)."""
    if isinstance(schema, dict):
        for key, sub in schema.items():
            found.add(key)
            if key in ("properties", "$defs"):
                for s in sub.values():
                    keywords(s, found)
            elif key in ("items", "additionalProperties"):
                keywords(sub, found)
    return found


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class ReportSchemaTest(unittest.TestCase):
    def setUp(self):
        self.schema = load(SCHEMA)

    def test_schema_uses_only_checked_keywords(self):
        self.assertEqual(keywords(self.schema, set()) - KEYWORDS, set())
        self.assertEqual(self.schema["required"], ["schema_version", "mode"])

    def test_every_fixture_validates(self):
        fixtures = sorted(glob.glob(os.path.join(DATA, "reports", "v1-*.json")))
        self.assertEqual([os.path.basename(f) for f in fixtures],
                         ["v1-calibrate-schedules.json", "v1-calibrate.json",
                          "v1-command-counts.json", "v1-compare.json",
                          "v1-counts.json", "v1-duet.json", "v1-harness-metrics.json",
                          "v1-harness.json", "v1-minimal.json", "v1-pr.json", "v1-run.json"])
        for path in fixtures:
            with self.subTest(path=os.path.basename(path)):
                self.assertEqual(validate(self.schema, load(path), self.schema), [])

    def test_wrong_documents_are_refused(self):
        doc = load(os.path.join(DATA, "reports", "v1-compare.json"))
        cases = [
            (lambda d: d.pop("mode"), ["$: missing mode"]),
            (lambda d: d.update(schema_version="2"), ['$.schema_version: expected "1"']),
            (lambda d: d.update(seed="42"), ['$.seed: expected integer, got "42"']),
            (lambda d: d.update(seed=2 ** 53), ["$.seed: above 9007199254740991"]),
            (lambda d: d.update(started_at="yesterday"),
             [f"$.started_at: does not match {self.schema['properties']['started_at']['pattern']}"]),
            (lambda d: d["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]
             ["latency"]["samples"].append("x"),
             ['$.suites[0].benchmarks[0].commands[0].head.metrics.latency.samples[5]: '
              'expected number, got "x"']),
            (lambda d: d["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]
             ["latency"].update(verdict="worse"),
             ["$.suites[0].benchmarks[0].commands[0].comparisons.latency.verdict: \"worse\" is "
              "not one of ['pass', 'improved', 'regression', 'inconclusive', 'skipped']"]),
        ]
        for change, expected in cases:
            d = copy.deepcopy(doc)
            change(d)
            self.assertEqual(validate(self.schema, d, self.schema), expected)


if __name__ == "__main__":
    unittest.main()
