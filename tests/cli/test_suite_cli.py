"""init, validate and list driven as a user would: files, directories,
selection flags, JSON output, usage errors; and every example suite in
docs/configuration.md validates."""
import json
import os
import re
import subprocess
import unittest

from harness import ROOT, TempDirTest, run

SUITE = """version: "1"
name: s
benchmarks:
  - name: {name}
    tags: [{tags}]
    commands:
      one: {{command: [echo, "a b"]}}
      two: {{command: "echo ${{root}} | wc", shell: true}}
"""


class SuiteCliTest(TempDirTest):
    def suite(self, rel, name="b", tags="x"):
        return self.write(rel, SUITE.format(name=name, tags=tags))

    def test_suite_cli__init_writes_a_valid_suite(self):
        res = run(["init"], cwd=self.tmp)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "wrote himorime.yaml and himorime.schema.json; check it with "
                                  "'himorime validate himorime.yaml'\n")
        with open(os.path.join(self.tmp, "himorime.yaml")) as f:
            text = f.read()
        self.assertEqual(text.splitlines()[0],
                         "# yaml-language-server: $schema=himorime.schema.json")
        self.assertNotIn("build:", text)
        res = run(["validate"], cwd=self.tmp)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "himorime.yaml: ok (1 benchmark, 1 command)\n")

    def test_issue28_docs__init_writes_the_schema_its_comment_names(self):
        os.makedirs(os.path.join(self.tmp, "bench"))
        res = run(["init", "bench/perf.himorime.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        with open(os.path.join(self.tmp, "bench", "perf.himorime.yaml")) as f:
            first = f.readline()
        name = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)\n", first).group(1)
        # relative to the suite, as editors resolve it: the schema of docs/
        with open(os.path.join(self.tmp, "bench", name), "rb") as f:
            written = f.read()
        with open(os.path.join(ROOT, "docs", "schema", "suite.schema.json"), "rb") as f:
            self.assertEqual(written, f.read())
        # the suite passes its own schema
        try:
            import jsonschema
            import yaml
        except ImportError:
            self.skipTest("python3-jsonschema and python3-yaml are needed")
        with open(os.path.join(self.tmp, "bench", "perf.himorime.yaml")) as f:
            doc = yaml.safe_load(f)
        errors = jsonschema.Draft202012Validator(json.loads(written)).iter_errors(doc)
        self.assertEqual([e.message for e in errors], [])

    def test_issue28_should_fix__run_without_a_suite_suggests_init(self):
        for cmd in (["run"], ["validate"], ["compare", "--against", "HEAD"]):
            with self.subTest(cmd=cmd):
                res = run(cmd, cwd=self.tmp)
                self.assertExit(res, 2)
                self.assertEqual(
                    res.err,
                    'himorime.yaml: cannot read "himorime.yaml": No such file or directory '
                    "[HMR2001]\n"
                    "  hint: no himorime.yaml here: 'himorime init' writes one (with a build "
                    "step for the build system it finds), or name a suite file or directory\n"
                    "himorime: exit 2: 1 problem in 1 suite file\n")
        # a suite named on the command line gets no such hint
        res = run(["run", "other.yaml"], cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertNotIn("himorime init", res.err)

    def test_suite_cli__init_refuses_to_overwrite(self):
        path = self.write("mine.yaml", "keep me\n")
        res = run(["init", "mine.yaml"], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertEqual(res.err, 'himorime: error: "mine.yaml" already exists [HMR3001]\n'
                         "  hint: run 'himorime init --force mine.yaml' to overwrite it\n"
                         "himorime: exit 3: invalid command line\n")
        with open(path) as f:
            self.assertEqual(f.read(), "keep me\n")
        res = run(["init", "--force", "mine.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        with open(path) as f:
            self.assertIn('version: "1"', f.read())

    def test_suite_cli__init_rejects_two_paths_and_unknown_flags(self):
        self.assertExit(run(["init", "a.yaml", "b.yaml"], cwd=self.tmp), 3)
        res = run(["init", "--forse"], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertEqual(res.err, 'himorime: error: unknown flag "--forse" for "init" '
                         "(see 'himorime help init') [HMR3001]\n"
                         "  hint: run 'himorime help init' for its flags\n"
                         "himorime: exit 3: invalid command line\n")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "himorime.yaml")))

    def test_suite_cli__validate_directory_takes_sorted_suite_files(self):
        self.suite("d/himorime.yaml")
        self.suite("d/z.himorime.yaml")
        self.suite("d/a.himorime.yaml")
        self.write("d/other.yaml", "not: a suite\n")
        res = run(["validate", "d"], cwd=self.tmp)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "d/himorime.yaml: ok (1 benchmark, 2 commands)\n"
                         "d/a.himorime.yaml: ok (1 benchmark, 2 commands)\n"
                         "d/z.himorime.yaml: ok (1 benchmark, 2 commands)\n")

    def test_suite_cli__validate_reports_every_file(self):
        self.write("a.yaml", 'version: "1"\nname: a\nbenchmarks: []\n')
        self.suite("ok.yaml")
        self.write("b.yaml", "version: 2\n")
        res = run(["validate", "a.yaml", "ok.yaml", "b.yaml", "missing.yaml"], cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertEqual(res.out, "")
        self.assertEqual(res.err,
                         "a.yaml:3:13: benchmarks: expected at least one benchmark, got [] [HMR2001]\n"
                         "b.yaml:1:1: expected a map with name, got no name [HMR2001]\n"
                         "b.yaml:1:1: expected a map with benchmarks, got no benchmarks [HMR2001]\n"
                         'b.yaml:1:10: version: expected "1", got 2 [HMR2001]\n'
                         'missing.yaml: cannot read "missing.yaml": No such file or directory [HMR2001]\n'
                         "himorime: exit 2: 5 problems in 3 suite files\n")

    def test_suite_cli__validate_default_path_and_empty_directory(self):
        res = run(["validate"], cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertIn('himorime.yaml: cannot read "himorime.yaml"', res.err)
        os.mkdir(os.path.join(self.tmp, "empty"))
        res = run(["validate", "empty"], cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertEqual(res.err, "empty: expected a directory with himorime.yaml or "
                         "*.himorime.yaml files, found none [HMR2001]\n"
                         "himorime: exit 2: 1 problem in 1 suite file\n")

    def test_suite_cli__list_text(self):
        self.suite("s.yaml", name="parse", tags="io, fast")
        res = run(["list", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        self.assertEqual(res.out, "s.yaml\tparse\tio,fast\t-\tone\techo 'a b'\n"
                         "s.yaml\tparse\tio,fast\t-\ttwo\techo ${root} | wc\n")

    def test_suite_cli__list_selection(self):
        self.suite("a.himorime.yaml", name="parse-small", tags="io")
        self.suite("b.himorime.yaml", name="render", tags="cpu, slow")
        self.suite("c.himorime.yaml", name="parse-big", tags="io, slow")

        def benchmarks(*flags):
            res = run(["list", *flags, "."], cwd=self.tmp)
            self.assertExit(res, 0)
            return sorted({l.split("\t")[1] for l in res.out.splitlines()})

        self.assertEqual(benchmarks(), ["parse-big", "parse-small", "render"])
        self.assertEqual(benchmarks("--filter", "^parse"), ["parse-big", "parse-small"])
        self.assertEqual(benchmarks("--filter", "big|rend"), ["parse-big", "render"])
        self.assertEqual(benchmarks("--tag", "slow"), ["parse-big", "render"])
        self.assertEqual(benchmarks("--tag", "cpu,io"), ["parse-big", "parse-small", "render"])
        self.assertEqual(benchmarks("--tag", "io", "--skip-tag", "slow"), ["parse-small"])
        res = run(["list", "--skip-tag", "io", "--skip-tag", "cpu", "."], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertEqual(res.err, "himorime: error: no benchmark matches the selection [HMR3001]\n"
                         "  hint: check --filter, --tag and --skip-tag against 'himorime list'\n"
                         "himorime: exit 3: empty selection\n")

    def test_suite_cli__list_json_is_the_resolved_model(self):
        self.suite("s.yaml")
        res = run(["list", "--format=json", "--filter", "b", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertEqual([c["command"] for c in doc], ["one", "two"])
        self.assertEqual(doc[0]["exec"]["argv"], ["echo", "a b"])
        self.assertEqual(doc[1]["exec"]["shell"], "echo ${root} | wc")
        self.assertEqual(doc[0]["regression"]["confidence"], 0.99)
        self.assertEqual(doc[0]["warmup"], 1)
        self.assertIsNone(doc[0]["runs"])

    def test_issue28_should_fix__list_json_writes_max_percent_in_percent_as_reports(self):
        self.write("s.yaml", 'version: "1"\nname: s\nbenchmarks:\n  - name: b\n'
                   "    runs: 10\n    metrics: {cpu: true}\n"
                   "    regression:\n"
                   "      latency: {max_percent: 7%}\n"
                   "      cpu_total: {max_percent: 15}\n"
                   "      peak_rss: {max_percent: 0.5%}\n"
                   "      instructions: {max_percent: 2%}\n"
                   "    commands:\n      one: {command: [\"true\"]}\n")
        res = run(["list", "--format", "json", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        reg = json.loads(res.out)[0]["regression"]
        self.assertEqual([reg[m]["max_percent"] for m in ("latency", "cpu_total", "peak_rss")],
                         [7, 15, 0.5])
        self.assertIn('"latency": {"statistic": "median", "max_percent": 7, ', res.out)
        # the same numbers as a comparison's report
        subprocess.run(["git", "init", "-q", self.tmp], check=True)
        subprocess.run(["git", "add", "s.yaml"], cwd=self.tmp, check=True)
        subprocess.run(["git", "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q",
                        "-m", "x"], cwd=self.tmp, check=True)
        res = run(["compare", "--against", "HEAD", "-q", "--format", "json", "s.yaml"],
                  cwd=self.tmp)
        cmps = json.loads(res.out)["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]
        self.assertEqual({m: cmps[m]["max_percent"] for m in ("latency", "cpu_total")},
                         {"latency": 7, "cpu_total": 15})
        self.assertEqual(cmps["latency"]["max_fraction"], 0.07)

    def test_suite_cli__list_json_numbers_read_back_exactly(self):
        # %.15g would print 0.3 and 0.1 (docs/reports.md, "Numbers, times and
        # absent values": the shortest form that reads back bit for bit)
        self.write("s.yaml", 'version: "1"\nname: s\nbenchmarks:\n  - name: b\n'
                   "    metrics:\n"
                   "      throughput: {work: {value: 0.30000000000000004, unit: records}}\n"
                   "    regression:\n"
                   "      latency: {max_percent: 10.000000000000002%}\n"
                   "    commands:\n      one: {command: [echo]}\n")
        res = run(["list", "--format", "json", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 0)
        self.assertIn('    "metrics": {"cpu": false, "memory": false, "unsupported": "fail", '
                      '"work": {"value": 0.30000000000000004, "unit": "records"}},\n',
                      res.out)
        self.assertIn('      "latency": {"statistic": "median", "max_percent": '
                      '10.000000000000002, "min_difference": null, "gate": true},\n', res.out)
        doc = json.loads(res.out)
        self.assertEqual(doc[0]["metrics"]["work"]["value"], 0.1 + 0.2)

    def test_suite_cli__list_usage_errors(self):
        self.suite("s.yaml")
        res = run(["list", "--format", "yaml", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertIn('unknown format "yaml" for list; expected text or json', res.err)
        res = run(["list", "--filter", "(", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertIn('--filter "(" is not a valid regular expression', res.err)
        res = run(["list", "--nope"], cwd=self.tmp)
        self.assertExit(res, 3)
        self.assertIn("  hint: run 'himorime help list' for its flags\n", res.err)

    def test_suite_cli__list_invalid_suite_exits_2_and_prints_nothing(self):
        self.write("s.yaml", 'version: "1"\nname: s\nbenchmarks: [{name: b}]\n')
        res = run(["list", "s.yaml"], cwd=self.tmp)
        self.assertExit(res, 2)
        self.assertEqual(res.out, "")
        self.assertEqual(res.err, "s.yaml:3:14: benchmarks[0]: expected a map with commands, "
                         "got no commands [HMR2001]\nhimorime: exit 2: 1 problem in 1 suite file\n")

    def test_suite_cli__docs_examples_validate(self):
        blocks = []
        for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
            if not name.endswith(".md"):
                continue
            with open(os.path.join(ROOT, "docs", name)) as f:
                text = f.read()
            blocks += [(name, b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)
                       if b.startswith('version: "1"')]
        self.assertGreaterEqual(len(blocks), 6)
        for i, (name, block) in enumerate(blocks):
            with self.subTest(doc=name, block=i):
                path = self.write(f"docs{i}.yaml", block)
                res = run(["validate", path])
                self.assertExit(res, 0)

    def test_issue28_docs__the_report_section_example_runs_as_written(self):
        with open(os.path.join(ROOT, "docs", "configuration.md")) as f:
            text = f.read()
        part = text[text.index("\n## Report\n"):text.index("\n## Parameters\n")]
        suite_text = re.search(r"```yaml\n(.*?)```", part, re.S).group(1)
        page = re.search(r"```markdown\n(.*?)```", part, re.S).group(1)
        self.write("himorime.yaml", suite_text)
        self.write("README.md", page)
        res = run(["run", "-q", "--runs", "3"], cwd=self.tmp)
        self.assertExit(res, 0)
        with open(os.path.join(self.tmp, "README.md")) as f:
            filled = f.read()
        self.assertTrue(filled.startswith("## Performance\n\n<!-- himorime:begin perf -->\n"))
        self.assertTrue(filled.endswith("<!-- himorime:end perf -->\n"))
        self.assertIn("| b › a |", filled)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "perf", "report.json")))

    def test_suite_cli__schema_accepts_the_valid_suites(self):
        try:
            import jsonschema
            import yaml
        except ImportError:
            self.skipTest("python3-jsonschema and python3-yaml are needed")
        with open(os.path.join(ROOT, "docs", "schema", "suite.schema.json")) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        valid = os.path.join(ROOT, "tests", "data", "suites", "valid")
        paths = [os.path.join(valid, c, "suite.yaml") for c in sorted(os.listdir(valid))]
        for path in paths:
            with open(path) as f:
                doc = yaml.safe_load(f)
            self.assertEqual([e.message for e in validator.iter_errors(doc)], [], path)
        with open(os.path.join(valid, "every-key", "suite.yaml")) as f:
            doc = yaml.safe_load(f)
        doc["benchmarks"][0]["warmpu"] = 1
        self.assertNotEqual(list(validator.iter_errors(doc)), [])

    def test_suite_cli__builtin_example_validates(self):
        res = run(["validate", os.path.join(ROOT, "examples", "himorime.yaml")])
        self.assertExit(res, 0)


if __name__ == "__main__":
    unittest.main()
