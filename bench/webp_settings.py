#!/usr/bin/env python3
"""WebPConfig settings libvips' webpsave does not expose, by measurement (issue 37, bench/findings.md section 22).

    python3 bench/webp_settings.py [--warm .build/release/warm] [--products 24] [--grid "q=90,m=4;q=90,m=4,af=1"]

Every distinct image of the demo catalog (`warm serve --products N`) goes through warm's own direct path (its C
engine, built with bench/webp_settings.c into a shared library): its JPEG at quality 82 is warm's JPEG byte for byte,
and the upright RGB bitmap it hands over is what each WebP setting encodes, as `warm run --format jpeg,webp` does
(an image the direct path does not take is shrunk by pyvips instead). Scores as bench/encoder_settings.py: the
report's SSIM and SSIMULACRA2 against the full decode resized with Lanczos3. Encode CPU: process CPU time around the
encode, the lower of two encodes, mean over images.

A setting is `;`-separated from the next, its fields `,`-separated: q (quality, a float), m (method), sns, fs
(filter_strength), sh (filter_sharpness), ft (filter_type), af (autofilter), seg (segments), pass, pre
(preprocessing), sharp (use_sharp_yuv); `vips` encodes with libvips' webpsave instead (q and m only, as warm did).
Needs: pip install pyvips ssimulacra2 numpy; cc, libvips-dev, libwebp-dev.
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encoder_settings as scoring  # noqa: E402
import run as bench  # noqa: E402

FIELDS = ["quality", "method", "sns_strength", "filter_strength", "filter_sharpness", "filter_type", "autofilter",
          "segments", "pass", "preprocessing", "use_sharp_yuv"]
SHORT = {"q": "quality", "m": "method", "sns": "sns_strength", "fs": "filter_strength", "sh": "filter_sharpness",
         "ft": "filter_type", "af": "autofilter", "seg": "segments", "pass": "pass", "pre": "preprocessing",
         "sharp": "use_sharp_yuv"}
DEFAULT_GRID = ("vips,q=90,m=4;q=90,m=4;q=90,m=2;q=90,m=3;q=90,m=4,af=1;q=90,m=3,af=1;q=90,m=2,af=1;"
                "q=90,m=4,sns=0;q=90,m=4,sns=25;q=90,m=4,sns=80;q=90,m=4,fs=30;q=90,m=4,sh=3;q=90,m=4,seg=1;"
                "q=90,m=4,seg=2;q=90,m=4,pass=2;q=90,m=4,pre=1;q=90,m=4,sharp=1;q=90.5,m=4;q=91,m=4;q=89,m=4,af=1")


class Params(ctypes.Structure):
    _fields_ = [("quality", ctypes.c_float)] + [(name, ctypes.c_int) for name in FIELDS[1:]]


class Pixels(ctypes.Structure):
    _fields_ = [("rgb", ctypes.c_void_p), ("width", ctypes.c_int), ("height", ctypes.c_int)]


def build_engine(scratch):
    library = os.path.join(scratch, "webp_settings.so")
    cflags = subprocess.run(["pkg-config", "--cflags", "--libs", "vips"], capture_output=True, text=True,
                            check=True).stdout.split()
    engine = os.path.join(bench.REPO, "Sources", "CWarmVips")
    sources = [os.path.join(engine, name) for name in sorted(os.listdir(engine)) if name.endswith(".c")]
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, os.path.join(bench.HERE, "webp_settings.c"),
                    *sources, "-I" + os.path.join(engine, "include"), *cflags, "-ljpeg", "-lpng16", "-lwebp"],
                   check=True)
    lib = ctypes.CDLL(library)
    lib.bench_init()
    return lib


def parse_grid(text):
    settings = []
    for item in filter(None, (s.strip() for s in text.split(";"))):
        values, vips = {name: -1 for name in FIELDS}, False
        for field in item.split(","):
            if field == "vips":
                vips = True
                continue
            key, value = field.split("=")
            values[SHORT[key]] = float(value) if key == "q" else int(value)
        settings.append((item, vips, values))
    return settings


def jpeg_factor(stored, output):
    """ShrinkOnLoad.jpegFactor (1.5x the output)."""
    for factor in (8, 4, 2):
        w, h = -(-stored[0] // factor), -(-stored[1] // factor)
        if w >= 1.5 * output[0] and h >= 1.5 * output[1]:
            return factor
    return 1


def output_size(upright, size):
    """DecodeTarget.outputSize."""
    longest = max(upright)
    if longest <= size:
        return upright
    scale = size / longest
    return tuple(size if side == longest else max(1, round(side * scale)) for side in upright)


def warm_bitmap(lib, data, size):
    """(RGB bytes, width, height, warm's JPEG at Q 82) as warm's direct path makes them; None when it declines."""
    kind = {b"\xff\xd8": 0, b"\x89P": 1, b"RI": 2}.get(data[:2])
    if kind is None:
        return None
    header = pyvips.Image.new_from_buffer(data, "")
    orientation = header.get("orientation") if header.get_typeof("orientation") else 1
    orientation = orientation if 1 <= orientation <= 8 else 1
    stored = (header.width, header.height)
    upright = stored[::-1] if orientation >= 5 else stored
    out = output_size(upright, size)
    out_stored = out[::-1] if orientation >= 5 else out
    jpeg, jpeg_len, keep = ctypes.c_void_p(), ctypes.c_size_t(), Pixels()
    status = lib.bench_direct(data, ctypes.c_size_t(len(data)), kind, jpeg_factor(stored, out_stored),
                              out_stored[0], out_stored[1], orientation, 82, ctypes.byref(jpeg), ctypes.byref(jpeg_len),
                              ctypes.byref(keep))
    if status != 0 or not keep.rgb:
        return None
    rgb = ctypes.string_at(keep.rgb, keep.width * keep.height * 3)
    encoded = ctypes.string_at(jpeg, jpeg_len.value)
    libc = ctypes.CDLL(None)
    libc.free(ctypes.c_void_p(keep.rgb))
    ctypes.CDLL("libglib-2.0.so.0").g_free(jpeg)
    return rgb, keep.width, keep.height, encoded


def encode(lib, rgb, width, height, vips, values):
    out, length, cpu, best = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t(), ctypes.c_double(), None
    libc = ctypes.CDLL(None)
    for _ in range(2):
        if vips:
            suffix = f".webp[Q={int(values['quality'])},effort={values['method']},strip]".encode()
            status = lib.bench_vips_save(rgb, width, height, suffix, ctypes.byref(out), ctypes.byref(length),
                                         ctypes.byref(cpu))
        else:
            params = Params(**values)
            status = lib.bench_webp_encode(rgb, width, height, ctypes.byref(params), ctypes.byref(out),
                                           ctypes.byref(length), ctypes.byref(cpu))
        if status != 0:
            raise SystemExit(f"encode failed: {values}")
        encoded = ctypes.string_at(out, length.value)
        libc.free(out)
        best = cpu.value if best is None else min(best, cpu.value)
    return encoded, best


def measure(lib, sources, size, settings, scratch):
    rows = {label: {"bytes": [], "cpu": [], "ssim": [], "ssimulacra2": []} for label in ["jpeg Q 82"] + [s[0] for s in settings]}
    declined = 0
    for index, data in enumerate(sources):
        made = warm_bitmap(lib, data, size)
        if made is None:
            declined += 1
            image = scoring.shrunk(data, size).copy_memory()
            rgb, width, height = image.write_to_memory(), image.width, image.height
            jpeg = image.jpegsave_buffer(Q=82, optimize_coding=True, strip=True)
        else:
            rgb, width, height, jpeg = made
        full = scoring.rgb_over_white(pyvips.Image.new_from_buffer(data, "").autorot())
        ref = full.resize(width / full.width, vscale=height / full.height, kernel="lanczos3")
        ref_path = os.path.join(scratch, "reference.png")
        ref.pngsave(ref_path, compression=1)
        ref_pixels = scoring.pixels(ref)
        encoded_all = [("jpeg Q 82", jpeg, 0.0)]
        for label, vips, values in settings:
            encoded, cpu = encode(lib, rgb, width, height, vips, values)
            encoded_all.append((label, encoded, cpu))
        for label, encoded, cpu in encoded_all:
            value, decoded = scoring.ssimulacra2(ref_path, encoded, scratch)
            row = rows[label]
            row["bytes"].append(len(encoded))
            row["cpu"].append(cpu)
            row["ssim"].append(scoring.ssim(decoded[..., :3], ref_pixels[..., :3]))
            row["ssimulacra2"].append(value)
        print(f"{index + 1}/{len(sources)} images", file=sys.stderr, flush=True)
    return rows, declined


def table(rows, count, declined, size, products):
    header = (f"Demo catalog (`warm serve --products {products}`), {count} distinct images at {size} px "
              f"({count - declined} through warm's direct path); medians over images (encode CPU: mean).")
    return scoring.settings_table(header, rows, jpeg="jpeg Q 82", label_columns=("setting",), digits=(3, 2, 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", default=os.path.join(bench.REPO, ".build", "release", "warm"),
                        help="serves the catalog (any build)")
    parser.add_argument("--products", type=int, default=24)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--grid", default=DEFAULT_GRID)
    parser.add_argument("--like-run", type=int, metavar="N",
                        help="only the N images bench/run.py's formats section scores (--formats-scored N), not every one")
    args = parser.parse_args()
    pyvips.cache_set_max(0)
    settings = parse_grid(args.grid)
    server = bench.CatalogServer(args.warm, args.products)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            lib = build_engine(scratch)
            urls = bench.thumbnail_urls(server.url)
            if args.like_run:  # run.py's score_formats: every step-th URL
                urls = urls[::max(1, len(urls) // args.like_run)][:args.like_run]
            paths, _, _ = bench.fetch_served_images(urls, os.path.join(scratch, "images"))
            sources = list({open(p, "rb").read(): None for p in paths})
            rows, declined = measure(lib, sources, args.size, settings, scratch)
    finally:
        server.stop()
    print(table(rows, len(sources), declined, args.size, args.products))


if __name__ == "__main__":
    main()
