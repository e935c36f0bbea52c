#!/usr/bin/env python3
"""AVIF of warm's direct-path bitmaps through libheif's aom encoder directly (bench/avif_libheif_probe.c), against
JPEG Q 82: bytes, encode CPU, SSIM, SSIMULACRA2 (bench/findings.md section 22; a probe, not what warm ships). warm's own
saver call cannot run here (pyvips brings libvips 8.18; two libvips in one process break heifsave): its bytes and CPU
against the direct call are bench/avif_saver_vs_libheif.py's. Scoring and bitmaps as bench/webp_settings.py.

    python3 bench/avif_libheif_score.py [WARM]      # WARM serves the catalog (default .build/release/warm)
"""
import os, sys, statistics, subprocess, tempfile, ctypes
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips, run as bench, encoder_settings as scoring, webp_settings as ws, time
server = bench.CatalogServer(sys.argv[1] if len(sys.argv) > 1 else os.path.join(bench.REPO, '.build', 'release', 'warm'), 24)
rows = {}
try:
    with tempfile.TemporaryDirectory() as scratch:
        lib = ws.build_engine(scratch)
        probe = os.path.join(scratch, "avif_probe")
        heif = subprocess.run(["pkg-config", "--cflags", "--libs", "libheif"], capture_output=True, text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", probe, os.path.join(bench.HERE, "avif_libheif_probe.c"), *heif], check=True)
        paths, _, _ = bench.fetch_served_images(bench.thumbnail_urls(server.url), os.path.join(scratch, "images"))
        sources = list({open(p, "rb").read(): None for p in paths})
        for data in sources:
            rgb, w, h, jpeg = ws.warm_bitmap(lib, data, 300)
            raw = os.path.join(scratch, "b.rgb"); open(raw, "wb").write(rgb)
            made = {"jpeg": (jpeg, 0)}
            for label, q, threads in (("libheif Q81 speed9 threads1", 81, 1), ("libheif Q81 speed9 default threads", 81, 0), ("libheif Q78 speed9 threads1", 78, 1), ("libheif Q84 speed9 threads1", 84, 1)):
                outp = os.path.join(scratch, "o.avif")
                r = subprocess.run([probe, str(w), str(h), raw, str(q), "9", "0", str(threads), outp], capture_output=True, text=True, check=True).stdout.split()
                made[label] = (open(outp, "rb").read(), float(r[1]))
            for label, (enc, cpu) in made.items():
                ssim, s2 = scoring.score(data, enc, scratch)
                row = rows.setdefault(label, {"b": [], "c": [], "s": [], "s2": []})
                row["b"].append(len(enc)); row["c"].append(cpu); row["s"].append(ssim); row["s2"].append(s2)
            print(len(rows["jpeg"]["b"]), file=sys.stderr, flush=True)
finally:
    server.stop()
jb = statistics.median(rows["jpeg"]["b"])
for label, r in rows.items():
    b = statistics.median(r["b"])
    print(f"| {label} | {b:,.0f} | {b/jb:.3f} | {statistics.mean(r['c']):.2f} ms | {statistics.median(r['s']):.4f} | {statistics.median(r['s2']):.2f} |")
