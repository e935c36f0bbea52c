#!/usr/bin/env python3
"""warm's benchmark (tracker issue 5): `warm` side by side with the tools users
would pick instead, in one run, on one seeded corpus; writes reports/benchmarks.md.

    python3 bench/run.py            # full run, about 20 minutes on 2 quiet cores (+4 the first time)
    python3 bench/run.py --quick    # smaller corpus and catalogs, 3 repeats, a few minutes

What it does, in order:
  1. installs what is missing (apt: libvips-tools imagemagick mate-backgrounds
     libimage-exiftool-perl; pip: Pillow, opencv-python-headless, pyvips with
     pyvips-binary) and builds nothing: it uses
     .build/release/warm (swift build -c release first);
  2. makes the corpus (bench/corpus.py, seed 42) in the work directory;
  3. thumbnails the corpus to 300 px with warm, vipsthumbnail (one process;
     xargs -P nproc), Pillow draft()+thumbnail() (one process; a pool of nproc),
     OpenCV's reduced decode + INTER_AREA (a pool), libvips 8.18's thumbnail()
     through pyvips-binary (a pool) and ImageMagick convert (sequential; xargs -P nproc), each repeated,
     tools interleaved within each repeat, after a warm-up;
  4. `warm run` end to end against `warm serve` vs `warm thumbnail` on exactly
     the images that server served (fetched once into files);
  5. `warm report --measure` on a subset: the three decode strategies;
  6. peak RSS of `warm run` over 1,336 and 13,360 products (fresh caches);
  7. `warm run --format jpeg` against `--format jpeg,webp,avif` (fresh caches,
     alternating): what WebP and AVIF beside JPEG cost per image; skipped, with
     a note in the report, when the binary does not accept several formats;
  8. writes reports/benchmarks.md (and the raw numbers as JSON in the work dir).

Timings are wall-clock of whole processes (start-up included) measured with
time.perf_counter(); CPU seconds are the children's user+system time. "Other
CPU" is what the rest of the machine used meanwhile (from /proc/stat), the
sign of a run disturbed by someone else's build.
"""

import argparse
import datetime
import hashlib
import json
import math
import multiprocessing
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import corpus  # noqa: E402  (bench/corpus.py)

SIZE = 300
CONVERT = "/usr/bin/convert"  # /usr/local/bin/convert on these machines may be a stand-in
APT_PACKAGES = ["libvips-tools", "imagemagick", "mate-backgrounds", "libimage-exiftool-perl"]
NPROC = os.cpu_count() or 1
# Repeated --slow-repeats times (default 3) instead of --repeats, to keep the run short.
SLOW_TOOLS = {"vips-xargs-n1", "magick-seq", "magick-xargs"}
# Rows that are not peers: the decode-only floor writes nothing.
FLOOR_TOOLS = {"decode-floor"}
# Environment per tool: vipsthumbnail processes run one libvips thread each,
# as there are already nproc of them.
TOOL_ENV = {"vips-xargs": {"VIPS_CONCURRENCY": "1"}, "vips-xargs-n1": {"VIPS_CONCURRENCY": "1"}}
FAILURE_LOG_DIR = None  # set by main(): where the stderr of failed commands goes
FAILURES = []  # every failed timed command: (what, rc, log path)


def log(message):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {message}", flush=True)


# --- set-up ------------------------------------------------------------------

def ensure_peers():
    """Installs the peers that are missing (apt-get, then pip for Pillow)."""
    missing = []
    for package in APT_PACKAGES:
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
        if "install ok installed" not in status.stdout:
            missing.append(package)
    if missing:
        log(f"installing {' '.join(missing)}")
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.run(sudo + ["apt-get", "install", "-y", "-q", *missing], env=env).returncode != 0:
            subprocess.run(sudo + ["apt-get", "update", "-q"], env=env, check=True)
            subprocess.run(sudo + ["apt-get", "install", "-y", "-q", *missing], env=env, check=True)
    for module, package in (("PIL", "Pillow"), ("numpy", "numpy"), ("scipy", "scipy"), ("cv2", "opencv-python-headless")):
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode != 0:
            log(f"installing {package}")
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", package], check=True)
    if "libvips 8.18" not in first_line([sys.executable, os.path.join(HERE, "pyvips_thumbnail.py"), "--out", ".", "--version"]):
        # pyvips links Debian's libvips (8.14) unless pyvips-binary's own is reinstalled after it.
        log("installing pyvips with pyvips-binary (libvips 8.18)")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyvips", "pyvips-binary"], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", "pyvips-binary"],
                       check=True)
    for tool in ["vips", "vipsthumbnail", "vipsheader", CONVERT]:
        if not shutil.which(tool):
            raise SystemExit(f"bench: {tool} is still missing after the install")


def first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def machine_info(warm):
    cpu = "unknown"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    git = lambda *a: subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True).stdout.strip()
    return {
        "nproc": NPROC,
        "free_g": subprocess.run(["free", "-g"], capture_output=True, text=True).stdout.rstrip(),
        "cpu": cpu,
        "kernel": platform.release(),
        "warm_commit": git("rev-parse", "HEAD"),
        "warm_commit_subject": git("log", "-1", "--format=%s"),
        "warm_tree_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "sources_commit": git("log", "-1", "--format=%h %s", "--", "Sources", "Package.swift"),
        "warm_binary": warm,
        "swift": first_line(["swift", "--version"]),
        "vips": first_line(["vips", "--version"]),
        "imagemagick": first_line([CONVERT, "-version"]),
        "pillow": subprocess.run([sys.executable, "-c", "import PIL; print(PIL.__version__)"],
                                 capture_output=True, text=True).stdout.strip(),
        "opencv": subprocess.run([sys.executable, "-c", "import cv2; print(cv2.__version__)"],
                                 capture_output=True, text=True).stdout.strip(),
        "pyvips": first_line([sys.executable, os.path.join(HERE, "pyvips_thumbnail.py"), "--out", ".", "--version"]),
        "python": platform.python_version(),
    }


def loadavg():
    with open("/proc/loadavg") as handle:
        return [float(x) for x in handle.read().split()[:3]]


def wait_for_quiet(max_load, max_wait_seconds):
    """Waits (up to max_wait_seconds) until the 1-minute load is below max_load.
    Returns the load average seen when the timing starts."""
    waited = 0
    while loadavg()[0] > max_load and waited < max_wait_seconds:
        if waited == 0:
            log(f"load {loadavg()[0]:.2f} > {max_load}: waiting for the machine to quieten (up to {max_wait_seconds} s)")
        time.sleep(10)
        waited += 10
    load = loadavg()
    if load[0] > max_load:
        log(f"load is still {load[0]:.2f}; timing anyway (noted in the report)")
    return load


# --- timing ------------------------------------------------------------------

def busy_cpu_seconds():
    """CPU seconds the whole machine has spent busy since boot (/proc/stat)."""
    with open("/proc/stat") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu_seconds(pid):
    """User+system CPU seconds of a running process (and its waited children)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def timed(command, stdin_bytes=None, env=None, also_ours=()):
    """Runs a command to completion; returns wall, CPU and other-CPU seconds,
    and the peak RSS of its largest process (`ru_maxrss` from wait4: Linux
    reports the largest of the process and every descendant it reaped, so
    worker processes and pool children count). `also_ours` are pids (e.g. the
    catalog server) whose CPU is part of the measurement and not the
    machine's other load."""
    ours0 = [process_cpu_seconds(p) for p in also_ours]
    busy0, cpu0, start = busy_cpu_seconds(), children_cpu_seconds(), time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE if stdin_bytes is not None else subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(process.stderr.read()))
    reader.start()
    if stdin_bytes is not None:
        try:
            process.stdin.write(stdin_bytes)
        except BrokenPipeError:
            pass
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    reader.join()
    cpu = children_cpu_seconds() - cpu0
    busy = busy_cpu_seconds() - busy0
    extra = sum(process_cpu_seconds(p) - c for p, c in zip(also_ours, ours0))
    stderr = b"".join(chunks).decode(errors="replace")
    result = {"wall": wall, "cpu": cpu, "other_cpu": max(0.0, busy - cpu - extra), "extra_cpu": extra,
              "max_rss_bytes": usage.ru_maxrss * 1024, "rc": process.returncode, "stderr": stderr[-2000:]}
    if process.returncode not in (0,) and FAILURE_LOG_DIR:
        # Keep the whole stderr (a crash's backtrace) for the report's readers.
        os.makedirs(FAILURE_LOG_DIR, exist_ok=True)
        path = os.path.join(FAILURE_LOG_DIR, f"{datetime.datetime.now():%H%M%S}-{os.path.basename(command[0])}-rc{process.returncode}.log")
        with open(path, "w") as handle:
            handle.write(" ".join(command[:12]) + ("..." if len(command) > 12 else "") + "\n\n" + stderr)
        result["stderr_log"] = path
    return result


def stats(values):
    values = sorted(values)
    median = statistics.median(values)
    return {"median": median, "min": values[0], "max": values[-1], "n": len(values),
            "spread_pct": 100.0 * (values[-1] - values[0]) / median if median else 0.0}


