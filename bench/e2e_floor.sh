#!/bin/bash
# What the end-to-end ratio cannot go below on this machine, whatever warm's code:
# `warm thumbnail` on the files `warm serve` serves, alone, against the same run
# with, at the same time, curl downloading every thumbnail URL from that server
# (one connection, keep-alive) and, optionally, bench/store_floor.c making the
# cache's durable writes (per file, or grouped 32 to a syncfs). Interleaved.
#
#   bash bench/e2e_floor.sh [ROUNDS]     # after bench/run.py made /tmp/warm-bench
#
# Nothing is deleted until the end: ext4 without a journal scans inodes deleted
# in the last minute when it allocates new ones (bench/findings.md section 9).
set -euo pipefail
ROUNDS=${1:-5}; WORK=${WORK:-/tmp/warm-bench}; PORT=${PORT:-18996}
W=$(cd "$(dirname "$0")/.." && pwd)/.build/release/warm
FILES=$WORK/served/files; T=$WORK/floor; rm -rf "$T"; mkdir -p "$T"
gcc -O2 -o "$T/store_floor" "$(dirname "$0")/store_floor.c"
"$W" serve --port "$PORT" --products 1336 >/dev/null 2>&1 & SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/healthChecker" >/dev/null; do sleep 0.5; done
python3 - "$PORT" > "$T/curl.cfg" <<'PY'
import json, sys, urllib.request
api, urls, page = f"http://127.0.0.1:{sys.argv[1]}", [], 1
while True:
    body = json.load(urllib.request.urlopen(f"{api}/api/products?page_no={page}&items_per_page=1000"))
    urls += [p["thumbnail"] for p in body["pages"] if p.get("thumbnail") and p["thumbnail"] not in urls]
    if page >= body["lastPage"]: break
    page += 1
for url in urls: print(f'url = "{url}"\noutput = "/dev/null"')
PY
curl -s -K "$T/curl.cfg"   # the server makes its images on first request
BYTES=10412                # the mean cached thumbnail of this catalog (find CACHE/v1 -type f | xargs stat -c %s)
N=$(ls "$FILES" | wc -l)
thumb() { /usr/bin/time -f "$1 %e %U %S" "$W" thumbnail "$FILES"/* --size 300 --out "$T/$1-$2" >/dev/null 2>"$T/time"; tail -1 "$T/time"; }
for i in $(seq "$ROUNDS"); do
  thumb files "$i"
  curl -s -K "$T/curl.cfg" & thumb curl "$i"; wait
  curl -s -K "$T/curl.cfg" & "$T/store_floor" "$T/s$i" "$N" $BYTES & thumb curl+store "$i"; wait
  curl -s -K "$T/curl.cfg" & "$T/store_floor" "$T/g$i" "$N" $BYTES 32 & thumb curl+grouped "$i"; wait
done | tee "$T/times"
python3 - "$T/times" <<'PY'
import collections, statistics, sys
walls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, wall, *_ = line.split(); walls[name].append(float(wall))
base = statistics.median(walls["files"])
for name, v in walls.items():
    print(f"{name:14s} median {statistics.median(v):.2f} s ({min(v):.2f}-{max(v):.2f})  ratio {statistics.median(v) / base:.3f}")
PY
rm -rf "$T"
