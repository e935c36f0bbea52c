#!/bin/bash
# Variants of `warm run` interleaved with `warm thumbnail` on the served files,
# against one `warm serve --products 1336`: for switches and builds that
# bench/ab.py (two builds, three jobs) does not cover.
#
#   bash bench/e2e_variants.sh ROUNDS VARIANT...     # after bench/run.py made /tmp/warm-bench
#
# VARIANT: `files` (warm thumbnail on the served files), `NAME` (warm run),
# `NAME:KEY=VALUE,KEY=VALUE` (warm run with that environment) or
# `NAME:BIN=/path/to/warm` (warm run of another build; copy it out of .build first).
# Each run writes into a new directory; nothing is deleted until the end
# (bench/findings.md section 9). Prints each run, then per variant the median
# wall (range), median CPU (user + system) and the ratio to `files`.
set -uo pipefail
ROUNDS=$1; shift
W=${W:-$(cd "$(dirname "$0")/.." && pwd)/.build/release/warm}; WORK=${WORK:-/tmp/warm-bench}; PORT=${PORT:-18997}
FILES=$WORK/served/files; T=$WORK/variants; rm -rf "$T"; mkdir -p "$T"
"$W" serve --port "$PORT" --products 1336 >/dev/null 2>&1 & SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$T"' EXIT
until curl -sf "http://127.0.0.1:$PORT/healthChecker" >/dev/null; do sleep 0.5; done
# The server makes its images on first request: one untimed run first.
"$W" run --api "http://127.0.0.1:$PORT" --cache-dir "$T/prime" --size 300 --no-progress >/dev/null 2>&1
for i in $(seq "$ROUNDS"); do
  for variant in "$@"; do
    name=${variant%%:*}; setting=${variant#*:}; [ "$setting" = "$variant" ] && setting=""
    if [ "$name" = files ]; then
      /usr/bin/time -f "$name %e %U %S" "$W" thumbnail "$FILES"/* --size 300 --out "$T/o-$i" >/dev/null 2>"$T/time"
    else
      binary=$W
      case "$setting" in BIN=*) binary=${setting#BIN=}; setting="";; esac
      env ${setting//,/ } /usr/bin/time -f "$name %e %U %S" "$binary" run --api "http://127.0.0.1:$PORT" \
        --cache-dir "$T/$name-$i" --size 300 --no-progress >/dev/null 2>"$T/time"
    fi
    tail -1 "$T/time"
  done
done | tee "$T/times"
python3 - "$T/times" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4:
        runs[parts[0]].append((float(parts[1]), float(parts[2]) + float(parts[3])))
base = statistics.median(w for w, _ in runs["files"]) if "files" in runs else None
for name, values in runs.items():
    wall = statistics.median(w for w, _ in values)
    ratio = f"  ratio {wall / base:.2f}" if base else ""
    print(f"{name:12s} wall median {wall:.2f} s ({min(w for w, _ in values):.2f}-{max(w for w, _ in values):.2f})"
          f"  CPU {statistics.median(c for _, c in values):.2f} s{ratio}")
PY
