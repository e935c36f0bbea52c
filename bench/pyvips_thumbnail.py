"""libvips 8.18 (what sharp ships) through pyvips and pyvips-binary, as the
benchmark's libvips peer: `Image.thumbnail()` (shrink-on-load, upright by
EXIF), alpha flattened onto white, JPEG quality 82, optimised, no metadata,
in a pool of one process per core with one libvips thread each.

    python3 bench/pyvips_thumbnail.py --size 300 --out DIR [--jobs N] FILE...
"""

import argparse
import multiprocessing
import os
import sys

os.environ.setdefault("VIPS_CONCURRENCY", "1")  # before libvips starts: the pool gives one process per core
import pyvips  # noqa: E402

SIZE = 300
OUT = "."


def thumbnail(path):
    """Thumbnails one file; returns None or an error line naming it."""
    try:
        image = pyvips.Image.thumbnail(path, SIZE)
        if image.hasalpha():
            image = image.flatten(background=[255, 255, 255])
        base = os.path.splitext(os.path.basename(path))[0]
        image.jpegsave(os.path.join(OUT, base + ".jpg"), Q=82, optimize_coding=True, keep="none")
        return None
    except Exception as error:  # a bad file is reported by name; the rest go on
        return f"{path}: {error}"


def main():
    global SIZE, OUT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--version", action="store_true", help="print libvips' version and exit")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.version:
        print(f"libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} (pyvips {pyvips.__version__})")
        return 0
    SIZE, OUT = args.size, args.out
    os.makedirs(OUT, exist_ok=True)
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        errors = [e for e in pool.imap_unordered(thumbnail, args.files, chunksize=4) if e]
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
