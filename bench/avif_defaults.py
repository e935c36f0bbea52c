#!/usr/bin/env python3
"""AVIF defaults by measurement (issue 26): bytes, SSIM and encode CPU of 300 px
thumbnails as AVIF (libvips 8.14 heifsave: libheif, libaom) at Q 40-70,
effort and chroma settings, against JPEG q82 and WebP q75 on the same thumbnails.

    python3 bench/avif_defaults.py [WORK_DIR] [--repeats N] [--count N]

The thumbnails: seeded crops of the photos in /usr/share/backgrounds/mate
(Debian's mate-backgrounds), each `vipsthumbnail -s 300` to a lossless PNG.
Every encode is one `perf stat -e task-clock -x, vips copy SRC.png 'OUT[options]'`
(falls back to `/usr/bin/time -f %U+%S` without perf); an image's CPU is the
least of --repeats runs minus the least of the same command writing libvips'
own uncompressed format (`OUT.v`), so process start and the PNG load are not
counted. SSIM: bench/quality.py's (luma, BT.601), plus the same SSIM averaged
over R, G and B, which sees chroma subsampling where luma does not; each output
is decoded back with `vips copy OUT OUT.png`. Prints a Markdown table and
writes WORK_DIR/avif_defaults.json.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import _luma, ssim  # noqa: E402  (bench/quality.py: the project's SSIM)

PHOTO_DIRS = ["/usr/share/backgrounds/mate/nature", "/usr/share/backgrounds/mate/desktop",
              "/usr/share/backgrounds/mate/abstract"]
# Three sizes of one photo in abstract/: keep one.
SKIP = {"Elephants_3840x2160.jpg", "Elephants_5640x3172.jpg"}
RATIOS = [(1, 1), (4, 3), (3, 4), (3, 2), (2, 3), (16, 9)]

CONFIGS = [("jpeg-q82", ".jpg", "Q=82,optimize_coding,strip"),
           ("webp-q75", ".webp", "Q=75,strip")]
for q in (40, 50, 60, 70):  # 70 beyond the brief's 40-60: brackets JPEG q82's SSIM
    for effort in (0, 2, 4):
        for subsample in ("auto", "off"):
            CONFIGS.append((f"avif-q{q}-e{effort}-{subsample}", ".avif",
                            f"Q={q},effort={effort},subsample_mode={subsample},strip"))


def photos():
    found = []
    for folder in PHOTO_DIRS:
        found += [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                  if n.lower().endswith(".jpg") and n not in SKIP]
    return found


def size_of(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True)
    width = int(out.stdout)
    out = subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True)
    return width, int(out.stdout)


def make_thumbnails(work, count):
    """count seeded crops (whole photo or a common aspect ratio), 300 px, lossless PNG."""
    folder = os.path.join(work, "thumbnails")
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(26)
    sources = photos()
    made = []
    for index in range(count):
        source = sources[index % len(sources)]
        width, height = size_of(source)
        rw, rh = (width, height) if index < len(sources) else rng.choice(RATIOS)
        scale = 1.0 if index < len(sources) else rng.uniform(0.45, 1.0)
        cw = int(min(width, height * rw / rh) * scale)
        ch = int(cw * rh / rw)
        left, top = rng.randint(0, width - cw), rng.randint(0, height - ch)
        out = os.path.join(folder, f"{index:02d}.png")
        if not os.path.exists(out):
            crop = os.path.join(folder, "crop.v")
            subprocess.run(["vips", "crop", source, crop, str(left), str(top), str(cw), str(ch)], check=True)
            subprocess.run(["vipsthumbnail", crop, "-s", "300", "-o", out + "[compression=1,strip]"], check=True)
            os.remove(crop)
        made.append(out)
    return made


def cpu_seconds(argv):
    """CPU time of one child process (all its threads)."""
    if shutil.which("perf"):
        out = subprocess.run(["perf", "stat", "-e", "task-clock", "-x,", "--"] + argv,
                             capture_output=True, text=True, check=True)
        for line in out.stderr.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] == "task-clock":
                return float(fields[0]) / 1000.0  # msec
        raise RuntimeError(out.stderr)
    out = subprocess.run(["/usr/bin/time", "-f", "%U+%S"] + argv, capture_output=True, text=True, check=True)
    user, system = out.stderr.strip().splitlines()[-1].split("+")
    return float(user) + float(system)


def least_cpu(argv, repeats):
    return min(cpu_seconds(argv) for _ in range(repeats))


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)


def measure(thumbnails, work, repeats, configs):
    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir, exist_ok=True)
    rows = {name: {"bytes": [], "cpu": [], "cpuProcess": [], "cpuBaseline": [], "ssim": [], "ssimRGB": []}
            for name, _, _ in configs}
    for source in thumbnails:
        base = os.path.splitext(os.path.basename(source))[0]
        baseline = least_cpu(["vips", "copy", source, os.path.join(out_dir, base + ".v")], repeats)
        reference = rgb(source)
        ref_luma = _luma(Image.open(source))
        for name, suffix, options in configs:
            out = os.path.join(out_dir, f"{base}-{name}{suffix}")
            cpu = least_cpu(["vips", "copy", source, f"{out}[{options}]"], repeats)
            decoded = out + ".png"
            subprocess.run(["vips", "copy", out, decoded], check=True)
            pixels = rgb(decoded)
            row = rows[name]
            row["bytes"].append(os.path.getsize(out))
            row["cpu"].append(max(0.0, cpu - baseline))
            row["cpuProcess"].append(cpu)
            row["cpuBaseline"].append(baseline)
            row["ssim"].append(ssim(ref_luma, _luma(Image.open(decoded))))
            row["ssimRGB"].append(statistics.mean(ssim(reference[..., c], pixels[..., c]) for c in range(3)))
        print(f"{base}: done", file=sys.stderr, flush=True)
    return rows


def percentile(values, p):
    return float(np.percentile(values, p))


def table(rows):
    """CPU / JPEG compares whole processes (start, PNG load and encode): at 300 px JPEG's
    encode alone is too small to tell from the noise of one process's CPU time."""
    jpeg_process = statistics.median(rows["jpeg-q82"]["cpuProcess"])
    lines = ["| encoding | median bytes | p90 bytes | SSIM luma (mean) | SSIM RGB (mean) | "
             "encode CPU median (ms, process minus `.v` write) | process CPU median (ms) | process CPU / JPEG's |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, row in rows.items():
        process = statistics.median(row["cpuProcess"])
        lines.append(f"| {name} | {statistics.median(row['bytes']):,.0f} | {percentile(row['bytes'], 90):,.0f} | "
                     f"{statistics.mean(row['ssim']):.4f} | {statistics.mean(row['ssimRGB']):.4f} | "
                     f"{statistics.median(row['cpu']) * 1000:.1f} | {process * 1000:.1f} | {process / jpeg_process:.1f}x |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", nargs="?", default="/tmp/warm-avif-defaults")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--only", help="comma-separated encodings (names as in the table; jpeg-q82 always)")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) | {"jpeg-q82"} if args.only else None
    configs = [c for c in CONFIGS if wanted is None or c[0] in wanted]
    thumbnails = make_thumbnails(args.work, args.count)
    rows = measure(thumbnails, args.work, args.repeats, configs)
    name = "avif_defaults.json" if wanted is None else "avif_defaults-only.json"
    with open(os.path.join(args.work, name), "w") as f:
        json.dump(rows, f)
    print(table(rows))


if __name__ == "__main__":
    main()
