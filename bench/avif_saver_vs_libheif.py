#!/usr/bin/env python3
"""warm's AVIF saver call (libvips 8.14's heifsave, as OutputFormat+Encoding writes it) against libheif's aom encoder
called directly (bench/avif_libheif_probe.c) on the same raw RGB bitmaps: bytes and encode CPU (best of three).
No pyvips in this process: pyvips-binary brings its own libvips (8.18), and two libvips in one process break heifsave.

    python3 bench/avif_saver_vs_libheif.py W:H:FILE.rgb ...
"""
import ctypes
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SUFFIX = b".heif[Q=81,effort=0,subsample_mode=auto,compression=av1,bitdepth=8,strip]"


def build(scratch):
    engine = os.path.join(REPO, "Sources", "CWarmVips")
    vips = subprocess.run(["pkg-config", "--cflags", "--libs", "vips"], capture_output=True, text=True, check=True).stdout.split()
    heif = subprocess.run(["pkg-config", "--cflags", "--libs", "libheif"], capture_output=True, text=True, check=True).stdout.split()
    library, probe = os.path.join(scratch, "ws.so"), os.path.join(scratch, "probe")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, os.path.join(HERE, "webp_settings.c"),
                    *[os.path.join(engine, n) for n in sorted(os.listdir(engine)) if n.endswith(".c")],
                    "-I" + os.path.join(engine, "include"), *vips, "-ljpeg", "-lpng16", "-lwebp"], check=True)
    subprocess.run(["cc", "-O2", "-o", probe, os.path.join(HERE, "avif_libheif_probe.c"), *heif], check=True)
    return ctypes.CDLL(library), probe


def main():
    with tempfile.TemporaryDirectory() as scratch:
        lib, probe = build(scratch)
        lib.bench_init()
        totals = {"saver": 0.0, "threads 1": 0.0, "default threads": 0.0}
        for spec in sys.argv[1:]:
            w, h, path = spec.split(":", 2)
            raw = open(path, "rb").read()
            best, length = 9.0, ctypes.c_size_t()
            for _ in range(3):
                out, cpu = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_double()
                if lib.bench_vips_save(raw, int(w), int(h), SUFFIX, ctypes.byref(out), ctypes.byref(length), ctypes.byref(cpu)):
                    raise SystemExit(f"{path}: heifsave failed")
                ctypes.CDLL(None).free(out)
                best = min(best, cpu.value)
            one = subprocess.run([probe, w, h, path, "81", "9", "0", "1"], capture_output=True, text=True, check=True).stdout.split()
            default = subprocess.run([probe, w, h, path, "81", "9", "0", "0"], capture_output=True, text=True, check=True).stdout.split()
            print(f"{path}: saver {length.value} bytes {best * 1000:.2f} ms; libheif speed 9 threads 1 {one[0]} bytes {one[1]} ms; "
                  f"default threads {default[0]} bytes {default[1]} ms")
            totals["saver"] += best * 1000
            totals["threads 1"] += float(one[1])
            totals["default threads"] += float(default[1])
        n = len(sys.argv) - 1
        print("mean encode CPU: " + ", ".join(f"{k} {v / n:.2f} ms" for k, v in totals.items()))


if __name__ == "__main__":
    main()
