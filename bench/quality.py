"""Output quality of a thumbnail tool, the same way for every tool: SSIM of
each output against a reference made from the full decode.

The reference for an input and an output size is Pillow's full decode (no
draft), colour-managed to sRGB when the file embeds a profile (ImageCms),
made upright by its EXIF orientation, flattened onto white, and resampled to
the output's exact size with Lanczos. SSIM is Wang et al.'s (Gaussian window,
sigma 1.5, K1 0.01, K2 0.03) on luma (BT.601), one number per image;
a tool's score is the mean and the 5th percentile over the corpus.

    python3 bench/quality.py CORPUS_DIR OUTPUT_DIR   # prints mean and p5
"""

import io
import os
import sys

import numpy as np
from PIL import Image, ImageCms, ImageOps
from scipy.ndimage import gaussian_filter

SRGB = ImageCms.createProfile("sRGB")


def _luma(image):
    rgb = np.asarray(image.convert("RGB"), dtype=np.float64)
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def _full_decode(path):
    """The upright, sRGB, opaque full decode of one input."""
    with Image.open(path) as image:
        image.load()
        icc = image.info.get("icc_profile")
        upright = ImageOps.exif_transpose(image)
    if upright.mode in ("I;16", "I;16B", "I"):
        upright = upright.point(lambda v: v / 256).convert("L")
    if upright.mode in ("RGBA", "LA", "P", "PA"):
        rgba = upright.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        upright = flat
    if icc:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            mode = "CMYK" if upright.mode == "CMYK" else "RGB" if upright.mode != "L" else "L"
            upright = ImageCms.profileToProfile(upright.convert(mode), source, SRGB, outputMode="RGB")
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass
    return upright.convert("RGB")


class References:
    """Full decodes are expensive (a 4032x3024 photo): one per input, kept
    while its outputs are scored, and the resampled luma cached on disk."""

    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
        os.makedirs(cache_dir, exist_ok=True)

    def luma(self, path, size):
        key = os.path.join(self.cache_dir, f"{os.path.basename(path)}-{size[0]}x{size[1]}.npy")
        if os.path.exists(key):
            return np.load(key)
        luma = _luma(_full_decode(path).resize(size, Image.Resampling.LANCZOS))
        np.save(key, luma)
        return luma


def ssim(a, b):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = gaussian_filter(a, 1.5), gaussian_filter(b, 1.5)
    var_a = gaussian_filter(a * a, 1.5) - mu_a * mu_a
    var_b = gaussian_filter(b * b, 1.5) - mu_b * mu_b
    cov = gaussian_filter(a * b, 1.5) - mu_a * mu_b
    value = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a * mu_a + mu_b * mu_b + c1) * (var_a + var_b + c2))
    return float(value.mean())


def score(inputs, out_dir, references):
    """{input base name: SSIM} for every input whose output `<base>.jpg` exists."""
    scores = {}
    for path in inputs:
        base = os.path.splitext(os.path.basename(path))[0]
        output = os.path.join(out_dir, base + ".jpg")
        if not os.path.exists(output):
            continue
        with Image.open(output) as image:
            luma = _luma(image)
        reference = references.luma(path, (luma.shape[1], luma.shape[0]))
        scores[base] = ssim(reference, luma)
    return scores


def summarize(scores):
    values = sorted(scores.values())
    if not values:
        return None
    return {"mean": float(np.mean(values)), "p5": float(np.percentile(values, 5)), "min": values[0], "n": len(values)}


def main():
    corpus_dir, out_dir = sys.argv[1], sys.argv[2]
    inputs = sorted(os.path.join(corpus_dir, n) for n in os.listdir(corpus_dir)
                    if os.path.isfile(os.path.join(corpus_dir, n)) and not n.endswith(".json"))
    result = summarize(score(inputs, out_dir, References(os.path.join(corpus_dir, "..", "references"))))
    print(result)


if __name__ == "__main__":
    main()
