#!/usr/bin/env python3
"""The regression check on unchanged code, as CI runs it (docs/measuring.md, "The regression check").

Measures the 24-product sample twice with the release build and once with the debug build, each with two CPU-bound
processes beside it (a shared CI runner), and checks each run against the committed baseline: every check must exit 0
(or 7 with a sentence, a refused comparison, never 3). The decoded-pixel figure of every image must be the same from
both builds. Prints each run's advisory figures (peaks, CPU spread), the noise docs/measuring.md states.

    python3 scripts/check-baseline-builds.py [--debug .build/debug/warm] [--release .build/release/warm]
                                             [--baseline reports/baseline.json] [--busy 2]

It builds neither binary: run `swift build` and `swift build -c release --product warm` first. Exit 0 when every check
passed and the counts agree, 1 otherwise (each reason printed).
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def decoded_pixels(metrics):
    """{source SHA-256: (naive, thumbnail) decoded pixels} of a metrics file."""
    counts = {}
    with open(metrics) as f:
        for line in f:
            record = json.loads(line)
            strategies = record["strategies"]
            counts[record["sourceSHA256"]] = tuple(
                (strategies.get(kind) or {}).get("decodedPixels") for kind in ("naive", "thumbnail"))
    return counts


def measure_and_check(binary, build, baseline, directory, failures):
    started = time.monotonic()
    # The demo's catalog draws each image on its first request: under load an answer can take longer than the default
    # 30 s deadline (and a decode the default 60 s), so generous ones bound a hang without judging speed.
    demo = subprocess.run([binary, "demo", "--products", "24", "--port", str(free_port()), "--dir", directory,
                           # The baseline is of list thumbnails: the carousels would only add work the check skips.
                           "--no-progress", "--compare", "all", "--no-detail-images", "--request-timeout", "300", "--fetch-deadline", "600",
                           "--decode-timeout", "600"],
                          capture_output=True, text=True)
    seconds = time.monotonic() - started
    if demo.returncode != 0:
        failures.append(f"{build}: warm demo exited {demo.returncode}: {demo.stderr.strip()}")
        return None
    metrics = os.path.join(directory, "metrics.jsonl")
    result = os.path.join(directory, "check.json")
    check = subprocess.run([binary, "check", "--metrics", metrics, "--baseline", baseline, "--json", result],
                           capture_output=True, text=True)
    print(f"== {build} build: sample measured in {seconds:.0f} s, warm check exited {check.returncode}")
    for line in check.stdout.splitlines():
        if not line.startswith("warning (advisory"):
            print("   " + line)
    if check.returncode == 3:
        failures.append(f"{build}: warm check called unchanged code a regression (exit 3)")
    elif check.returncode == 7:
        print(f"   (refused, with the sentence above: allowed, never a regression)")
    elif check.returncode != 0:
        failures.append(f"{build}: warm check exited {check.returncode}: {check.stderr.strip()}")
    return decoded_pixels(metrics)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--debug", default=os.path.join(ROOT, ".build/debug/warm"))
    parser.add_argument("--release", default=os.path.join(ROOT, ".build/release/warm"))
    parser.add_argument("--baseline", default=os.path.join(ROOT, "reports/baseline.json"))
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes beside the runs")
    args = parser.parse_args()
    for binary in (args.debug, args.release):
        if not os.access(binary, os.X_OK):
            sys.exit(f"check-baseline-builds: {binary} is not built (swift build; swift build -c release --product warm)")

    busy = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) for _ in range(args.busy)]
    failures, counts = [], {}
    try:
        with tempfile.TemporaryDirectory(prefix="warm-baseline-builds-") as work:
            for index, (build, binary) in enumerate([("release", args.release), ("release", args.release),
                                                     ("debug", args.debug)]):
                counted = measure_and_check(binary, build, args.baseline, os.path.join(work, f"run{index}"), failures)
                if counted is not None:
                    counts[f"{build} run {index + 1}"] = counted
    finally:
        for process in busy:
            process.send_signal(signal.SIGKILL)
            process.wait()

    runs = list(counts.items())
    for name, counted in runs[1:]:
        first_name, first = runs[0]
        if counted != first:
            differing = sorted(sha for sha in set(first) | set(counted) if first.get(sha) != counted.get(sha))
            failures.append(f"the decoded pixels of {len(differing)} images differ between {first_name} and {name} "
                            f"(first: {differing[0]}: {first.get(differing[0])} against {counted.get(differing[0])})")
    if runs:
        images = len(runs[0][1])
        print(f"decoded pixels: {images} images, the same in {len(runs)} runs of 2 builds" if not failures
              else "decoded pixels: see the failures below")
    for failure in failures:
        print("check-baseline-builds: " + failure, file=sys.stderr)
    print(f"check-baseline-builds: {'FAILED' if failures else 'ok'}: {len(runs)} runs checked against {args.baseline}")
    sys.exit(1 if failures or len(runs) < 3 else 0)


if __name__ == "__main__":
    main()
