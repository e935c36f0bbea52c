#!/usr/bin/env python3
"""Figures of an app manifest (`warm cache export` output) for docs/for-app-developers.md:
   python3 bench/app_manifest_figures.py app-manifest.jsonl"""
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
print("images", len(lines))
by = {}
for l in lines:
    for v in l["variants"]:
        by.setdefault(v["format"], []).append(v)
for f, vs in sorted(by.items()):
    print(f, "variants", len(vs), "median bytes", statistics.median(v["bytes"] for v in vs), "total bytes", sum(v["bytes"] for v in vs))
j = by["jpeg"]
d = [v["decodedBytes"] for v in j]
print("decodedBytes median", statistics.median(d), "max", max(d), "min", min(d), "total", sum(d))
shapes = {}
for v in j: shapes[(v["width"], v["height"])] = shapes.get((v["width"], v["height"]), 0) + 1
print("shapes", sorted(shapes.items(), key=lambda x: -x[1])[:5])
print("thumbHash null", sum(1 for l in lines if l["thumbHash"] is None))
print("products", sum(len(l["productIds"]) for l in lines))
