#!/usr/bin/env python3
"""Criterion.rs's results as himorime `lines`: every sample of every benchmark
(target/criterion/<id>/new/sample.json, time per iteration in ns), or with
--estimates one line per benchmark, its median estimate (estimates.json).
Usage: criterion-to-lines.py [--estimates] [target/criterion]"""
import json
import pathlib
import sys

args = sys.argv[1:]
estimates = "--estimates" in args
root = pathlib.Path(([a for a in args if a != "--estimates"] or ["target/criterion"])[0])
for bench in sorted(root.glob("**/new/benchmark.json")):
    name = json.loads(bench.read_text())["full_id"]
    if estimates:
        median = json.loads((bench.parent / "estimates.json").read_text())["median"]
        values = [median["point_estimate"]]
    else:
        sample = json.loads((bench.parent / "sample.json").read_text())
        values = [t / n for n, t in zip(sample["iters"], sample["times"])]
    for value in values:
        print(json.dumps({"name": name, "value": value, "unit": "ns", "better": "lower"}))
