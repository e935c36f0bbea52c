"""The benchmark corpus: a seeded mix of the images a marketplace catalog holds,
cut from the real photographs Debian's mate-backgrounds installs.

Made with the libvips CLI (`vips`) and exiftool (ImageMagick's `-orient` when
exiftool is missing), into a work directory that is never committed. The same
seed and count give the same files; a corpus whose manifest matches is reused.
"""

import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile

PHOTO_ROOT = "/usr/share/backgrounds/mate"
PHONE_SIZE = (4032, 3024)
SCREENSHOT_SIZE = (1170, 2532)
WEBP_SIZE = (1600, 1200)

# kind -> share of the corpus. Phone photos dominate the bytes, server-size
# thumbnails the count, as in the catalog server's own mix.
KIND_SHARES = [
    ("phone-jpeg", 0.20),
    ("phone-jpeg-progressive", 0.10),
    ("phone-jpeg-exif6", 0.10),
    ("server-jpeg", 0.30),
    ("screenshot-png", 0.13),
    ("webp", 0.17),
]
FORMAT_VERSION = 1  # bump when the recipe changes, so an old corpus is remade


def sources():
    """JPEG and PNG files under PHOTO_ROOT, sorted (the seed picks among them)."""
    found = []
    for folder, _, names in os.walk(PHOTO_ROOT):
        for name in names:
            if name.lower().endswith((".jpg", ".jpeg", ".png")):
                found.append(os.path.join(folder, name))
    return sorted(found)


def header_size(path):
    """(width, height) of an image from its header (vipsheader)."""
    width = int(subprocess.check_output(["vipsheader", "-f", "width", path], text=True))
    height = int(subprocess.check_output(["vipsheader", "-f", "height", path], text=True))
    return width, height


