#!/usr/bin/env python3
"""CPU per image, by kind of image, for warm thumbnail, vipsthumbnail and
Pillow: where one tool is cheaper than another. Uses a corpus that
bench/run.py made (its manifest.json), e.g.:

    python3 bench/per_kind.py /tmp/warm-bench/corpus-42-240 --repeats 3

CPU seconds (user + system, children included) are the fair measure here:
warm uses every core, the others one process.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import run as bench  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus_dir")
    parser.add_argument("--warm", default=os.path.join(bench.REPO, ".build", "release", "warm"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tools", nargs="*", default=["warm", "vips-seq", "pillow", "magick-seq"])
    args = parser.parse_args()
    with open(os.path.join(args.corpus_dir, "manifest.json")) as handle:
        manifest = json.load(handle)
    out = tempfile.mkdtemp(prefix="warm-per-kind-")
    print(f"{'kind':<24} {'n':>4} " + " ".join(f"{t + ' ms CPU/img':>22}" for t in args.tools))
    try:
        for kind, _ in corpus.KIND_SHARES:
            files = [f["path"] for f in manifest["files"] if f["kind"] == kind]
            if not files:
                continue
            tools = bench.tool_commands(os.path.abspath(args.warm), out, files, magick_batch=len(files))
            cells = []
            for tool in args.tools:
                cpu, wall = [], []
                for _ in range(args.repeats):
                    shutil.rmtree(out, ignore_errors=True)
                    os.makedirs(out)
                    _, argv, stdin = tools[tool]
                    run = bench.timed(argv, stdin)
                    cpu.append(run["cpu"])
                    wall.append(run["wall"])
                cells.append(f"{statistics.median(cpu) / len(files) * 1000:>10.1f} (wall {statistics.median(wall) / len(files) * 1000:5.1f})")
            print(f"{kind:<24} {len(files):>4} " + " ".join(f"{c:>22}" for c in cells), flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
