#!/bin/bash
# What a full measurement (`warm run --compare`) costs per image, apart from the catalog server making
# its images: starts `warm serve`, then runs `warm run` (plain or --compare) against it, each into a
# fresh cache directory, and prints each run's wall and CPU time (/usr/bin/time -v: warm, its decode
# workers and measuring processes) with the server's CPU during the run and the load.
# The first plain run ("prime") makes the server make and keep every image (its image cache, 256 MiB,
# holds the phone mix's 100 products); later runs find them made (server CPU about 0).
# Cost per image = (wall of a --compare run - wall of a plain run) / images.
#
# Usage: bench/compare_cost.sh WARM_BINARY OUT_DIR MIX PRODUCTS NAME:plain|cmp ...
#   e.g. bench/compare_cost.sh .build/release/warm /tmp/cost phone 100 prime:plain plain1:plain cmp1:cmp
# Waits while /work/notes/QUIET exists (a timed benchmark running on the shared machine).
warm=$1 out=$2 mix=$3 products=$4; shift 4
port=${PORT:-18733}
mkdir -p "$out"
"$warm" serve --image-mix "$mix" --products "$products" --port "$port" > "$out/serve.log" 2>&1 &
server=$!
sleep 3
kill -0 $server 2>/dev/null || { cat "$out/serve.log"; exit 1; }
server_cpu() { awk '{print $14 + $15}' /proc/$server/stat; }
for spec in "$@"; do
    IFS=: read -r name kind <<< "$spec"
    while [ -e /work/notes/QUIET ]; do sleep 20; done
    rm -rf "${out:?}/$name"
    flag=""; [ "$kind" = cmp ] && flag="--compare"
    echo "== $name ($kind) start $(uptime)"
    before=$(server_cpu)
    /usr/bin/time -v -o "$out/$name.time" nice -n 5 "$warm" run --api "http://127.0.0.1:$port" --cache-dir "$out/$name" \
        --no-progress $flag > "$out/$name.log" 2>&1
    echo "exit $?; server CPU ticks (1/100 s): $(( $(server_cpu) - before ))"
    echo "   end $(uptime)"
    grep -E "Elapsed|User time|System time" "$out/$name.time"
done
kill $server
wait $server 2>/dev/null
