#!/usr/bin/env python3
"""Times single jobs of one `warm measure-server` (the forked measuring children of `warm run --compare`).

Usage: python3 scripts/time-measure-jobs.py WARM_BINARY REPEATS JOBS IMAGE...
  JOBS: comma-separated naive, renderer, thumbnail, quality; renderer+q is a renderer run that also
  scores quality after its span (what `warm run --compare` sends). Prints, per image and job, the
  round trip's wall time (fork, measurement, exit, reply) and the measured spans (peak KiB, CPU s, wall s).
"""
import json, os, subprocess, sys, time

warm, repeats, jobs, images = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(','), sys.argv[4:]
# The tunables `warm` gives its measuring processes (IsolatedStrategyRun.childEnvironment).
env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.arena_max=1:glibc.malloc.top_pad=0:glibc.malloc.mmap_threshold=65536")
server = subprocess.Popen([warm, 'measure-server'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)

def ask(job, path):
    scores = job.endswith('+q')
    request = dict(job=job.removesuffix('+q'), imagePath=os.path.abspath(path), targetLongestSide=300,
                   maxPixels=50_000_000, maxEncodedBytes=64 << 20, peakMethod='forked-process', scoresQuality=scores or None)
    started = time.monotonic()
    server.stdin.write(json.dumps(request) + '\n')
    reply = json.loads(server.stdout.readline())
    return time.monotonic() - started, reply

ask('thumbnail', images[0])  # the first child pays for nothing the others do not, but keep it out anyway
for path in images:
    print(os.path.basename(path))
    for job in jobs:
        walls, spans = [], []
        for _ in range(repeats):
            wall, reply = ask(job, path)
            walls.append(wall)
            metrics = (reply.get('report') or {}).get('metrics')
            if metrics:
                spans.append((metrics['peakBytes'] // 1024, round(metrics['cpuSeconds'], 3), round(metrics['wallSeconds'], 3)))
        print(f"  {job}: round trip {min(walls):.3f}-{max(walls):.3f} s; spans (KiB, CPU s, wall s) {spans}")
server.stdin.close()
server.wait()
