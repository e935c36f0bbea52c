#!/usr/bin/env python3
"""Where `warm run`'s resident memory goes: runs it against `warm serve` with a
fresh cache, samples VmRSS every 0.25 s, and prints the RSS at each tenth of
the run and the peak, optionally for several glibc malloc settings (given as
environment variables, which need no code change), e.g.:

    python3 bench/rss_profile.py --products 1336 13360 \
        --env "" "MALLOC_ARENA_MAX=2" "MALLOC_MMAP_THRESHOLD_=131072"

A peak that keeps climbing with the catalog while the work in flight stays
bounded is heap growth (fragmentation or retention), not images in flight.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as bench  # noqa: E402


def rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def profile(warm, api, env_text, work, extra_args):
    env = dict(os.environ)
    for pair in env_text.split():
        key, value = pair.split("=", 1)
        env[key] = value
    cache = os.path.join(work, "cache")
    summary = os.path.join(work, "summary.json")
    shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen([warm, "run", "--api", api, "--cache-dir", cache, "--size", "300", "--no-progress",
                                "--summary", summary, *extra_args], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []
    while process.poll() is None:
        samples.append((time.perf_counter() - started, rss_bytes(process.pid)))
        time.sleep(0.25)
    with open(summary) as handle:
        s = json.load(handle)
    shutil.rmtree(cache, ignore_errors=True)
    wall = time.perf_counter() - started
    tenths = []
    for k in range(1, 11):
        upto = [r for t, r in samples if t <= wall * k / 10]
        tenths.append(max(upto) if upto else 0)
    return {"env": env_text or "(default)", "wall": wall, "images": s["imagesDownloaded"],
            "peak": s["peakResidentBytes"], "tenths": tenths, "rc": process.returncode}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", default=os.path.join(bench.REPO, ".build", "release", "warm"))
    parser.add_argument("--products", type=int, nargs="+", default=[1336, 13360])
    parser.add_argument("--env", nargs="+", default=[""], help="environment settings to compare, one string each")
    parser.add_argument("--args", nargs="*", default=[], help="extra warm run arguments, e.g. --concurrency=4")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="warm-rss-")
    rows = []
    try:
        for products in args.products:
            server = bench.CatalogServer(os.path.abspath(args.warm), products)
            try:
                for env_text in args.env:
                    row = profile(os.path.abspath(args.warm), server.url, env_text, work, args.args)
                    row["products"] = products
                    rows.append(row)
                    print(f"{products:>6} products  {row['env']:<40} {row['images']:>6} images  {row['wall']:6.1f} s  "
                          f"peak {row['peak'] / 1e6:6.1f} MB  by tenths of the run (MB): "
                          + " ".join(f"{t / 1e6:.0f}" for t in row["tenths"]), flush=True)
            finally:
                server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
