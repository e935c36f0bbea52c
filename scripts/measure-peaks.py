#!/usr/bin/env python3
"""Peaks one `warm measure-server` reads for the same image, run after run (a leaner time-measure-jobs.py).

Usage: python3 scripts/measure-peaks.py WARM_BINARY N JOBS IMAGE [PREFIX...]
  JOBS: comma-separated naive, renderer, thumbnail, interleaved N times; PREFIX: a command to start the
  measuring process under (e.g. `taskset -c 1` or `setarch -R`). EXTRA_TUNABLES is appended to the glibc
  tunables warm gives its measuring processes. Prints min, median, max and spread (KiB) per job and, with
  naive and renderer, renderer - naive within each round.
"""
# peaks.py WARM N JOBS IMAGE [prefix...]: N peaks (KiB) per job from one measure-server, jobs interleaved
import json, os, subprocess, sys, statistics as st
warm, n, jobs, img = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(','), sys.argv[4]
prefix = sys.argv[5:]
env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.arena_max=1:glibc.malloc.top_pad=0:glibc.malloc.mmap_threshold=65536" + os.environ.get("EXTRA_TUNABLES", ""))
srv = subprocess.Popen(prefix + [warm, 'measure-server'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
def ask(job):
    req = dict(job=job, imagePath=os.path.abspath(img), targetLongestSide=300, maxPixels=50_000_000, maxEncodedBytes=64 << 20, peakMethod='forked-process')
    srv.stdin.write(json.dumps(req) + '\n')
    r = json.loads(srv.stdout.readline())
    return r['report']['metrics']['peakBytes'] // 1024
ask('thumbnail')
res = {j: [] for j in jobs}
for _ in range(n):
    for j in jobs: res[j].append(ask(j))
for j in jobs:
    v = sorted(res[j]); print(f"  {j:9s} min {v[0]} p50 {st.median(v):.0f} max {v[-1]} spread {v[-1]-v[0]} KiB")
if 'naive' in res and 'renderer' in res:
    print("  renderer-naive (paired) min %d p50 %.0f; min(renderer)-min(naive) %d" % (min(r - a for r, a in zip(res['renderer'], res['naive'])), st.median(r - a for r, a in zip(res['renderer'], res['naive'])), min(res['renderer']) - min(res['naive'])))
srv.stdin.close(); srv.wait()
