#!/bin/bash
# The run-to-run noise of `warm check`'s catalog-level figures: measures the 24-product sample catalog N times in full
# (`warm demo --products 24 --compare all`, each on its own port) with one build, then checks every run against a
# baseline written from every other and prints the four figures of each ordered pair, then the largest of each.
# The limits in RegressionCheck.RatioLimits come from this (bench/findings.md, section 17).
#
# Usage: bench/check_noise.sh WARM_BINARY OUT_DIR N
#   e.g. bench/check_noise.sh .build/debug/warm /tmp/check-noise 6
warm=$1 out=$2 runs=$3
mkdir -p "$out"
for i in $(seq 1 "$runs"); do
    rm -rf "${out:?}/run$i"
    start=$(date +%s.%N)
    "$warm" demo --products 24 --port $((18600 + i)) --dir "$out/run$i" --no-progress --compare all > "$out/run$i.log" 2>&1 \
        || { echo "run $i failed"; tail -3 "$out/run$i.log"; exit 1; }
    echo "run$i: $(echo "$(date +%s.%N) - $start" | bc) s"
    "$warm" check --metrics "$out/run$i/metrics.jsonl" --baseline "$out/base$i.json" --update-baseline > /dev/null
done
for i in $(seq 1 "$runs"); do
    for j in $(seq 1 "$runs"); do
        [ "$i" = "$j" ] && continue
        "$warm" check --metrics "$out/run$j/metrics.jsonl" --baseline "$out/base$i.json" --json "$out/check-$i-$j.json" > /dev/null
        python3 - "$out/check-$i-$j.json" "$i" "$j" <<'PY'
import json, sys
figures = json.load(open(sys.argv[1]))["catalogFigures"]
print("baseline run%s, metrics run%s:" % (sys.argv[2], sys.argv[3]),
      "; ".join("%s %.3f" % (f["name"].replace("of the per-image ratio ", "").replace(" now/baseline", ""), f["ratio"]) for f in figures))
PY
    done
done | tee "$out/pairs.txt"
python3 - "$out" <<'PY'
import glob, json, sys
ranges = {}
for path in glob.glob(sys.argv[1] + "/check-*-*.json"):
    for figure in json.load(open(path))["catalogFigures"]:
        low, high = ranges.get(figure["name"], (figure["ratio"], figure["ratio"]))
        ranges[figure["name"]] = (min(low, figure["ratio"]), max(high, figure["ratio"]))
for name, (low, high) in ranges.items():
    print("%s: %.3f-%.3f" % (name, low, high))
PY
