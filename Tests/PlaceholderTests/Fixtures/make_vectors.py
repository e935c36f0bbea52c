#!/usr/bin/env python3
"""Makes the ThumbHash fixtures PlaceholderTests checks warm's port against.

    python3 Tests/PlaceholderTests/Fixtures/make_vectors.py

Needs node (Debian's nodejs), the libvips CLI (libvips-tools), Pillow, and the
photos of Debian's mate-backgrounds; optionally the PyPI package thumbhash 0.1.2.
Writes, beside this script:

- vectors.json: small synthetic images (gradients, alpha, portrait, landscape,
  1x1, 100x75, noise, flat), their pixels, and what evanw's reference
  (evanw-thumbhash.mjs, run with node) makes of them: the hash, the average
  colour, the approximate aspect ratio and the decoded placeholder; and a sample
  of the arguments where node's Math.cos and the C library's cos differ in the
  last bit (the port computes node's: Sources/Placeholder/ReferenceCosine.swift).
- photos.json: 20 real photos, crops of the mate-backgrounds photos at common
  catalog shapes, each `vipsthumbnail -s 64x64` (fit, shrink-on-load), with the
  crop's true aspect ratio, the thumbnail's mean colour and the reference's hash.
  64 px, not 100, keeps the committed fixture near 300 KB.

The reference is evanw's JavaScript, not the PyPI package: thumbhash 0.1.2 (a
Python port) raises TypeError on any image with alpha (an operator-precedence
slip: `a_dc, a_ac, a_scale = encode_channel(...) if has_alpha else 1.0, [], 1.0`),
its decoder renders every pixel from the first pixel's cosines (`fx`/`fy` are
appended to, never overwritten), and Python's round() takes halves to even where
JavaScript's Math.round takes them up. Where it does not fail, its hash is
recorded as `pypiHash` for comparison.
"""

import base64
import json
import math
import os
import random
import subprocess
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "evanw-thumbhash.mjs")
PHOTO_ROOT = "/usr/share/backgrounds/mate"
PHOTO_NAMES = [
    "nature/Aqua.jpg", "nature/Blinds.jpg", "nature/Dune.jpg", "nature/FreshFlower.jpg",
    "nature/Garden.jpg", "nature/GreenMeadow.jpg", "nature/LadyBird.jpg", "nature/RainDrops.jpg",
    "nature/Storm.jpg", "nature/TwoWings.jpg", "nature/Wood.jpg", "nature/YellowFlower.jpg",
    "desktop/GreenTraditional.jpg", "abstract/Elephants.jpg",
]
# Product-photo shapes. Not 16:10 or 2:1: ThumbHash stores those as 7:4 (9.4% and 12.5% off).
SHAPES = [(1, 1), (4, 3), (3, 4), (3, 2), (2, 3), (16, 9), (9, 16)]