def plan(count, seed):
    """The list of images to make: kind, size, source, crop window, options."""
    rng = random.Random(seed)
    photos = sources()
    if not photos:
        raise SystemExit(f"corpus: no JPEG/PNG photographs under {PHOTO_ROOT} (apt-get install mate-backgrounds)")
    sizes = {path: header_size(path) for path in photos}
    jpegs = [p for p in photos if p.lower().endswith((".jpg", ".jpeg"))]
    pngs = [p for p in photos if p.lower().endswith(".png")]

    counts = [(kind, int(round(share * count))) for kind, share in KIND_SHARES]
    counts[3] = (counts[3][0], counts[3][1] + count - sum(n for _, n in counts))  # rounding goes to server-jpeg
    items = []
    for kind, n in counts:
        for index in range(n):
            if kind.startswith("phone-jpeg"):
                width, height = PHONE_SIZE
                pool = jpegs
            elif kind == "server-jpeg":
                side = rng.randrange(640, 1281, 16)
                width, height = rng.choice([(side, side), (side, side * 3 // 4), (side * 3 // 4, side)])
                pool = photos
            elif kind == "screenshot-png":
                width, height = SCREENSHOT_SIZE
                pool = pngs or photos
            else:
                width, height = WEBP_SIZE
                pool = photos
            source = rng.choice(pool)
            src_w, src_h = sizes[source]
            # A random window of the target's aspect, 55-100% of the largest that fits.
            fit = min(src_w / width, src_h / height)
            scale = fit * rng.uniform(0.55, 1.0)
            crop_w = max(16, min(src_w, int(width * scale)))
            crop_h = max(16, min(src_h, int(height * scale)))
            item = {
                "name": f"{kind}-{index:04d}",
                "kind": kind,
                "source": source,
                "crop": [rng.randrange(0, src_w - crop_w + 1), rng.randrange(0, src_h - crop_h + 1), crop_w, crop_h],
                "flip": rng.random() < 0.5,
                "width": width,
                "height": height,
            }
            if kind == "phone-jpeg":
                item.update(ext="jpg", save="[Q=85,optimize_coding]")
            elif kind == "phone-jpeg-progressive":
                item.update(ext="jpg", save="[Q=82,interlace,optimize_coding]")
            elif kind == "phone-jpeg-exif6":
                item.update(ext="jpg", save="[Q=85,optimize_coding]", orientation=6)
            elif kind == "server-jpeg":
                progressive = rng.random() < 0.33
                item.update(ext="jpg", save="[Q=80,interlace]" if progressive else "[Q=80]", progressive=progressive)
            elif kind == "screenshot-png":
                item.update(ext="png", save="[compression=6]")
            else:
                item.update(ext="webp", save="[Q=80]")
            items.append(item)
    return items


def _vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _make(item, out_dir, noise_path, scratch):
    """Makes one image. Phone photos get sensor-like noise so that their
    entropy (and so their size and decode cost) is a real phone's, not an
    upscaled wallpaper's."""
    out = os.path.join(out_dir, f"{item['name']}.{item['ext']}")
    work = tempfile.mkdtemp(dir=scratch)
    try:
        left, top, w, h = item["crop"]
        _vips("crop", item["source"], f"{work}/c.v", left, top, w, h)
        current = f"{work}/c.v"
        if item["flip"]:
            _vips("flip", current, f"{work}/f.v", "horizontal")
            current = f"{work}/f.v"
        # Exact size: cover the target, then centre-crop the few pixels over.
        _vips("thumbnail", current, f"{work}/t.v", item["width"], "--height", item["height"],
              "--size", "both", "--crop", "centre")
        current = f"{work}/t.v"
        bands = int(subprocess.check_output(["vipsheader", "-f", "bands", current], text=True))
        if item["ext"] == "jpg" and bands not in (1, 3):
            _vips("flatten", current, f"{work}/b.v", "--background", "255 255 255")
            current = f"{work}/b.v"
        if noise_path and item["kind"].startswith("phone-jpeg"):
            _vips("add", current, noise_path, f"{work}/n.v")
            _vips("cast", f"{work}/n.v", out + item["save"], "uchar")
        else:
            _vips("copy", current, out + item["save"])
        if item.get("orientation"):
            tag_orientation(out, item["orientation"])
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tag_orientation(path, orientation):
    """Sets EXIF Orientation without touching the pixels."""
    if shutil.which("exiftool"):
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-Orientation#={orientation}", path], check=True)
    else:
        names = {6: "RightTop", 8: "LeftBottom", 3: "BottomRight"}
        subprocess.run(["/usr/bin/convert", path, "-orient", names[orientation], path], check=True)


def build(out_dir, count, seed, jobs):
    """Makes the corpus in out_dir (reused when its manifest matches) and
    returns the manifest: {seed, count, files: [{path, kind, bytes, ...}]}."""
    items = plan(count, seed)
    recipe = hashlib.sha256(json.dumps([FORMAT_VERSION, items], sort_keys=True).encode()).hexdigest()
    manifest_path = os.path.join(out_dir, "manifest.json")
    if os.path.exists(manifest_path):
        with open(manifest_path) as handle:
            manifest = json.load(handle)
        if manifest.get("recipe") == recipe and all(os.path.exists(f["path"]) for f in manifest["files"]):
            return manifest
    shutil.rmtree(out_dir, ignore_errors=True)
    images_dir = os.path.join(out_dir, "images")
    os.makedirs(images_dir)
    scratch = os.path.join(out_dir, "scratch")
    os.makedirs(scratch)
    noise_path = os.path.join(scratch, "noise.v")
    _vips("gaussnoise", noise_path, PHONE_SIZE[0], PHONE_SIZE[1], "--sigma", 5, "--mean", 0, "--seed", seed)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        paths = list(pool.map(lambda item: _make(item, images_dir, noise_path, scratch), items))
    shutil.rmtree(scratch, ignore_errors=True)
    files = []
    for item, path in zip(items, paths):
        files.append({"path": path, "kind": item["kind"], "bytes": os.path.getsize(path),
                      "width": item["width"], "height": item["height"],
                      "orientation": item.get("orientation", 1), "source": os.path.basename(item["source"])})
    manifest = {"seed": seed, "count": count, "recipe": recipe, "files": files}
    with open(manifest_path, "w") as handle:
        json.dump(manifest, handle, indent=1)
    return manifest


def summary(manifest):
    """Per kind: count, total bytes, size range; in KIND_SHARES order."""
    rows = []
    for kind, _ in KIND_SHARES:
        files = [f for f in manifest["files"] if f["kind"] == kind]
        if not files:
            continue
        dims = sorted({(f["width"], f["height"]) for f in files})
        dim_text = f"{dims[0][0]}x{dims[0][1]}" if len(dims) == 1 else f"{len(dims)} sizes, {min(max(d) for d in dims)}-{max(max(d) for d in dims)} px"
        rows.append({"kind": kind, "count": len(files), "bytes": sum(f["bytes"] for f in files), "dims": dim_text})
    return rows