def paired_ratio(a_runs, b_runs):
    """Median and range of run-by-run ratios a/b (repeat i of a with repeat i of b)."""
    ratios = [a / b for a, b in zip(a_runs, b_runs) if b > 0]
    return stats(ratios) if ratios else None


# --- the thumbnail tools ---------------------------------------------------------

def tool_commands(warm, out, files, magick_batch):
    """name -> (description shown in the report, argv, stdin bytes). Every tool
    writes JPEG quality 82 without metadata, upright, longest side 300 px."""
    vips_out = f"{out}/%s.jpg[Q=82,optimize_coding,strip]"
    nul = b"\0".join(f.encode() for f in files)
    vips_batch = max(1, math.ceil(len(files) / (4 * NPROC)))
    magick_loop = ('for f; do b=${f##*/}; '
                   f'{CONVERT} -define jpeg:size={2 * SIZE}x{2 * SIZE} "$f" -auto-orient -thumbnail {SIZE}x{SIZE} '
                   f'-quality 82 -strip "{out}/${{b%.*}}.jpg" || exit 255; done')
    python = sys.executable
    pillow = os.path.join(HERE, "pillow_thumbnail.py")
    return {
        "warm": (f"`warm thumbnail FILES --size {SIZE} --out DIR` (all cores, {NPROC} files at once)",
                 [warm, "thumbnail", *files, "--size", str(SIZE), "--out", out], None),
        "vips-seq": (f"`vipsthumbnail -s {SIZE} -o 'DIR/%s.jpg[Q=82,optimize_coding,strip]' FILES` (one process)",
                     ["vipsthumbnail", "-s", str(SIZE), "-o", vips_out, *files], None),
        "vips-xargs": (f"`VIPS_CONCURRENCY=1 xargs -0 -P {NPROC} -n {vips_batch} vipsthumbnail ...` ({NPROC} processes "
                       f"at a time, {vips_batch} files each)",
                       ["xargs", "-0", "-P", str(NPROC), "-n", str(vips_batch),
                        "vipsthumbnail", "-s", str(SIZE), "-o", vips_out], nul),
        "vips-xargs-n1": (f"`VIPS_CONCURRENCY=1 xargs -0 -P {NPROC} -n 1 vipsthumbnail ...` (one process per file)",
                          ["xargs", "-0", "-P", str(NPROC), "-n", "1",
                           "vipsthumbnail", "-s", str(SIZE), "-o", vips_out], nul),
        "pillow": ("Pillow `draft()` + `thumbnail()` + `exif_transpose()`, one process (bench/pillow_thumbnail.py)",
                   [python, pillow, "--size", str(SIZE), "--out", out, "--jobs", "1", *files], None),
        "pillow-pool": (f"the same, `multiprocessing.Pool({NPROC})`",
                        [python, pillow, "--size", str(SIZE), "--out", out, "--jobs", str(NPROC), *files], None),
        "opencv-pool": (f"OpenCV `imread(IMREAD_REDUCED_COLOR_2/4/8)` + `resize(INTER_AREA)`, "
                        f"`multiprocessing.Pool({NPROC})` (bench/opencv_thumbnail.py)",
                        [python, os.path.join(HERE, "opencv_thumbnail.py"), "--size", str(SIZE), "--out", out,
                         "--jobs", str(NPROC), *files], None),
        "pyvips-pool": (f"libvips 8.18 `thumbnail()` through pyvips-binary, `multiprocessing.Pool({NPROC})`, "
                        f"one libvips thread each (bench/pyvips_thumbnail.py)",
                        [python, os.path.join(HERE, "pyvips_thumbnail.py"), "--size", str(SIZE), "--out", out,
                         "--jobs", str(NPROC), *files], None),
        "decode-floor": (f"decode only, the floor: Pillow `draft()` + `load()`, `multiprocessing.Pool({NPROC})`, nothing written",
                         [python, pillow, "--size", str(SIZE), "--out", out, "--jobs", str(NPROC), "--decode-only", *files],
                         None),
        "magick-seq": (f"`convert -define jpeg:size={2 * SIZE}x{2 * SIZE} IN -auto-orient -thumbnail {SIZE}x{SIZE} "
                       f"-quality 82 -strip OUT`, one file after another",
                       ["xargs", "-0", "-P", "1", "-n", str(magick_batch), "sh", "-c", magick_loop, "sh"], nul),
        "magick-xargs": (f"the same convert under `xargs -0 -P {NPROC}`",
                         ["xargs", "-0", "-P", str(NPROC), "-n", str(magick_batch), "sh", "-c", magick_loop, "sh"],
                         nul),
    }


def check_outputs(out, files):
    """Counts outputs and checks size and uprightness: every output's longest
    side is min(300, the input's), and orientation-6 inputs come out portrait."""
    problems = []
    written = 0
    for f in files:
        path = os.path.join(out, os.path.splitext(os.path.basename(f["path"]))[0] + ".jpg")
        if not os.path.exists(path):
            problems.append(f"missing {os.path.basename(path)}")
            continue
        written += 1
        header = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True).stdout
        width = int(header or 0)
        height = int(subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True).stdout or 0)
        expected = min(SIZE, max(f["width"], f["height"]))
        if abs(max(width, height) - expected) > 1:
            problems.append(f"{os.path.basename(path)} is {width}x{height}, expected longest side {expected}")
        upright_portrait = (f["height"] > f["width"]) != (f["orientation"] in (5, 6, 7, 8))
        if f["width"] != f["height"] and (height > width) != upright_portrait:
            problems.append(f"{os.path.basename(path)} is {width}x{height}: not upright")
    return written, problems


