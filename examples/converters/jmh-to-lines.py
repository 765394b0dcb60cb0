#!/usr/bin/env python3
"""JMH's result file (-rf json -rff FILE) as himorime `lines`: one line per
measurement iteration of every benchmark, named by its method and
parameters ("bench.SortBench.sort/n=8"), its time per operation: "ns/op"
as it is, a throughput ("ops/ms", mode thrpt) as its inverse (ms per op).
Usage: jmh-to-lines.py jmh-result.json"""
import json
import sys

for b in json.load(open(sys.argv[1])):
    params = sorted((b.get("params") or {}).items())
    name = b["benchmark"] + "".join(f"/{k}={v}" for k, v in params)
    metric = b["primaryMetric"]
    values = [v for fork in metric.get("rawData") or [[metric["score"]]] for v in fork]
    ops, per = metric["scoreUnit"].split("/")  # "ns/op", or "ops/ms" in mode thrpt
    unit = ops
    if b["mode"] == "thrpt":
        values, unit = [1 / v for v in values], per
    for value in values:
        print(json.dumps({"name": name, "value": value, "unit": unit, "better": "lower"}))
