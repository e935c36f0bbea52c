#!/usr/bin/env python3
"""Encoder settings by measurement (issue 37): bytes, encode CPU, SSIM and SSIMULACRA2 of WebP and AVIF
settings against JPEG at quality 82, on the demo catalog's distinct images at 300 px.

    python3 bench/encoder_settings.py [--warm .build/release/warm] [--products 200] [--size 300]

Each distinct image the demo catalog (`warm serve --products N`) serves is decoded once by libvips (pyvips, the
same libvips 8.14 warm links) and shrunk to SIZE (shrink-on-load, Lanczos3): that bitmap is what every encoder
gets, as in `warm run`, where WebP and AVIF encode the direct path's bitmap. The reference is the full decode
resized with Lanczos3 (what warm's report compares against). SSIM is the report's (BT.601 luma, 8x8 uniform
windows); SSIMULACRA2 is the `ssimulacra2` package from PyPI (higher is better, 90 ~ visually lossless,
70 ~ high quality). Encode CPU is process CPU time around each save with one libvips thread, as warm's workers run.
Needs: pip install pyvips ssimulacra2 numpy.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import numpy  # noqa: E402
import pyvips  # noqa: E402
from PIL import Image  # noqa: E402
from ssimulacra2 import compute_ssimulacra2_with_alpha  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402  (the catalog server and downloads)

JPEG = ("jpeg", "Q 82", lambda image: image.jpegsave_buffer(Q=82, optimize_coding=True, strip=True))


def webp(q, effort, preset="default"):
    label = f"Q {q} method {effort}" + ("" if preset == "default" else f" preset {preset}")
    return ("webp", label, lambda image: image.webpsave_buffer(Q=q, effort=effort, preset=preset, strip=True))


def avif(q, effort, subsample="auto"):
    label = f"Q {q} effort {effort}" + ("" if subsample == "auto" else f" chroma 4:4:4")
    return ("avif", label, lambda image: image.heifsave_buffer(
        Q=q, effort=effort, compression="av1", subsample_mode=subsample, bitdepth=8, strip=True))


GRIDS = {"final": [JPEG] + [webp(q, 4) for q in (85, 86, 88, 90)] + [webp(88, e) for e in (0, 2, 6)]
         + [avif(q, e) for q in (78, 80, 82, 84) for e in (0, 1, 2)],
         "edge": [JPEG] + [webp(q, e) for q in (90, 91, 92) for e in (3, 4)] + [avif(q, 0) for q in (81, 82, 83)],
         "probe": [JPEG] + [webp(q, 4, p) for q in (85, 90, 93) for p in ("default", "drawing", "text")]
         + [avif(q, e, c) for q in (65, 70, 75, 80) for e in (0, 1, 2) for c in ("auto", "off")]}
SETTINGS = ([JPEG] + [webp(q, e) for q in (75, 80, 85, 90) for e in (2, 4, 6)]
            + [avif(q, e) for q in (45, 50, 55, 60, 65) for e in (0, 1, 2, 4)]
            + [avif(60, 2, "off"), avif(55, 2, "off")])


def rgb_over_white(image):
    image = image.colourspace("srgb")
    if image.hasalpha():
        image = image.flatten(background=[255, 255, 255])
    return image.cast("uchar")


def full_decode(source):
    """The source decoded whole, upright, RGB over white: what every reference is resized from."""
    return rgb_over_white(pyvips.Image.new_from_buffer(source, "").autorot())


def reference(data, size):
    full = full_decode(data)
    scale = size / max(full.width, full.height)
    return full.resize(scale, kernel="lanczos3") if scale < 1 else full


def shrunk(data, size):
    return rgb_over_white(pyvips.Image.thumbnail_buffer(data, size))


def pixels(image):
    return numpy.ndarray(buffer=image.write_to_memory(), dtype=numpy.uint8,
                         shape=[image.height, image.width, image.bands])


def ssim(a, b):
    """The report's SSIM: BT.601 luma, 8x8 uniform windows over every position, K1 0.01, K2 0.03."""
    def luma(p):
        return (0.299 * p[..., 0] + 0.587 * p[..., 1] + 0.114 * p[..., 2]).round()
    x, y = luma(a.astype(numpy.float64)), luma(b.astype(numpy.float64))
    w = min(8, x.shape[0], x.shape[1])
    def box(m):
        s = numpy.pad(m, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
        return (s[w:, w:] - s[:-w, w:] - s[w:, :-w] + s[:-w, :-w]) / (w * w)
    mx, my = box(x), box(y)
    vx, vy, cov = box(x * x) - mx * mx, box(y * y) - my * my, box(x * y) - mx * my
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    return float((((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))).mean())


def ssimulacra2(reference_path, encoded, scratch):
    decoded = rgb_over_white(pyvips.Image.new_from_buffer(encoded, ""))
    path = os.path.join(scratch, "decoded.png")
    decoded.pngsave(path, compression=1)
    return compute_ssimulacra2_with_alpha(reference_path, path), pixels(decoded)


def score_against(full, encoded, scratch):
    """(SSIM, SSIMULACRA2) of `encoded` against `full` (a full_decode) resized to the encoded image's size."""
    decoded = rgb_over_white(pyvips.Image.new_from_buffer(encoded, ""))
    ref = full.resize(decoded.width / full.width, vscale=decoded.height / full.height, kernel="lanczos3")
    ref_path = os.path.join(scratch, "reference.png")
    ref.pngsave(ref_path, compression=1)
    value, pixels_decoded = ssimulacra2(ref_path, encoded, scratch)
    return ssim(pixels_decoded[..., :3], pixels(ref)[..., :3]), value


def score(source, encoded, scratch):
    """(SSIM, SSIMULACRA2) of `encoded` against `source`'s full-decode reference at the encoded image's size."""
    return score_against(full_decode(source), encoded, scratch)


def score_variants(job):
    """(SSIM, SSIMULACRA2, bytes) of each of one image's cached variants against its full decode, made once:
    bench/run.py's formats section, one job per image in a process pool. `job` is (source path, [(format,
    variant path)])."""
    source_path, variants = job
    with open(source_path, "rb") as handle:
        full = full_decode(handle.read()).copy_memory()
    scores = {}
    with tempfile.TemporaryDirectory() as scratch:
        for fmt, path in variants:
            with open(path, "rb") as handle:
                encoded = handle.read()
            scores[fmt] = (*score_against(full, encoded, scratch), len(encoded))
    return scores


def measure(sources, size, scratch):
    rows = {(fmt, label): {"bytes": [], "cpu": [], "ssim": [], "ssimulacra2": []} for fmt, label, _ in SETTINGS}
    for index, data in enumerate(sources):
        ref = reference(data, size)
        ref_path = os.path.join(scratch, "reference.png")
        ref.pngsave(ref_path, compression=1)
        ref_pixels = pixels(ref)
        bitmap = shrunk(data, size).copy_memory()
        if (bitmap.width, bitmap.height) != (ref.width, ref.height):
            bitmap = bitmap.resize(ref.width / bitmap.width, vscale=ref.height / bitmap.height, kernel="lanczos3")
        for fmt, label, save in SETTINGS:
            started = time.process_time()
            encoded = save(bitmap)
            cpu = time.process_time() - started
            score, decoded = ssimulacra2(ref_path, encoded, scratch)
            row = rows[(fmt, label)]
            row["bytes"].append(len(encoded))
            row["cpu"].append(cpu)
            row["ssim"].append(ssim(decoded[..., :3], ref_pixels[..., :3]))
            row["ssimulacra2"].append(score)
        print(f"{index + 1}/{len(sources)} images", file=sys.stderr, flush=True)
    return rows


def table(rows, count, size, products):
    header = (f"Demo catalog (`warm serve --products {products}`), {count} distinct images at {size} px; medians "
              "over images (encode CPU: mean).")
    return settings_table(header, {f"{fmt} | {label}": row for (fmt, label), row in rows.items()},
                          jpeg="jpeg | Q 82", label_columns=("format", "setting"), digits=(2, 1, 1))


def settings_table(header, rows, jpeg, label_columns, digits):
    """Markdown: one row per setting (label cells, median bytes, vs JPEG, mean encode CPU, median SSIM, median
    SSIMULACRA2); `digits` are the decimals of vs JPEG, CPU (ms) and SSIMULACRA2. Also bench/webp_settings.py's."""
    ratio, cpu, s2 = digits
    out = [header, "",
           "| " + " | ".join(label_columns) + " | median bytes | vs JPEG | mean encode CPU | median SSIM | median SSIMULACRA2 |",
           "|" + "---|" * len(label_columns) + "---:|---:|---:|---:|---:|"]
    jpeg_bytes = statistics.median(rows[jpeg]["bytes"])
    for label, row in rows.items():
        b = statistics.median(row["bytes"])
        out.append(f"| {label} | {b:,.0f} | {b / jpeg_bytes:.{ratio}f} | {statistics.mean(row['cpu']) * 1000:.{cpu}f} ms | "
                   f"{statistics.median(row['ssim']):.4f} | {statistics.median(row['ssimulacra2']):.{s2}f} |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", default=os.path.join(bench.REPO, ".build", "release", "warm"))
    parser.add_argument("--products", type=int, default=200)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--grid", choices=["main"] + sorted(GRIDS), default="main")
    args = parser.parse_args()
    if args.grid != "main":
        SETTINGS[:] = GRIDS[args.grid]
    pyvips.cache_set_max(0)
    server = bench.CatalogServer(args.warm, args.products)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            paths, _, _ = bench.fetch_served_images(bench.thumbnail_urls(server.url), os.path.join(scratch, "images"))
            sources = list({open(p, "rb").read(): None for p in paths})
            rows = measure(sources, args.size, scratch)
    finally:
        server.stop()
    print(table(rows, len(sources), args.size, args.products))


if __name__ == "__main__":
    main()