def bench_thumbnails(args, warm, manifest, work, results):
    files = manifest["files"]
    paths = [f["path"] for f in files]
    out = os.path.join(work, "out")
    tools = tool_commands(warm, out, paths, magick_batch=max(1, math.ceil(len(paths) / (4 * NPROC))))
    names = [n for n in tools if n not in args.skip]
    results["tools"] = {n: tools[n][0] for n in names}

    # Page cache: read every input once; then every tool once on a few files
    # (binaries, libraries, Python modules), and check each tool's output.
    for path in paths:
        with open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass
    sample = [f for f in files if f["kind"] != "server-jpeg"][:: max(1, len(files) // 12)][:8] + \
        [f for f in files if f["kind"] == "server-jpeg"][:2]
    checks = {}
    for name in names:
        if name in FLOOR_TOOLS:
            continue
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        _, argv, stdin = tool_commands(warm, out, [f["path"] for f in sample], magick_batch=2)[name]
        run = timed(argv, stdin, env=tool_env(name))
        written, problems = check_outputs(out, sample)
        checks[name] = {"rc": run["rc"], "written": written, "of": len(sample), "problems": problems[:5],
                        "stderr": run["stderr"][-500:] if run["rc"] else ""}
        log(f"warm-up {name}: rc {run['rc']}, {written}/{len(sample)} written, {len(problems)} problems")
    results["output_checks"] = checks

    results["thumbnail_load_before"] = wait_for_quiet(args.max_load, args.max_wait)
    runs = {n: [] for n in names}
    outs = {n: os.path.join(work, "out", n) for n in names}  # each tool's last output stays for the quality pass
    for repeat in range(args.repeats):
        order = names[repeat % len(names):] + names[:repeat % len(names)]  # rotate: no tool always first
        for name in order:
            if name in SLOW_TOOLS and repeat >= args.slow_repeats:
                continue
            shutil.rmtree(outs[name], ignore_errors=True)
            os.makedirs(outs[name])
            _, argv, stdin = tool_commands(warm, outs[name], paths, magick_batch=max(1, math.ceil(len(paths) / (4 * NPROC))))[name]
            run = timed(argv, stdin, env=tool_env(name))
            run["written"] = sum(1 for _ in os.scandir(outs[name]))
            run["load"] = loadavg()[0]
            expected = 0 if name in FLOOR_TOOLS else len(paths)
            if run["rc"] != 0 or run["written"] != expected:
                FAILURES.append({"what": name, "rc": run["rc"], "log": run.get("stderr_log"), "wall": run["wall"],
                                 "written": run["written"]})
            else:
                runs[name].append(run)
            log(f"repeat {repeat + 1}/{args.repeats} {name}: {run['wall']:.2f} s wall, {run['cpu']:.2f} s CPU, "
                f"peak RSS {run['max_rss_bytes'] / 2**20:.0f} MiB, other {run['other_cpu']:.2f} s, "
                f"{run['written']}/{expected} written, rc {run['rc']}")
    results["thumbnail_runs"] = runs
    results["thumbnail_stats"] = {n: {"wall": stats([r["wall"] for r in rs]), "cpu": stats([r["cpu"] for r in rs]),
                                      "other_cpu": stats([r["other_cpu"] for r in rs]),
                                      "max_rss": stats([r["max_rss_bytes"] for r in rs]),
                                      "written": min(r["written"] for r in rs)}
                                  for n, rs in runs.items() if rs}

    # Quality: every tool's last output against one reference per input.
    import quality  # numpy, scipy and Pillow: after ensure_peers
    references = quality.References(os.path.join(work, f"references-{SIZE}"))
    results["thumbnail_quality"] = {}
    for name in names:
        if name in FLOOR_TOOLS or not runs[name]:
            continue
        scores = quality.score(paths, outs[name], references)
        results["thumbnail_quality"][name] = quality.summarize(scores)
        results.setdefault("thumbnail_quality_per_image", {})[name] = scores
        log(f"quality {name}: {results['thumbnail_quality'][name]}")
    shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)


def tool_env(name):
    extra = TOOL_ENV.get(name)
    return dict(os.environ, **extra) if extra else None


# --- end to end ------------------------------------------------------------------

class CatalogServer:
    """`warm serve` on a free loopback port, stopped with SIGINT. Readiness is
    polled on /healthChecker (the printed URL is block-buffered on a pipe)."""

    def __init__(self, warm, products):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen([warm, "serve", "--port", str(port), "--products", str(products)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.perf_counter()
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthChecker", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if self.process.poll() is not None or time.perf_counter() - started > 600:
                self.stop()
                raise SystemExit(f"bench: warm serve --products {products} did not start")
            time.sleep(0.5)
        self.start_seconds = time.perf_counter() - started

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def thumbnail_urls(api):
    """Every product's thumbnail URL, as `warm run` sees them, deduplicated in order."""
    urls, page = [], 1
    while True:
        with urllib.request.urlopen(f"{api}/api/products?page_no={page}&items_per_page=1000", timeout=60) as response:
            body = json.load(response)
        for product in body["pages"]:
            url = product.get("thumbnail")
            if url and url not in urls:
                urls.append(url)
        if page >= body["lastPage"]:
            return urls
        page += 1


def fetch_served_images(urls, into):
    """Downloads each URL once into `into/NNNNN.img`. Identical bodies are
    hard links of one file (the server's pool is small), which keeps the disk
    and page cache small without changing what `warm thumbnail` decodes."""
    shutil.rmtree(into, ignore_errors=True)
    os.makedirs(os.path.join(into, "blobs"))
    files_dir = os.path.join(into, "files")
    os.makedirs(files_dir)
    paths, total_bytes, distinct = [], 0, set()
    for index, url in enumerate(urls):
        with urllib.request.urlopen(url, timeout=60) as response:
            body = response.read()
        digest = hashlib.sha256(body).hexdigest()
        blob = os.path.join(into, "blobs", digest)
        if digest not in distinct:
            with open(blob, "wb") as handle:
                handle.write(body)
            distinct.add(digest)
        path = os.path.join(files_dir, f"{index:05d}.img")
        os.link(blob, path)
        paths.append(path)
        total_bytes += len(body)
    return paths, total_bytes, len(distinct)


TRASH = []


def retire(path):
    """Moves a finished run's cache or output directory aside instead of deleting
    it; `empty_trash` deletes it after the timed section. Deleting 1,300
    directories and files just before the next run made that run's mkdirs
    scan ext4's inode tables past the recently deleted inodes (the kernel
    avoids reusing an inode for about 60 s): up to 1.2 s of CPU in one run
    (`perf record`: `recently_deleted`, `find_get_block_common`), a cost no
    real run has (bench/findings.md section 9)."""
    if not os.path.lexists(path):
        return
    trash = os.path.join(os.path.dirname(path), "trash")
    os.makedirs(trash, exist_ok=True)
    target = os.path.join(trash, f"{len(TRASH):04d}-{os.path.basename(path)}")
    os.rename(path, target)
    TRASH.append(target)


def empty_trash():
    while TRASH:
        shutil.rmtree(TRASH.pop(), ignore_errors=True)


def warm_run(warm, api, cache_dir, summary_path, server_pid, env=None, extra_args=()):
    """One `warm run` with a fresh cache under /usr/bin/time; returns timing,
    max RSS (time -v) and the JSON summary."""
    retire(cache_dir)
    time_file = summary_path + ".time"
    argv = ["/usr/bin/time", "-f", "%M", "-o", time_file,
            warm, "run", "--api", api, "--cache-dir", cache_dir, "--size", str(SIZE), "--no-progress",
            "--summary", summary_path, *extra_args]
    for stale in (summary_path, time_file):
        if os.path.exists(stale):
            os.remove(stale)
    run = timed(argv, env=env, also_ours=[server_pid])
    run["summary"] = None
    if os.path.exists(summary_path):
        with open(summary_path) as handle:
            run["summary"] = json.load(handle)
    try:
        with open(time_file) as handle:
            run["max_rss_bytes"] = int(handle.read().split()[-1]) * 1024
    except (OSError, ValueError, IndexError):
        run["max_rss_bytes"] = 0
    # Exit 2 (some images failed) still has a summary; anything else is a failed run.
    run["failed"] = run["rc"] not in (0, 2) or run["summary"] is None
    if run["failed"]:
        FAILURES.append({"what": f"warm run --api {api}" + (f" {' '.join(extra_args)}" if extra_args else "")
                         + (f" ({' '.join(k for k in (env or {}) if k.startswith('MALLOC'))})" if env else ""),
                         "rc": run["rc"], "log": run.get("stderr_log"), "wall": run["wall"]})
        log(f"warm run FAILED: exit {run['rc']} after {run['wall']:.1f} s (stderr: {run.get('stderr_log')})")
    retire(cache_dir)
    return run


def bench_end_to_end(args, warm, work, results):
    server = CatalogServer(warm, args.products)
    try:
        log(f"warm serve --products {args.products}: {server.url} after {server.start_seconds:.1f} s")
        urls = thumbnail_urls(server.url)
        served = os.path.join(work, "served")
        paths, total_bytes, distinct = fetch_served_images(urls, served)
        log(f"fetched {len(paths)} thumbnail URLs ({total_bytes / 1e6:.0f} MB, {distinct} distinct bodies)")
        results["e2e_catalog"] = {"products": args.products, "urls": len(paths), "bytes": total_bytes,
                                  "distinct_bodies": distinct, "server_start_seconds": server.start_seconds}
        out = os.path.join(work, "served-out")
        cache = os.path.join(work, "cache")
        summary = os.path.join(work, "summary.json")
        # The fetch above left every served file in the page cache and the
        # server warm; an untimed `warm thumbnail` on a few files loads the binary.
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([warm, "thumbnail", *paths[:8], "--size", str(SIZE), "--out", out],
                       stdout=subprocess.DEVNULL, check=False)
        results["e2e_load_before"] = wait_for_quiet(args.max_load, args.max_wait)
        runs, files_only = [], []
        for repeat in range(args.e2e_repeats):
            order = ["run", "files"] if repeat % 2 == 0 else ["files", "run"]
            for what in order:
                for attempt in range(3):  # a crashed run is recorded, then retried
                    if what == "run":
                        run = warm_run(warm, server.url, cache, summary, server.process.pid)
                        if run["failed"]:
                            continue
                        s = run["summary"]
                        log(f"e2e repeat {repeat + 1}: warm run {run['wall']:.2f} s wall (summary {s['durationSeconds']:.2f} s), "
                            f"{s['imagesDownloaded']} downloaded, {s['imagesFailed']} failed, server CPU {run['extra_cpu']:.2f} s, "
                            f"other {run['other_cpu']:.2f} s, peak RSS {s['peakResidentBytes'] / 1e6:.0f} MB")
                        runs.append(run)
                    else:
                        retire(out)
                        run = timed([warm, "thumbnail", *paths, "--size", str(SIZE), "--out", out])
                        run["written"] = sum(1 for _ in os.scandir(out))
                        if run["rc"] != 0:
                            FAILURES.append({"what": "warm thumbnail (served files)", "rc": run["rc"],
                                             "log": run.get("stderr_log"), "wall": run["wall"]})
                            log(f"warm thumbnail FAILED: exit {run['rc']} after {run['wall']:.1f} s")
                            continue
                        log(f"e2e repeat {repeat + 1}: warm thumbnail on the served files {run['wall']:.2f} s wall, "
                            f"{run['written']} written, other {run['other_cpu']:.2f} s")
                        files_only.append(run)
                    break
        retire(out)
        results["e2e_runs"] = runs
        results["e2e_files_only"] = files_only
        # glibc's allocator settings, by environment (no code change): how much
        # of the peak RSS is heap growth rather than work in flight.
        malloc_runs = {}
        for setting in args.malloc_variants:
            key, value = setting.split("=", 1)
            run = warm_run(warm, server.url, cache, summary, server.process.pid, env=dict(os.environ, **{key: value}))
            if run["failed"]:
                continue
            malloc_runs[setting] = run
            log(f"warm run with {setting}: {run['wall']:.2f} s wall, {run['cpu']:.2f} s CPU, "
                f"peak RSS {run['summary']['peakResidentBytes'] / 1e6:.0f} MB")
        results["e2e_malloc_runs"] = malloc_runs
    finally:
        server.stop()
        empty_trash()


def bench_rss(args, warm, work, results):
    """Peak RSS over the large catalog (the small one comes from the e2e runs)."""
    server = CatalogServer(warm, args.large_products)
    try:
        log(f"warm serve --products {args.large_products}: {server.url} after {server.start_seconds:.1f} s")
        results["rss_large_load_before"] = wait_for_quiet(args.max_load, args.max_wait)
        runs = []
        for repeat in range(args.rss_repeats):
            run = warm_run(warm, server.url, os.path.join(work, "cache-large"),
                           os.path.join(work, "summary-large.json"), server.process.pid)
            if run["failed"]:
                continue
            s = run["summary"]
            log(f"large run {repeat + 1}: {run['wall']:.1f} s, {s['imagesDownloaded']} downloaded, "
                f"peak RSS {s['peakResidentBytes'] / 1e6:.0f} MB (time -v {run['max_rss_bytes'] / 1e6:.0f} MB)")
            runs.append(run)
        results["rss_large_runs"] = runs
        results["rss_large_products"] = args.large_products
    finally:
        server.stop()
        empty_trash()


# --- three formats against JPEG alone -------------------------------------------------

THREE_FORMATS = "jpeg,webp,avif"


def accepts_three_formats(warm):
    """(True, "") when this warm writes several formats in one run (issue 26), else (False, why).
    Probed against a loopback port nothing listens on: a binary that cannot parse the value exits 64
    (usage) before any request; one that can fails later, on the unreachable API."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as cache:
        try:
            out = subprocess.run([warm, "run", "--api", f"http://127.0.0.1:{port}", "--cache-dir", cache,
                                  "--format", THREE_FORMATS, "--no-progress", "--summary", os.path.join(cache, "s.json")],
                                 capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return False, "the probe against an unreachable API did not finish in 300 s"
    if out.returncode == 64:
        lines = [line.strip() for line in out.stderr.splitlines() if line.strip()]
        return False, lines[0] if lines else "exit 64 (usage)"
    return True, ""


def alternating_runs(warm, server, cache, summary, repeats, variants, describe):
    """`warm run` with each of `variants` (name -> extra arguments), fresh caches, the order alternating each repeat;
    returns name -> the runs that did not fail. `describe` adds to each run's log line from its summary."""
    names = list(variants)
    runs = {name: [] for name in names}
    for repeat in range(repeats):
        for name in names if repeat % 2 == 0 else reversed(names):
            run = warm_run(warm, server.url, cache, summary, server.process.pid, extra_args=variants[name])
            if run["failed"]:
                continue
            s = run["summary"]
            log(f"repeat {repeat + 1} {name}: {run['wall']:.2f} s wall, {run['cpu']:.2f} s CPU, {s['imagesDownloaded']} images, "
                f"{describe(s)}, {s['bytesWritten'] / 1e6:.1f} MB written, server CPU {run['extra_cpu']:.2f} s, "
                f"other {run['other_cpu']:.2f} s")
            runs[name].append(run)
    return runs


def bench_formats(args, warm, work, results):
    """`warm run --format jpeg` against `warm run --format jpeg,webp,avif`, fresh caches, alternating,
    against one `warm serve`: what writing WebP and AVIF beside JPEG costs per image."""
    accepted, why = accepts_three_formats(warm)
    if not accepted:
        message = (f"Not measured: `{os.path.relpath(warm, REPO)}` does not accept `--format {THREE_FORMATS}` ({why}).")
        log("three formats against JPEG alone: " + message)
        results["formats_skipped"] = message
        return
    server = CatalogServer(warm, args.products)
    try:
        log(f"warm serve --products {args.products}: {server.url} after {server.start_seconds:.1f} s")
        cache, summary = os.path.join(work, "cache-formats"), os.path.join(work, "summary-formats.json")
        # Untimed: the server makes and keeps every image, the binary and libheif are loaded.
        warm_run(warm, server.url, cache, summary, server.process.pid, extra_args=["--format", THREE_FORMATS])
        results["formats_load_before"] = wait_for_quiet(args.max_load, args.max_wait)
        results["formats_runs"] = alternating_runs(
            warm, server, cache, summary, args.formats_repeats, {f: ["--format", f] for f in ("jpeg", THREE_FORMATS)},
            lambda s: f"{s['variantsWritten']} variants")
        results["formats_products"] = args.products
        results["formats_quality"] = score_formats(warm, server, os.path.join(work, "cache-formats-scored"), args)
    finally:
        server.stop()
        empty_trash()


def score_formats(warm, server, cache, args):
    """SSIM (the report's) and SSIMULACRA2 of one three-format run's cached 300 px variants against the full-decode
    reference (bench/encoder_settings.py), over every image (or --formats-scored of them, evenly spaced), a process
    per core after the timed runs; a note instead without the packages."""
    shutil.rmtree(cache, ignore_errors=True)
    subprocess.run([warm, "run", "--api", server.url, "--cache-dir", cache, "--size", str(SIZE), "--no-progress",
                    "--format", THREE_FORMATS], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import encoder_settings as scoring
    except ImportError as missing:
        return {"skipped": f"not scored: {missing} (pip install pyvips ssimulacra2 numpy)"}
    catalog = thumbnail_urls(server.url)
    urls = catalog
    if args.formats_scored > 0:
        urls = catalog[::max(1, len(catalog) // args.formats_scored)][:args.formats_scored]
    scores = {f: {"ssim": [], "ssimulacra2": [], "bytes": []} for f in ("jpeg", "webp", "avif")}
    with tempfile.TemporaryDirectory() as sources:
        jobs = []
        for index, url in enumerate(urls):
            source = os.path.join(sources, str(index))
            with urllib.request.urlopen(url, timeout=60) as response, open(source, "wb") as handle:
                handle.write(response.read())
            variants = []
            for fmt, ext in (("jpeg", "jpg"), ("webp", "webp"), ("avif", "avif")):
                digest = hashlib.sha256(f"{url}\n{SIZE}.{ext}".encode()).hexdigest()
                variants.append((fmt, os.path.join(cache, "v1", digest[:2], digest[2:4], f"{digest}.{ext}")))
            jobs.append((source, variants))
        # spawn, not fork: the parent has loaded libvips (pyvips), whose threads a fork would not carry.
        with multiprocessing.get_context("spawn").Pool(os.cpu_count()) as pool:
            for image in pool.imap(scoring.score_variants, jobs, chunksize=8):
                for fmt, (ssim, ssimulacra2, size) in image.items():
                    scores[fmt]["ssim"].append(ssim)
                    scores[fmt]["ssimulacra2"].append(ssimulacra2)
                    scores[fmt]["bytes"].append(size)
    shutil.rmtree(cache, ignore_errors=True)
    return {"images": len(scores["jpeg"]["ssim"]), "of": len(catalog),
            "formats": {f: {k: statistics.median(v) for k, v in s.items()} for f, s in scores.items()}}


def write_formats_section(results, add):
    """The report's "Three formats against JPEG alone" section (or why it was not measured)."""
    if results.get("formats_skipped"):
        add("## Three formats against JPEG alone")
        add("")
        add(results["formats_skipped"])
        add("")
        return
    runs = results.get("formats_runs") or {}
    one, three = runs.get("jpeg"), runs.get(THREE_FORMATS)
    if not one or not three:
        return
    add("## Three formats against JPEG alone")
    add("")
    add(f"`warm run --api URL --cache-dir FRESH --size {SIZE} --no-progress --format F` against `warm serve --products "
        f"{results['formats_products']:,}`, F = `jpeg` and F = `{THREE_FORMATS}` (every image decoded once, each format "
        f"encoded from that decode), {min(len(one), len(three))} run(s) each, alternating, after an untimed run that "
        "made the server make every image. Per image: the median divided by the summary's imagesDownloaded. "
        "CPU is warm's and its workers' (the server's is apart).")
    add("")
    add("| `--format` | runs | images | variants | median wall | min - max | median CPU | wall per image | "
        "CPU per image | server CPU | bytes written per image |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for formats, rs in (("jpeg", one), (THREE_FORMATS, three)):
        wall, cpu = stats([r["wall"] for r in rs]), stats([r["cpu"] for r in rs])
        images = statistics.median(r["summary"]["imagesDownloaded"] for r in rs)
        written = statistics.median(r["summary"]["bytesWritten"] for r in rs)
        medians[formats] = {"wall": wall["median"], "cpu": cpu["median"], "images": images}
        add(f"| `{formats}` | {len(rs)} | {images:,.0f} | {statistics.median(r['summary']['variantsWritten'] for r in rs):,.0f} | "
            f"{fmt_s(wall['median'])} | {wall['min']:.2f} - {wall['max']:.2f} | {fmt_s(cpu['median'])} | "
            f"{wall['median'] / images * 1000:.1f} ms | {cpu['median'] / images * 1000:.1f} ms | "
            f"{statistics.median(r['extra_cpu'] for r in rs):.1f} s | {written / images / 1000:.1f} KB |")
    add("")
    variants = {f: statistics.median(r["summary"]["variantsWritten"] for r in rs) for f, rs in (("jpeg", one), (THREE_FORMATS, three))}
    if variants[THREE_FORMATS] != 3 * variants["jpeg"]:
        add(f"Warning: the three-format runs wrote {variants[THREE_FORMATS]:,.0f} variants against JPEG's {variants['jpeg']:,.0f}, "
            "not three times as many: the ratios below do not measure three formats.")
        add("")
    a, b = medians[THREE_FORMATS], medians["jpeg"]
    wall_pairs = paired_ratio([r["wall"] for r in three], [r["wall"] for r in one])
    results["formats_wall_ratio"] = a["wall"] / b["wall"]
    results["formats_cpu_ratio"] = a["cpu"] / b["cpu"]
    add(f"Three formats / JPEG alone: **{results['formats_wall_ratio']:.2f}x** wall (per repeat {wall_pairs['median']:.2f}, "
        f"{wall_pairs['min']:.2f} - {wall_pairs['max']:.2f}), **{results['formats_cpu_ratio']:.2f}x** CPU; WebP and AVIF "
        f"add {(a['wall'] / a['images'] - b['wall'] / b['images']) * 1000:.1f} ms of wall and "
        f"{(a['cpu'] / a['images'] - b['cpu'] / b['images']) * 1000:.1f} ms of CPU per image.")
    add("")
    quality = results.get("formats_quality") or {}
    if quality.get("skipped"):
        add(f"Quality {quality['skipped']}.")
        add("")
    elif quality.get("formats"):
        add(f"Quality of one more `--format {THREE_FORMATS}` run's {SIZE} px files, {quality['images']:,} of the "
            f"catalog's {quality.get('of', quality['images']):,} images, against the full decode resized with Lanczos3 (bench/encoder_settings.py): SSIM as the report "
            "computes it, SSIMULACRA2 (PyPI `ssimulacra2`; higher is better). Medians over the images.")
        add("")
        add("| format | median bytes | vs JPEG | median SSIM | median SSIMULACRA2 |")
        add("|---|---:|---:|---:|---:|")
        f = quality["formats"]
        for fmt in ("jpeg", "webp", "avif"):
            add(f"| {fmt} | {f[fmt]['bytes']:,.0f} | {f[fmt]['bytes'] / f['jpeg']['bytes']:.2f} | {f[fmt]['ssim']:.4f} | "
                f"{f[fmt]['ssimulacra2']:.1f} |")
        add("")


# --- the detail carousel -----------------------------------------------------------

def bench_details(args, warm, work, results):
    """`warm run` against `warm run --detail-images --detail-limit L`, fresh caches, alternating, against one
    `warm serve`: what reading the first L products' details and warming their carousels at 1080 px adds, per
    carousel image and per product."""
    server = CatalogServer(warm, args.products)
    try:
        log(f"warm serve --products {args.products}: {server.url} after {server.start_seconds:.1f} s")
        cache, summary = os.path.join(work, "cache-details"), os.path.join(work, "summary-details.json")
        details = ["--detail-images", "--detail-limit", str(args.detail_products)]
        # Untimed: the server makes and keeps every image (the carousels' too), the binary is loaded.
        warm_run(warm, server.url, cache, summary, server.process.pid, extra_args=details)
        results["details_load_before"] = wait_for_quiet(args.max_load, args.max_wait)
        results["details_runs"] = alternating_runs(
            warm, server, cache, summary, args.details_repeats, {"thumbnails": [], "details": details},
            lambda s: f"{s.get('detailsRead', 0)} details, {s.get('carouselImages', 0)} carousel entries")
        results["details_products"] = args.products
        results["details_limit"] = args.detail_products
    finally:
        server.stop()
        empty_trash()


def write_details_section(results, add):
    """The report's "The detail carousel" section."""
    runs = results.get("details_runs") or {}
    base, details = runs.get("thumbnails"), runs.get("details")
    if not base or not details:
        return
    add("## The detail carousel")
    add("")
    add(f"`warm run --api URL --cache-dir FRESH --size {SIZE} --no-progress` against the same with `--detail-images "
        f"--detail-limit {results['details_limit']}` (each of the newest {results['details_limit']} products' detail read, "
        f"every carousel image cached at 1080 px), JPEG, against `warm serve --products {results['details_products']:,}`, "
        f"{min(len(base), len(details))} run(s) each, alternating, after an untimed detail run that made the server make "
        "every image. The added cost is the difference of the medians, divided by the added images (the summary's "
        "imagesDownloaded) and by the details read. CPU is warm's and its workers' (the server's is apart).")
    add("")
    add("| run | runs | images | details read | median wall | min - max | median CPU | bytes written | server CPU |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for name, rs in (("thumbnails only", base), ("`--detail-images`", details)):
        wall, cpu = stats([r["wall"] for r in rs]), stats([r["cpu"] for r in rs])
        images = statistics.median(r["summary"]["imagesDownloaded"] for r in rs)
        read = statistics.median(r["summary"].get("detailsRead", 0) for r in rs)
        written = statistics.median(r["summary"]["bytesWritten"] for r in rs)
        medians[name] = {"wall": wall["median"], "cpu": cpu["median"], "images": images, "details": read, "bytes": written}
        add(f"| {name} | {len(rs)} | {images:,.0f} | {read:,.0f} | {fmt_s(wall['median'])} | {wall['min']:.2f} - {wall['max']:.2f} | "
            f"{fmt_s(cpu['median'])} | {written / 1e6:.1f} MB | {statistics.median(r['extra_cpu'] for r in rs):.1f} s |")
    add("")
    a, b = medians["`--detail-images`"], medians["thumbnails only"]
    added_images, products = a["images"] - b["images"], a["details"]
    if added_images <= 0 or products <= 0:
        add("Warning: the detail runs downloaded no more images than the thumbnail runs: no cost per carousel image.")
        add("")
        return
    per = {"image_wall_ms": (a["wall"] - b["wall"]) / added_images * 1000, "image_cpu_ms": (a["cpu"] - b["cpu"]) / added_images * 1000,
           "product_wall_ms": (a["wall"] - b["wall"]) / products * 1000, "product_cpu_ms": (a["cpu"] - b["cpu"]) / products * 1000,
           "image_bytes": (a["bytes"] - b["bytes"]) / added_images}
    results["details_cost"] = per
    add(f"A detail-enabled night adds, per carousel image downloaded, **{per['image_cpu_ms']:.1f} ms of CPU** and "
        f"{per['image_wall_ms']:.1f} ms of wall, and {per['image_bytes'] / 1000:.1f} KB on disk; per product whose detail "
        f"was read, **{per['product_cpu_ms']:.1f} ms of CPU** and {per['product_wall_ms']:.1f} ms of wall "
        f"({added_images / products:.2f} new images a product: the demo's carousels hold 1 to 8 photos, a third open with the "
        "list thumbnail, which is then one download at both sizes).")
    add("")


# --- the three strategies ----------------------------------------------------------

def bench_strategies(args, warm, manifest, work, results):
    per_kind = {}
    for f in manifest["files"]:
        per_kind.setdefault(f["kind"], [])
        if len(per_kind[f["kind"]]) < args.strategy_per_kind:
            per_kind[f["kind"]].append(f)
    subset = [f for fs in per_kind.values() for f in fs]
    out = os.path.join(work, "report")
    shutil.rmtree(out, ignore_errors=True)
    run = timed([warm, "report", "--measure", *[f["path"] for f in subset], "--out", out,
                 "--size", str(SIZE), "--noise-repeats", "3"])
    log(f"warm report --measure on {len(subset)} images: {run['wall']:.1f} s, rc {run['rc']}")
    records = []
    with open(os.path.join(out, "metrics.jsonl")) as handle:
        for line in handle:
            if line.strip():
                records.append(json.loads(line))
    kinds = {f["path"]: f["kind"] for f in subset}
    for record in records:
        record["kind"] = next((k for p, k in kinds.items() if record["url"].endswith(p) or p.endswith(record["url"])
                               or os.path.basename(p) == os.path.basename(record["url"])), "?")
    results["strategy_subset"] = len(subset)
    results["strategy_records"] = records
    results["strategy_rc"] = run["rc"]


# --- the report ---------------------------------------------------------------------

def fmt_s(value):
    return f"{value:.2f} s" if value < 100 else f"{value:.0f} s"


def fmt_mb(value):
    return f"{value / 1e6:.1f} MB"


def verdict(ok):
    return "**holds**" if ok else "**missed**"


def write_report(args, results, path):
    m = results["machine"]
    st = results.get("thumbnail_stats", {})
    lines = []
    add = lines.append
    add("# warm benchmarks")
    add("")
    add(f"Generated by `{results['command'].strip()}` on {results['started']} ({results['elapsed_minutes']:.1f} min). "
        "Every number above 'Profile findings' comes from that one run; the script regenerates this file "
        "(`--report-only` rewrites it from the run's results.json).")
    add("")
    add("## Machine and versions")
    add("")
    add(f"- CPU: {m['cpu']}, `nproc` = {m['nproc']}, kernel {m['kernel']}")
    add("- `free -g`:")
    add("")
    add("  ```")
    for line in m["free_g"].splitlines():
        add("  " + line)
    add("  ```")
    sources = m.get("sources_commit") or subprocess.run(
        ["git", "-C", REPO, "log", "-1", "--format=%h %s", m["warm_commit"], "--", "Sources", "Package.swift"],
        capture_output=True, text=True).stdout.strip()
    add(f"- warm: commit `{m['warm_commit'][:12]}` ({m['warm_commit_subject']})"
        + (" with uncommitted changes" if m["warm_tree_dirty"] else "") + f", `{m['warm_binary']}` (release build); "
        f"Swift sources last changed in `{sources}`")
    add(f"- {m['swift']}")
    add(f"- libvips: `{m['vips']}`; ImageMagick: `{m['imagemagick']}`; Pillow {m['pillow']}; "
        f"OpenCV {m.get('opencv', 'not measured')}; pyvips-binary: {m.get('pyvips', 'not measured')}; Python {m['python']}")
    loads = [("thumbnails", results.get("thumbnail_load_before")), ("end to end", results.get("e2e_load_before")),
             ("large catalog", results.get("rss_large_load_before")), ("three formats", results.get("formats_load_before"))]
    add("- load average (1/5/15 min) when each timed section started: "
        + "; ".join(f"{n} {l[0]:.2f} / {l[1]:.2f} / {l[2]:.2f}" for n, l in loads if l))
    add("")

    man = results.get("corpus")
    if man:  # absent when only sections that need no corpus ran
        add("## Corpus")
        add("")
        add(f"{man['count']} images made by `bench/corpus.py` with seed {man['seed']} from the photographs in "
            "`/usr/share/backgrounds/mate` (random crops, resized with `vips thumbnail`; phone photos get "
            "seeded Gaussian noise, sigma 5, so their size and entropy are a phone's; orientation 6 set with exiftool). "
            "Not committed: the script makes it in the work directory.")
        add("")
        add("| kind | count | size | total bytes |")
        add("|---|---:|---|---:|")
        for row in man["summary"]:
            add(f"| {row['kind']} | {row['count']} | {row['dims']} | {row['bytes']:,} |")
        add(f"| **all** | {sum(r['count'] for r in man['summary'])} | | {sum(r['bytes'] for r in man['summary']):,} |")
        add("")

    if st:
        add(f"## Thumbnailing the corpus to {SIZE} px")
        add("")
        add(f"Wall time of the whole command (process start-up included), output JPEG quality 82, metadata stripped, "
            f"upright. {args.repeats} repeats ({args.slow_repeats} for {', '.join(sorted(SLOW_TOOLS))}), tools interleaved and rotated "
            "within each repeat, after a page-cache warm-up and one untimed pass of each tool on a sample. "
            "Spread = (max - min) / median. CPU = user + system of the command and its children. "
            "Other CPU = what the rest of the machine used during the run.")
        add("")
        quality_of = results.get("thumbnail_quality", {})
        peers = [n for n in st if n != "warm" and n not in FLOOR_TOOLS]
        fastest = min(peers, key=lambda n: st[n]["wall"]["median"]) if peers else None
        results["fastest_peer"] = fastest
        add(f"Peak RSS = `ru_maxrss` of the largest process of the command (the command itself, its worker "
            f"processes, xargs' children or a Pool's workers), median over repeats. SSIM: `bench/quality.py`, each "
            f"output against Pillow's full decode (sRGB, upright, flattened on white) resampled with Lanczos to the "
            f"output's size, on luma; mean and 5th percentile over the corpus. Ratio: median wall over the fastest "
            f"peer's ({fastest}).")
        add("")
        add("| tool | command | median wall | min - max | spread | median CPU | CPU/image | other CPU | peak RSS | "
            "SSIM mean | SSIM p5 | images/s | vs fastest peer |")
        add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, s in st.items():
            w = s["wall"]
            versus = f"{w['median'] / st[fastest]['wall']['median']:.2f}x" if fastest else ""
            q = quality_of.get(name)
            rss = s.get("max_rss", {}).get("median")
            rss_text = f"{rss / 2**20:.0f} MiB" if rss else ""
            mean_text, p5_text = (f"{q['mean']:.4f}", f"{q['p5']:.4f}") if q else ("", "")
            add(f"| {name} | {results['tools'][name]} | {fmt_s(w['median'])} | {w['min']:.2f} - {w['max']:.2f} | "
                f"{w['spread_pct']:.0f}% | {fmt_s(s['cpu']['median'])} | {s['cpu']['median'] / man['count'] * 1000:.1f} ms | "
                f"{s['other_cpu']['median']:.2f} s | {rss_text} | {mean_text} | {p5_text} | "
                f"{man['count'] / w['median']:.0f} | {versus} |")
        add("")
        per_image = results.get("thumbnail_quality_per_image", {})
        if per_image:
            kinds = [k for k, _ in corpus.KIND_SHARES]
            add("Mean SSIM by kind (the same reference for every tool):")
            add("")
            add("| tool | " + " | ".join(kinds) + " |")
            add("|---|" + "---:|" * len(kinds))
            for name, scores in per_image.items():
                cells = []
                for kind in kinds:
                    values = [v for base, v in scores.items() if base.rsplit("-", 1)[0] == kind]
                    cells.append(f"{statistics.mean(values):.4f}" if values else "")
                add(f"| {name} | " + " | ".join(cells) + " |")
            add("")
        add("Output check on the warm-up sample (count, longest side, uprightness of orientation-6 photos):")
        add("")
        for name, c in results["output_checks"].items():
            state = "ok" if not c["problems"] and c["written"] == c["of"] else "; ".join(c["problems"]) or f"rc {c['rc']}"
            add(f"- {name}: {c['written']}/{c['of']} written, {state}")
        add("")
        runs = results["thumbnail_runs"]
        ratio_rows = [("warm", "vips-xargs"), ("warm", "vips-xargs-n1"), ("warm", "vips-seq"),
                      ("pillow", "warm"), ("pillow-pool", "warm"), ("opencv-pool", "warm"), ("pyvips-pool", "warm"),
                      ("magick-seq", "warm"), ("magick-xargs", "warm")]
        add("| ratio (wall) | of medians | per repeat: median (min - max) |")
        add("|---|---:|---:|")
        for a, b in ratio_rows:
            if a in st and b in st:
                pr = paired_ratio([r["wall"] for r in runs[a]], [r["wall"] for r in runs[b]])
                add(f"| {a} / {b} | {st[a]['wall']['median'] / st[b]['wall']['median']:.2f} | "
                    f"{pr['median']:.2f} ({pr['min']:.2f} - {pr['max']:.2f}) |")
        add("")

    if results.get("e2e_runs") and results.get("e2e_files_only"):
        e = results["e2e_catalog"]
        runs, files = results["e2e_runs"], results["e2e_files_only"]
        rw = stats([r["wall"] for r in runs])
        rd = stats([r["summary"]["durationSeconds"] for r in runs])
        fw = stats([r["wall"] for r in files])
        s0 = runs[0]["summary"]
        add("## End to end over loopback vs files only")
        add("")
        add(f"`warm serve --products {e['products']}` on loopback serves {e['urls']} distinct thumbnail URLs "
            f"({e['bytes'] / 1e6:.0f} MB; its image pool has {e['distinct_bodies']} distinct bodies). The bench fetched "
            f"every URL once into files, then timed `warm run --api URL --cache-dir FRESH --size {SIZE} --no-progress` "
            f"(crawl, download, decode, fsync'd cache writes, SQLite manifest) against `warm thumbnail` on exactly those files, "
            f"{len(runs)} repeats each, alternating. Both run on the same {m['nproc']} cores; the server's CPU is part of "
            "the end-to-end cost here.")
        add("")
        add("| measurement | median | min - max | spread |")
        add("|---|---:|---:|---:|")
        add(f"| `warm run` wall (process) | {fmt_s(rw['median'])} | {rw['min']:.2f} - {rw['max']:.2f} | {rw['spread_pct']:.0f}% |")
        add(f"| `warm run` durationSeconds (summary) | {fmt_s(rd['median'])} | {rd['min']:.2f} - {rd['max']:.2f} | {rd['spread_pct']:.0f}% |")
        add(f"| `warm thumbnail` on the served files | {fmt_s(fw['median'])} | {fw['min']:.2f} - {fw['max']:.2f} | {fw['spread_pct']:.0f}% |")
        cpu_run = statistics.median(r["cpu"] for r in runs)
        cpu_server = statistics.median(r["extra_cpu"] for r in runs)
        cpu_files = statistics.median(r["cpu"] for r in files)
        add(f"| CPU: `warm run` / server / files only | {cpu_run:.1f} s / {cpu_server:.1f} s / {cpu_files:.1f} s | | |")
        add(f"| summary: images downloaded / failed, decode s, crawl s | {s0['imagesDownloaded']} / {s0['imagesFailed']}, "
            f"{s0['decodeSeconds']:.1f} s, {s0['crawlSeconds']:.2f} s | | |")
        add("")
        pr = paired_ratio([r["wall"] for r in runs], [r["wall"] for r in files])
        results["e2e_ratio"] = rw["median"] / fw["median"]
        add(f"Ratio end-to-end / files-only: **{results['e2e_ratio']:.2f}** of medians "
            f"(per repeat {pr['median']:.2f}, {pr['min']:.2f} - {pr['max']:.2f}).")
        add("")

    if results.get("rss_large_runs") and results.get("e2e_runs"):
        small = [r["summary"]["peakResidentBytes"] for r in results["e2e_runs"]]
        small_tv = [r["max_rss_bytes"] for r in results["e2e_runs"]]
        large = [r["summary"]["peakResidentBytes"] for r in results["rss_large_runs"]]
        large_tv = [r["max_rss_bytes"] for r in results["rss_large_runs"]]
        ls = results["rss_large_runs"][0]["summary"]
        add("## Peak RSS: catalog size")
        add("")
        add(f"`warm run` with a fresh cache (defaults: 16 downloads in flight, {m['nproc']} decodes at once).")
        add("")
        add("| products | runs | images downloaded | wall | peakResidentBytes (summary) | max RSS (`/usr/bin/time`) |")
        add("|---:|---:|---:|---:|---:|---:|")
        add(f"| {results['e2e_catalog']['products']:,} | {len(small)} | {s0['imagesDownloaded']:,} | "
            f"{fmt_s(statistics.median(r['wall'] for r in results['e2e_runs']))} | "
            f"{fmt_mb(statistics.median(small))} ({fmt_mb(min(small))} - {fmt_mb(max(small))}) | {fmt_mb(statistics.median(small_tv))} |")
        add(f"| {results['rss_large_products']:,} | {len(large)} | {ls['imagesDownloaded']:,} | "
            f"{fmt_s(statistics.median(r['wall'] for r in results['rss_large_runs']))} | "
            f"{fmt_mb(statistics.median(large))} ({fmt_mb(min(large))} - {fmt_mb(max(large))}) | {fmt_mb(statistics.median(large_tv))} |")
        results["rss_ratio"] = statistics.median(large) / statistics.median(small)
        results["rss_ratio_tv"] = statistics.median(large_tv) / statistics.median(small_tv)
        add("")
        add(f"Ratio large / small: **{results['rss_ratio']:.2f}** (summary), {results['rss_ratio_tv']:.2f} (`/usr/bin/time`).")
        add("")

    if results.get("e2e_malloc_runs") and results.get("e2e_runs"):
        base = results["e2e_runs"]
        add(f"### Peak RSS and glibc's allocator ({results['e2e_catalog']['products']:,} products)")
        add("")
        add("The same `warm run`, with glibc malloc tuned from the environment only (no code change).")
        add("")
        add("| malloc setting | runs | wall | CPU | peakResidentBytes |")
        add("|---|---:|---:|---:|---:|")
        add(f"| default | {len(base)} | {fmt_s(statistics.median(r['wall'] for r in base))} | "
            f"{fmt_s(statistics.median(r['cpu'] for r in base))} | "
            f"{fmt_mb(statistics.median(r['summary']['peakResidentBytes'] for r in base))} |")
        for setting, r in results["e2e_malloc_runs"].items():
            add(f"| `{setting}` | 1 | {fmt_s(r['wall'])} | {fmt_s(r['cpu'])} | {fmt_mb(r['summary']['peakResidentBytes'])} |")
        add("")

    write_formats_section(results, add)
    write_details_section(results, add)

    if "strategy_records" in results:
        records = [r for r in results["strategy_records"] if not r.get("error")]
        add("## The three decode strategies (`warm report --measure`)")
        add("")
        add(f"`warm report --measure FILES --out DIR --size {SIZE}` on {results['strategy_subset']} corpus images "
            f"({args.strategy_per_kind} of each kind; {len(records)} measured without error); medians per image.")
        add("")
        add("| strategy | retained | peak | CPU | wall |")
        add("|---|---:|---:|---:|---:|")
        med = {}
        for k in ("naive", "renderer", "thumbnail"):
            vals = [r["strategies"][k] for r in records if r["strategies"].get(k)]
            med[k] = {f: statistics.median(v[f] for v in vals) for f in ("retainedBytes", "peakBytes", "cpuSeconds", "wallSeconds")}
            add(f"| {k} | {fmt_mb(med[k]['retainedBytes'])} | {fmt_mb(med[k]['peakBytes'])} | "
                f"{med[k]['cpuSeconds'] * 1000:.1f} ms | {med[k]['wallSeconds'] * 1000:.1f} ms |")
        add("")
        t = med["thumbnail"]
        add("| ratio of medians | retained | peak | CPU | wall |")
        add("|---|---:|---:|---:|---:|")
        for k in ("naive", "renderer"):
            add(f"| {k} / thumbnail | {med[k]['retainedBytes'] / t['retainedBytes']:.1f} | {med[k]['peakBytes'] / t['peakBytes']:.1f} | "
                f"{med[k]['cpuSeconds'] / t['cpuSeconds']:.1f} | {med[k]['wallSeconds'] / t['wallSeconds']:.1f} |")
        add("")
        add("Per kind (median peak bytes and wall time, naive / renderer / thumbnail):")
        add("")
        add("| kind | n | peak | wall |")
        add("|---|---:|---:|---:|")
        for kind, _ in corpus.KIND_SHARES:
            rs = [r for r in records if r["kind"] == kind]
            if not rs:
                continue
            peak = " / ".join(fmt_mb(statistics.median(r["strategies"][k]["peakBytes"] for r in rs)) for k in ("naive", "renderer", "thumbnail"))
            wall = " / ".join(f"{statistics.median(r['strategies'][k]['wallSeconds'] for r in rs) * 1000:.0f} ms" for k in ("naive", "renderer", "thumbnail"))
            add(f"| {kind} | {len(rs)} | {peak} | {wall} |")
        add("")

    failures = results.get("failures") or []
    add("## Failed runs")
    add("")
    if failures:
        add(f"{len(failures)} timed command(s) failed; each is left out of the statistics above (end-to-end runs are retried). "
            "Exit status 128+N is death by signal N (139: SIGSEGV). The stderr logs are in the work directory.")
        add("")
        add("| command | exit status | after | stderr log |")
        add("|---|---:|---:|---|")
        for f in failures:
            add(f"| {f['what']} | {f['rc']} | {f['wall']:.1f} s | `{f.get('log') or ''}` |")
    else:
        add("None: every timed command exited 0 and wrote every output.")
    add("")

    add("## Targets")
    add("")
    add("| target | measured | verdict |")
    add("|---|---|---|")
    targets = {}
    if "warm" in st:
        fastest = results.get("fastest_peer")
        if fastest:
            r = st["warm"]["wall"]["median"] / st[fastest]["wall"]["median"]
            targets["warm <= 0.95x fastest peer"] = r <= 0.95
            add(f"| `warm thumbnail` wall <= 0.95x the fastest of all peers ({fastest}; issue 24) | {r:.2f}x | {verdict(r <= 0.95)} |")
            rss, peer_rss = st["warm"].get("max_rss", {}).get("median"), st[fastest].get("max_rss", {}).get("median")
            q, peer_q = results.get("thumbnail_quality", {}).get("warm"), results.get("thumbnail_quality", {}).get(fastest)
            if q and peer_q:
                ok = q["mean"] >= peer_q["mean"] and q["p5"] >= peer_q["p5"]
                targets["warm SSIM >= fastest peer"] = ok
                add(f"| `warm thumbnail` SSIM mean and p5 at least the fastest peer's ({fastest}: {peer_q['mean']:.4f} / "
                    f"{peer_q['p5']:.4f}) | {q['mean']:.4f} / {q['p5']:.4f} | {verdict(ok)} |")
        for peer in ("vips-xargs", "pillow-pool", "opencv-pool", "pyvips-pool"):
            if peer in st:
                ok = st["warm"]["cpu"]["median"] < st[peer]["cpu"]["median"]
                targets[f"warm CPU < {peer}"] = ok
                add(f"| `warm thumbnail` CPU per image below {peer}'s | {st['warm']['cpu']['median'] / man['count'] * 1000:.1f} ms "
                    f"vs {st[peer]['cpu']['median'] / man['count'] * 1000:.1f} ms | {verdict(ok)} |")
        rss = st["warm"].get("max_rss", {}).get("median")
        if rss:
            targets["warm thumbnail peak RSS <= 120 MiB"] = rss <= 120 * 2**20
            add(f"| `warm thumbnail` peak RSS (largest process) <= 120 MiB | {rss / 2**20:.0f} MiB | {verdict(rss <= 120 * 2**20)} |")
        q = results.get("thumbnail_quality", {}).get("warm")
        if q:
            ok = q["mean"] >= 0.984 and q["p5"] >= 0.965
            targets["warm SSIM"] = ok
            add(f"| `warm thumbnail` SSIM mean >= 0.984 and p5 >= 0.965 (issue 12's figures, from an SSIM implementation "
                f"that reads higher than bench/quality.py's: see the note below the table) | {q['mean']:.4f} / {q['p5']:.4f} | {verdict(ok)} |")
        pillow_q = results.get("thumbnail_quality", {}).get("pillow-pool")
        if q and pillow_q:
            # Issue 12's thresholds sit 0.0003 above Pillow's mean and 0.003 under
            # its p5 in the issue's own SSIM: the same bar, read against Pillow's
            # scores in this run (bench/findings.md, section 7).
            mean_bar, p5_bar = pillow_q["mean"] + 0.0003, pillow_q["p5"] - 0.003
            ok = q["mean"] >= mean_bar and q["p5"] >= p5_bar
            targets["warm SSIM against Pillow"] = ok
            add(f"| `warm thumbnail` SSIM mean >= Pillow's + 0.0003 ({mean_bar:.4f}) and p5 >= Pillow's - 0.003 ({p5_bar:.4f}): "
                f"issue 12's bar, relative to Pillow as in the issue's table | {q['mean']:.4f} / {q['p5']:.4f} | {verdict(ok)} |")
        for peer in ("magick-seq", "magick-xargs"):
            if peer in st:
                r = st[peer]["wall"]["median"] / st["warm"]["wall"]["median"]
                targets[f"{peer} >= 5x warm"] = r >= 5.0
                add(f"| `warm thumbnail` >= 5x faster than ImageMagick ({peer}) | {r:.2f}x | {verdict(r >= 5.0)} |")
    if "e2e_ratio" in results:
        r = results["e2e_ratio"]
        targets["e2e <= 1.1x"] = r <= 1.1
        add(f"| `warm run` end to end <= 1.1x files-only | {r:.2f}x | {verdict(r <= 1.1)} |")
    if "rss_ratio" in results:
        r = results["rss_ratio"]
        targets["rss within 10%"] = abs(r - 1) <= 0.10
        add(f"| peak RSS {results['rss_large_products']:,} products within 10% of {results['e2e_catalog']['products']:,} "
            f"| {r:.2f}x ({(r - 1) * 100:+.0f}%) | {verdict(abs(r - 1) <= 0.10)} |")
    if "formats_cpu_ratio" in results:
        for what, key in (("CPU", "formats_cpu_ratio"), ("wall", "formats_wall_ratio")):
            r = results[key]
            targets[f"three formats {what} <= 2.0x"] = r <= 2.0
            add(f"| `--format {THREE_FORMATS}` {what} <= 2.0x `--format jpeg`'s (issue 37) | {r:.2f}x | {verdict(r <= 2.0)} |")
        f = (results.get("formats_quality") or {}).get("formats")
        if f:
            j = f["jpeg"]
            for fmt in ("webp", "avif"):
                v = f[fmt]
                ok = v["ssim"] >= j["ssim"] and v["ssimulacra2"] >= j["ssimulacra2"] and v["bytes"] < j["bytes"]
                targets[f"{fmt} at JPEG's quality in fewer bytes"] = ok
                add(f"| {fmt}: median SSIM and SSIMULACRA2 at least JPEG's ({j['ssim']:.4f}, {j['ssimulacra2']:.1f}), "
                    f"median bytes below ({j['bytes']:,.0f}; issue 37) | {v['ssim']:.4f}, {v['ssimulacra2']:.1f}, "
                    f"{v['bytes']:,.0f} | {verdict(ok)} |")
    results["targets"] = targets
    add("")
    findings = os.path.join(HERE, "findings.md")
    if os.path.exists(findings):
        with open(findings) as handle:
            text = handle.read().strip()
        if text:
            add("## Profile findings")
            add("")
            add("From separate runs, each named with its command (kept in `bench/findings.md`; this script copies it here).")
            add("")
            add(text)
            add("")
    if results.get("notes"):
        add("## Notes")
        add("")
        for note in results["notes"]:
            add(f"- {note}")
        add("")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


# --- main ---------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="72 images, 3 repeats, 400/4000 products: a few minutes, for checking the script")
    parser.add_argument("--work-dir", default=os.path.join(tempfile.gettempdir(), "warm-bench"),
                        help="corpus, outputs, caches (not committed; default %(default)s)")
    parser.add_argument("--warm", default=os.path.join(REPO, ".build", "release", "warm"), help="the warm binary")
    parser.add_argument("--out", default=os.path.join(REPO, "reports", "benchmarks.md"))
    parser.add_argument("--count", type=int, help="corpus images (default 240; --quick 72)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeats", type=int, help="repeats per thumbnail tool (default 5; --quick 3)")
    parser.add_argument("--slow-repeats", type=int, help="repeats for the slowest tools (default 3)")
    parser.add_argument("--e2e-repeats", type=int, help="warm run / files-only pairs (default 5; --quick 2)")
    parser.add_argument("--products", type=int, help="catalog of the end-to-end runs (default 1336; --quick 400)")
    parser.add_argument("--large-products", type=int, help="catalog for the RSS comparison (default 13360; --quick 4000)")
    parser.add_argument("--rss-repeats", type=int, default=1, help="runs over the large catalog")
    parser.add_argument("--malloc-variants", nargs="*", default=["MALLOC_ARENA_MAX=2", "MALLOC_MMAP_THRESHOLD_=131072"],
                        help="extra warm runs over the end-to-end catalog with these glibc malloc settings")
    parser.add_argument("--strategy-per-kind", type=int, default=3, help="images per kind for warm report --measure")
    parser.add_argument("--max-load", type=float, default=1.0, help="wait before timing while the 1-min load is above this")
    parser.add_argument("--max-wait", type=int, default=120, help="seconds to wait for the load to fall")
    parser.add_argument("--skip", nargs="*", default=[], help="thumbnail tools to leave out (e.g. magick-seq)")
    parser.add_argument("--formats-scored", type=int, default=0,
                        help="images of the formats section whose variants are scored (SSIM, SSIMULACRA2), evenly "
                             "spaced; default 0: every image (the catalog median, about 0.35 s of CPU per image)")
    parser.add_argument("--formats-repeats", type=int,
                        help="warm run --format jpeg / jpeg,webp,avif pairs (default 5; --quick 2)")
    parser.add_argument("--detail-products", type=int, help="products whose details the detail runs read (default 300; --quick 100)")
    parser.add_argument("--details-repeats", type=int, help="thumbnail / detail run pairs (default 3; --quick 2)")
    parser.add_argument("--sections", nargs="*", default=["thumbnails", "e2e", "rss", "formats", "details", "strategies"],
                        help="what to run (default: all)")
    parser.add_argument("--no-install", action="store_true", help="do not apt-get/pip install missing peers")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: rewrite the report from <work dir>/results.json (e.g. after editing bench/findings.md)")
    args = parser.parse_args()
    q = args.quick
    args.count = args.count or (72 if q else 240)
    args.repeats = args.repeats or (3 if q else 5)
    args.slow_repeats = min(args.repeats, args.slow_repeats or 3)
    args.e2e_repeats = args.e2e_repeats or (2 if q else 5)
    args.formats_repeats = args.formats_repeats or (2 if q else 5)
    args.detail_products = args.detail_products or (100 if q else 300)
    args.details_repeats = args.details_repeats or (2 if q else 3)
    args.products = args.products or (400 if q else 1336)
    args.large_products = args.large_products or (4000 if q else 13360)

    if args.report_only:
        with open(os.path.join(args.work_dir, "results.json")) as handle:
            results = json.load(handle)
        # The measuring run's options (older results.json files lack them: then this run's defaults).
        saved = argparse.Namespace(**{**vars(args), **results.get("args", {})})
        write_report(saved, results, args.out)
        log(f"rewrote {args.out} from {os.path.join(args.work_dir, 'results.json')}")
        return
    started = time.time()
    if not args.no_install:
        ensure_peers()
    warm = os.path.abspath(args.warm)
    if not os.access(warm, os.X_OK):
        raise SystemExit(f"bench: {warm} not found: run `swift build -c release` first")
    os.makedirs(args.work_dir, exist_ok=True)
    results = {"command": "python3 bench/run.py " + " ".join(sys.argv[1:]), "args": vars(args),
               "started": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
               "machine": machine_info(os.path.relpath(warm, REPO)), "notes": []}
    log(f"machine: {results['machine']['cpu']}, {NPROC} cores, load {loadavg()}")

    t0 = time.time()
    manifest = None
    if {"thumbnails", "strategies"} & set(args.sections):  # the others run against `warm serve`'s catalog
        manifest = corpus.build(os.path.join(args.work_dir, f"corpus-{args.seed}-{args.count}"), args.count, args.seed, NPROC)
        results["corpus"] = {"seed": args.seed, "count": len(manifest["files"]), "summary": corpus.summary(manifest)}
        log(f"corpus: {len(manifest['files'])} images ({time.time() - t0:.0f} s)")

    raw_path = os.path.join(args.work_dir, "results.json")

    global FAILURE_LOG_DIR
    FAILURE_LOG_DIR = os.path.join(args.work_dir, "failures")

    def save():
        results["failures"] = FAILURES
        results["elapsed_minutes"] = (time.time() - started) / 60
        write_report(args, results, args.out)
        with open(raw_path, "w") as handle:
            json.dump(results, handle, indent=1, default=str)

    if "thumbnails" in args.sections:
        bench_thumbnails(args, warm, manifest, args.work_dir, results)
        save()
    if "e2e" in args.sections:
        bench_end_to_end(args, warm, args.work_dir, results)
        save()
    if "rss" in args.sections:
        bench_rss(args, warm, args.work_dir, results)
        save()
    if "formats" in args.sections:
        bench_formats(args, warm, args.work_dir, results)
        save()
    if "details" in args.sections:
        bench_details(args, warm, args.work_dir, results)
        save()
    if "strategies" in args.sections:
        bench_strategies(args, warm, manifest, args.work_dir, results)
    save()
    log(f"wrote {args.out} and {raw_path} in {(time.time() - started) / 60:.1f} min")
    for name, ok in results.get("targets", {}).items():
        log(f"target {name}: {'holds' if ok else 'missed'}")


if __name__ == "__main__":
    main()
