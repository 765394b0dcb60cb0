#!/usr/bin/env python3
"""JMH's result file (-rf json -rff FILE) as himorime `lines`: one line per
measurement iteration of every benchmark, named by its method and
parameters ("bench.SortBench.sort/n=8"). A time per operation ("ns/op")
is a time, lower is better; a throughput ("ops/ms") is kept as declared,
higher is better. Usage: jmh-to-lines.py jmh-result.json"""
import json
import sys

for b in json.load(open(sys.argv[1])):
    params = sorted((b.get("params") or {}).items())
    name = b["benchmark"] + "".join(f"/{k}={v}" for k, v in params)
    metric = b["primaryMetric"]
    unit, better = metric["scoreUnit"], "higher"
    if unit.endswith("/op"):
        unit, better = unit[: -len("/op")], "lower"
    for fork in metric.get("rawData") or [[metric["score"]]]:
        for value in fork:
            print(json.dumps({"name": name, "value": value, "unit": unit, "better": better}))
