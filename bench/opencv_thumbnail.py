"""OpenCV's fastest thumbnail path, as the benchmark's OpenCV peer: a JPEG is
decoded reduced (`cv2.IMREAD_REDUCED_COLOR_2/4/8`: libjpeg's DCT scaling, the
largest factor that keeps the longest side >= the target), anything else in
full (alpha flattened onto white); EXIF orientation applied by imread;
`INTER_AREA` to the exact size; JPEG quality 82, optimised, no metadata.

    python3 bench/opencv_thumbnail.py --size 300 --out DIR [--jobs N] FILE...
"""

import argparse
import multiprocessing
import os
import sys

import cv2
from PIL import Image  # the header only (lazy open): OpenCV has no header-only call

cv2.setNumThreads(1)  # the pool gives one process per core
SIZE = 300
OUT = "."
REDUCED = {8: cv2.IMREAD_REDUCED_COLOR_8, 4: cv2.IMREAD_REDUCED_COLOR_4, 2: cv2.IMREAD_REDUCED_COLOR_2}


def thumbnail(path):
    """Thumbnails one file; returns None or an error line naming it."""
    try:
        with Image.open(path) as header:
            is_jpeg, longest = header.format == "JPEG", max(header.size)
        factor = next((f for f in (8, 4, 2) if is_jpeg and longest / f >= SIZE), 1)
        image = cv2.imread(path, REDUCED[factor] if factor > 1 else cv2.IMREAD_UNCHANGED)
        if image is None:
            return f"{path}: OpenCV could not decode it"
        if image.ndim == 3 and image.shape[2] == 4:
            alpha = image[:, :, 3:4].astype("float32") / 255.0
            image = (image[:, :, :3] * alpha + 255.0 * (1.0 - alpha)).astype("uint8")
        elif image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        height, width = image.shape[:2]
        scale = min(1.0, SIZE / max(width, height))
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        if size != (width, height):
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        base = os.path.splitext(os.path.basename(path))[0]
        ok = cv2.imwrite(os.path.join(OUT, base + ".jpg"), image,
                         [cv2.IMWRITE_JPEG_QUALITY, 82, cv2.IMWRITE_JPEG_OPTIMIZE, 1])
        return None if ok else f"{path}: OpenCV could not write it"
    except Exception as error:  # a bad file is reported by name; the rest go on
        return f"{path}: {error}"


def main():
    global SIZE, OUT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    SIZE, OUT = args.size, args.out
    os.makedirs(OUT, exist_ok=True)
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        errors = [e for e in pool.imap_unordered(thumbnail, args.files, chunksize=4) if e]
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
