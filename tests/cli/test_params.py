"""Parameters and sizes end to end (docs/configuration.md, "Parameters"): a
benchmark expands into cases that run as real processes with their values
substituted, --filter picks cases with the bracketed form, and list shows
every case."""
import json
import unittest

from harness import PrivateTmpTest, suite

CODES = """
benchmarks:
  - name: b
    runs: 3
    warmup: 0
    parameters: {code: [0, 3], mode: [x, "y z"]}
    exclude: [{code: 3, mode: "y z"}]
    commands:
      sh: {command: [/bin/sh, -c, "exit ${code}", "${mode}"]}
"""


class ParamsTest(PrivateTmpTest):
    def names(self, doc):
        return [b["name"] for b in doc["suites"][0]["benchmarks"]]

    def test_params__cases_run_with_their_values(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["run", "--format", "json", "--seed", "7", path])
        self.assertExit(res, 4)
        doc = json.loads(res.out)
        self.assertEqual(self.names(doc), ["b[code=0,mode=x]", "b[code=0,mode=y z]",
                                           "b[code=3,mode=x]"])
        results = [b["commands"][0]["result"] for b in doc["suites"][0]["benchmarks"]]
        self.assertEqual(results, ["pass", "pass", "error"])

    def test_params__filter_selects_cases_by_their_values(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["run", "--format", "json", "--seed", "7", "--filter", "b[code=0]", path])
        self.assertExit(res, 0)
        self.assertEqual(self.names(json.loads(res.out)), ["b[code=0,mode=x]",
                                                           "b[code=0,mode=y z]"])
        # values in any order; the exact label works too
        res = self.run_h(["list", "--filter", "b[mode=x,code=3]", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, f"{path}\tb[code=3,mode=x]\t-\t-\tsh\t/bin/sh -c 'exit 3' x\n")
        # a regular expression still searches the label
        res = self.run_h(["list", "--filter", r"=y z\]$", path])
        self.assertExit(res, 0)
        self.assertEqual(res.out, f"{path}\tb[code=0,mode=y z]\t-\t-\tsh\t/bin/sh -c 'exit 0' "
                                  "'y z'\n")
        # an excluded or unknown combination selects nothing
        res = self.run_h(["list", "--filter", "b[code=3,mode=y z]", path])
        self.assertExit(res, 3)
        self.assertIn("no benchmark matches the selection", res.err)

    def test_params__list_json_names_the_parameters(self):
        path = self.write("himorime.yaml", suite(CODES))
        res = self.run_h(["list", "--format", "json", path])
        self.assertExit(res, 0)
        doc = json.loads(res.out)
        self.assertEqual([(c["benchmark"], c["base_name"], c["parameters"]) for c in doc],
                         [("b[code=0,mode=x]", "b", {"code": "0", "mode": "x"}),
                          ("b[code=0,mode=y z]", "b", {"code": "0", "mode": "y z"}),
                          ("b[code=3,mode=x]", "b", {"code": "3", "mode": "x"})])
        self.assertEqual(doc[2]["exec"]["argv"], ["/bin/sh", "-c", "exit 3", "x"])

    def test_params__validate_points_at_the_misuse(self):
        path = self.write("himorime.yaml", suite("""
benchmarks:
  - name: b
    parameters: {code: [0, 3]}
    commands:
      sh: {command: [/bin/sh, -c, "exit ${cod}"]}
"""))
        res = self.run_h(["validate", path])
        self.assertExit(res, 2)
        self.assertEqual(res.err.splitlines()[0],
                         f"{path}:8:41: benchmarks[0].commands.sh.command[2]: "
                         "unknown variable ${cod} [HMR2001]")


if __name__ == "__main__":
    unittest.main()
