"""Pillow's fastest thumbnail path, as the benchmark's Pillow peer: draft()
(JPEG DCT scaling at decode), thumbnail() (reducing_gap), upright by EXIF,
flattened onto white, written as JPEG quality 82 without metadata.

    python3 bench/pillow_thumbnail.py --size 300 --out DIR [--jobs N] FILE...
"""

import argparse
import multiprocessing
import os
import sys

from PIL import Image, ImageOps

SIZE = 300
OUT = "."
DECODE_ONLY = False


def thumbnail(path):
    """Thumbnails one file; returns None or an error line naming it."""
    try:
        with Image.open(path) as image:
            image.draft("RGB", (SIZE, SIZE))  # JPEG only: decode at 1/2, 1/4 or 1/8 scale
            if DECODE_ONLY:  # the floor: the decode alone, nothing resized or written
                image.load()
                return None
            image.thumbnail((SIZE, SIZE))
            image = ImageOps.exif_transpose(image)
            if image.mode in ("RGBA", "LA", "P"):
                image = image.convert("RGBA")
                flat = Image.new("RGB", image.size, (255, 255, 255))
                flat.paste(image, mask=image.getchannel("A"))
                image = flat
            elif image.mode != "RGB":
                image = image.convert("RGB")
            base = os.path.splitext(os.path.basename(path))[0]
            image.save(os.path.join(OUT, base + ".jpg"), "JPEG", quality=82, optimize=True)
        return None
    except Exception as error:  # a bad file is reported by name; the rest go on
        return f"{path}: {error}"


def main():
    global SIZE, OUT, DECODE_ONLY
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--decode-only", action="store_true", help="decode (with draft) and write nothing: the floor")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    SIZE, OUT, DECODE_ONLY = args.size, args.out, args.decode_only
    os.makedirs(OUT, exist_ok=True)
    if args.jobs > 1:
        # fork: workers inherit SIZE and OUT; chunks keep the IPC cost small.
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            errors = [e for e in pool.imap_unordered(thumbnail, args.files, chunksize=4) if e]
    else:
        errors = [e for e in map(thumbnail, args.files) if e]
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