def run_reference(images):
    """[(w, h, rgba bytes)] -> the reference's results, one node process for all."""
    script = (
        "import * as t from %s;\n" % json.dumps("file://" + REFERENCE)
        + "let chunks = []; for await (const c of process.stdin) chunks.push(c);\n"
        + "let out = JSON.parse(Buffer.concat(chunks).toString()).map(([w, h, b64]) => {\n"
        + "  let hash = t.rgbaToThumbHash(w, h, Buffer.from(b64, 'base64'));\n"
        + "  let avg = t.thumbHashToAverageRGBA(hash);\n"
        + "  let img = t.thumbHashToRGBA(hash);\n"
        + "  return { hash: Buffer.from(hash).toString('base64'), averageRGBA: [avg.r, avg.g, avg.b, avg.a],\n"
        + "    aspectRatio: t.thumbHashToApproximateAspectRatio(hash),\n"
        + "    decoded: { width: img.w, height: img.h, rgba: Buffer.from(img.rgba).toString('base64') } };\n"
        + "});\nprocess.stdout.write(JSON.stringify(out));\n")
    payload = json.dumps([[w, h, base64.b64encode(rgba).decode()] for w, h, rgba in images])
    done = subprocess.run(["node", "--input-type=module", "-e", script], input=payload,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def cosines_where_libm_differs(limit=60):
    """[width, term, x, Math.cos(PI / width * term * (x + 0.5))] where node's cosine and this
    machine's C library's (Python's math.cos) differ in the last bit: the cases that decide
    halves like 7.5 in the hash."""
    script = ("let out = []; for (let w = 1; w <= 100; w++) for (let c = 0; c < 7; c++)"
              " for (let x = 0; x < w; x++) out.push([w, c, x, Math.cos(Math.PI / w * c * (x + 0.5))]);"
              " process.stdout.write(JSON.stringify(out));")
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    differing = [row for row in json.loads(done.stdout)
                 if math.cos(math.pi / row[0] * row[1] * (row[2] + 0.5)) != row[3]]
    return differing[::max(1, len(differing) // limit)][:limit]


def pypi_hash(w, h, rgba):
    try:
        import thumbhash
        return base64.b64encode(bytes(thumbhash.rgba_to_thumb_hash(w, h, list(rgba)))).decode()
    except Exception:  # not installed, or its alpha bug (see the docstring)
        return None


def synthetic():
    """name -> (w, h, rgba): deterministic images with the shapes and alpha the encoder branches on."""
    def image(w, h, pixel):
        return (w, h, bytes(v for y in range(h) for x in range(w) for v in pixel(x, y)))

    noise = random.Random(26)
    return {
        "1x1-opaque": image(1, 1, lambda x, y: (200, 100, 50, 255)),
        "gradient-landscape-100x75": image(100, 75, lambda x, y: (x * 255 // 99, y * 255 // 74, 128, 255)),
        "gradient-portrait-75x100": image(75, 100, lambda x, y: (255 - y * 2, (x + y) * 255 // 173, x * 3, 255)),
        "alpha-disc-32x32": image(32, 32, lambda x, y: (
            220, 40, 60, max(0, min(255, int(255 * (14 - ((x - 15.5) ** 2 + (y - 15.5) ** 2) ** 0.5)))))),
        "alpha-ramp-landscape-60x40": image(60, 40, lambda x, y: (30, 160, x * 4, x * 255 // 59)),
        "alpha-ramp-portrait-20x50": image(20, 50, lambda x, y: (y * 5, 90, 200, 255 - y * 5)),
        "transparent-4x4": image(4, 4, lambda x, y: (10, 20, 30, 0)),
        "noise-100x100": image(100, 100, lambda x, y: (noise.randrange(256), noise.randrange(256),
                                                      noise.randrange(256), 255)),
        "thin-portrait-3x100": image(3, 100, lambda x, y: (y * 2, 255 - y * 2, 100 + x * 50, 255)),
        "checker-16x9": image(16, 9, lambda x, y: (250, 250, 250, 255) if (x + y) % 2 else (20, 30, 40, 255)),
        "flat-grey-10x10": image(10, 10, lambda x, y: (128, 128, 128, 255)),
    }


def photo_crops():
    """20 (name, crop width, crop height, thumbnail w, h, rgba): every photo once, then 6 more crops."""
    rng = random.Random(2026)
    crops = []
    with tempfile.TemporaryDirectory() as work:
        for index in range(20):
            name = PHOTO_NAMES[index % len(PHOTO_NAMES)]
            source = os.path.join(PHOTO_ROOT, name)
            with Image.open(source) as original:
                width, height = original.size
            rw, rh = SHAPES[index % len(SHAPES)]
            unit = int(min(width / rw, height / rh) * rng.uniform(0.5, 1.0))
            cw, ch = unit * rw, unit * rh
            left, top = rng.randint(0, width - cw), rng.randint(0, height - ch)
            crop, thumb = os.path.join(work, f"{index}.v"), os.path.join(work, f"{index}.png")
            subprocess.run(["vips", "crop", source, crop, str(left), str(top), str(cw), str(ch)], check=True)
            subprocess.run(["vipsthumbnail", crop, "-s", "64x64", "-o", thumb], check=True)
            with Image.open(thumb) as small:
                rgba = small.convert("RGBA")
                crops.append((f"{name}@{left},{top},{cw}x{ch}", cw, ch, rgba.width, rgba.height, rgba.tobytes()))
    return crops


def main():
    images = synthetic()
    results = run_reference(list(images.values()))
    vectors = []
    for (name, (w, h, rgba)), ref in zip(images.items(), results):
        pypi = pypi_hash(w, h, rgba)
        vectors.append({"name": name, "width": w, "height": h, "rgba": base64.b64encode(rgba).decode(),
                        **ref, "pypiHash": pypi})
        print(f"{name}: {ref['hash']} (PyPI: {'agrees' if pypi == ref['hash'] else pypi})")
    with open(os.path.join(HERE, "vectors.json"), "w") as f:
        json.dump({"reference": "evanw-thumbhash.mjs", "vectors": vectors,
                   "cosines": cosines_where_libm_differs()}, f, indent=1)

    crops = photo_crops()
    results = run_reference([(w, h, rgba) for _, _, _, w, h, rgba in crops])
    photos = []
    for (name, cw, ch, w, h, rgba), ref in zip(crops, results):
        count = w * h
        mean = [sum(rgba[i + c] for i in range(0, count * 4, 4)) / count / 255 for c in range(3)]
        photos.append({"name": name, "aspectRatio": cw / ch, "meanRGB": mean, "width": w, "height": h,
                       "rgba": base64.b64encode(rgba).decode(), "hash": ref["hash"]})
    with open(os.path.join(HERE, "photos.json"), "w") as f:
        json.dump({"thumbnails": "vipsthumbnail -s 64x64 of a crop", "photos": photos}, f, indent=1)
    print(f"{len(vectors)} vectors, {len(photos)} photos")


if __name__ == "__main__":
    main()
