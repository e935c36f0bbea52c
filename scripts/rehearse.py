#!/usr/bin/env python3
"""Rehearses the Kubernetes topology of deploy/kubernetes/ on one machine: reads the
manifests and runs each container's command and arguments as written, with the
volume mapped to a directory, against the demo catalog (`warm serve`):

  night 1  the Indexed Job's N pods (`warm run ...` with JOB_COMPLETION_INDEX 0..N-1,
           at most `parallelism` at once), then the merge CronJob's /bin/sh -c script;
           then the Deployment's replicas (`warm cache serve /cache ...`), and both must
           serve every image the catalog lists, each variant's body matching its ETag
           and the app manifest's;
  night 2  the catalog grows (restarted on the same port with more products); the
           shards and the merge run again while a load loop asks both origins for
           night 1's thumbnails: every answer must be 200 (body hashing to its ETag:
           no torn body) or 304, none 5xx; afterwards both serve the grown list;
  night 3  nothing changed: the shards' summaries (shards/I-of-N/last-run.json) must
           count no download.

Only what must differ on one machine is substituted, and each substitution is
printed: the image's `warm` (a directory holding a `warm` link first on PATH; the
image's ENTRYPOINT for containers without a command), every volume's mountPath (the
claim: one shared directory; an emptyDir: a directory per pod), the catalog URL
(--api), the origins' ports (0: each replica picks a free one and prints it), and,
with --shards, the shard count in its three places (completions, --shards=, the
merge's *-of-N). It reads nothing of the cache's internals: only the commands'
exit statuses, the documented summaries and HTTP.

Usage: scripts/rehearse.py [--warm PATH] [--shards N] [--products P] [--added-products K]
                           [--manifests DIR] [--work DIR] [--timeout SECONDS]
  Exit 0 with the figures (per night: wall time, images, downloads; requests answered
  during the night-2 merge, 5xx, torn bodies); 1 with a sentence naming what failed
  (the work directory, with every process's log, is then kept); 64 for bad options.
Needs python3-yaml.
"""
import argparse
import gzip
import hashlib
import http.client
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kubernetes_manifests import MANIFESTS, ROOT, documents, flag, pod_spec

# Timeouts are bounds on a hang, not expectations; each says what it waited for when it ran out.
START_SECONDS = 120     # a server printing its URL, an origin's /healthz turning 200: a second idle, more on a loaded 2-core machine
PUBLISH_SECONDS = 120   # after a merge, until both origins serve the new list (the origin notices a new manifest within a second)
REQUEST_SECONDS = 60    # one HTTP request to a local server


class RehearsalFailure(Exception):
    """A sentence saying what did not behave as the manifests promise."""


def say(text):
    print(f"rehearsal: {text}", flush=True)


# The manifests, as containers with what they run.

class Container:
    """One container of a manifest: its command, args and env as written, and its volumes' mountPaths."""

    def __init__(self, manifest, spec, index=0):
        container = spec["containers"][index]
        self.where = f"{manifest}: container {container['name']}"
        self.command = container.get("command")
        self.args = [str(a) for a in container.get("args", [])]
        self.env = {e["name"]: str(e.get("value", "")) for e in container.get("env", [])}
        kinds = {v["name"]: ("shared" if "persistentVolumeClaim" in v else "pod") for v in spec.get("volumes", [])}
        self.mounts = {m["mountPath"]: (m["name"], kinds.get(m["name"], "pod")) for m in container.get("volumeMounts", [])}
        self.grace_seconds = spec.get("terminationGracePeriodSeconds", 30)

    def expanded(self):
        """args and env with Kubernetes' $(VAR) references to the container's env replaced (undefined ones stay)."""
        def expand(text):
            return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: self.env.get(m.group(1), m.group(0)), text)
        return [expand(a) for a in self.args], {k: expand(v) for k, v in self.env.items()}


def load_single(directory, name):
    found = documents(Path(directory) / name)
    if len(found) != 1:
        raise RehearsalFailure(f"{name}: expected one document, found {len(found)}")
    return found[0]


class Topology:
    """The Indexed Job, the merge CronJob and the origin Deployment of one manifests directory."""

    def __init__(self, directory):
        warm = load_single(directory, "cronjob-warm.yaml")
        merge = load_single(directory, "cronjob-merge.yaml")
        origin = load_single(directory, "deployment-origin.yaml")
        job = warm["spec"]["jobTemplate"]["spec"]
        self.completions = job.get("completions", 1)
        self.parallelism = job.get("parallelism", 1)
        self.shard = Container("cronjob-warm.yaml", pod_spec(warm))
        self.merge = Container("cronjob-merge.yaml", pod_spec(merge))
        self.origin = Container("deployment-origin.yaml", origin["spec"]["template"]["spec"])
        self.replicas = origin["spec"].get("replicas", 1)


# Substitutions: only what must differ on one machine.

class Substitutions:
    def __init__(self, topology, warm, work, shards, catalog_url):
        self.topology, self.warm, self.work, self.catalog_url = topology, Path(warm).resolve(), Path(work), catalog_url
        self.shards = shards or topology.completions
        self.bin = self.work / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        (self.bin / "warm").symlink_to(self.warm)
        self.volume = self.work / "volume"
        self.volume.mkdir(exist_ok=True)
        self.lines = [f"warm -> {self.warm} (the image's ENTRYPOINT; {self.bin}/warm first on PATH for /bin/sh -c)"]

    def note(self, text):
        if text not in self.lines:
            self.lines.append(text)

    def paths(self, container, pod):
        """mountPath -> directory: the claim shared by every pod, an emptyDir per pod."""
        mapping = {}
        for mount_path, (volume, kind) in container.mounts.items():
            directory = self.volume if kind == "shared" else self.work / "pods" / pod / volume
            directory.mkdir(parents=True, exist_ok=True)
            mapping[mount_path] = str(directory)
            self.note(f"{container.where}: {mount_path} ({'the claim' if kind == 'shared' else 'an emptyDir'} {volume}) -> "
                      f"{directory if kind == 'shared' else self.work / 'pods' / '<pod>' / volume}")
        return mapping

    @staticmethod
    def map_paths(text, mapping):
        """Each mountPath that begins a path in text replaced by its directory, in one pass (no replacement is replaced again)."""
        if not mapping:
            return text
        alternatives = "|".join(re.escape(p) for p in sorted(mapping, key=len, reverse=True))
        return re.sub(rf"(?<![\w.~/-])({alternatives})(?![\w.~-])", lambda m: mapping[m.group(1)], text)

    def shard_count(self, args):
        """--shards=N (and completions) set to the rehearsal's N."""
        written = flag(args, "shards")
        if written is None:
            raise RehearsalFailure("cronjob-warm.yaml: the container's args have no --shards, so JOB_COMPLETION_INDEX would be ignored")
        if int(written) != self.shards:
            self.note(f"cronjob-warm.yaml: completions {self.topology.completions} and --shards={written} -> {self.shards}")
        return [re.sub(r"^--shards=\d+$", f"--shards={self.shards}", a) for a in args]

    def api(self, args):
        written = flag(args, "api")
        if written is None:
            raise RehearsalFailure("cronjob-warm.yaml: the container's args have no --api")
        self.note(f"cronjob-warm.yaml: --api {written} -> the demo catalog {self.catalog_url}")
        return [a.replace(written, self.catalog_url) if a.startswith("--api") or a == written else a for a in args]

    def shard_pod(self, index):
        container = self.topology.shard
        args, env = container.expanded()
        args = self.api(self.shard_count(args))
        mapping = self.paths(container, f"shard-{index}")
        argv = (container.command or [str(self.bin / "warm")]) + [self.map_paths(a, mapping) for a in args]
        env = {k: self.map_paths(v, mapping) for k, v in env.items()}
        env["JOB_COMPLETION_INDEX"] = str(index)
        return argv, env

    def merge_pod(self):
        container = self.topology.merge
        args, env = container.expanded()
        mapping = self.paths(container, "merge")
        args = [self.map_paths(a, mapping) for a in args]
        if self.shards != self.topology.completions:
            self.note(f"cronjob-merge.yaml: *-of-{self.topology.completions} -> *-of-{self.shards}")
            args = [re.sub(rf"-of-{self.topology.completions}\b", f"-of-{self.shards}", a) for a in args]
        argv = (container.command or [str(self.bin / "warm")]) + args
        return argv, {k: self.map_paths(v, mapping) for k, v in env.items()}

    def origin_pod(self, replica):
        container = self.topology.origin
        args, env = container.expanded()
        mapping = self.paths(container, f"origin-{replica}")
        ported = []
        for arg in args:
            match = re.match(r"^--(port|admin-port)=(\d+)$", arg)
            if match:
                self.note(f"deployment-origin.yaml: --{match.group(1)}={match.group(2)} -> 0 (each replica prints the free port it got)")
                arg = f"--{match.group(1)}=0"
            ported.append(self.map_paths(arg, mapping))
        argv = (container.command or [str(self.bin / "warm")]) + ported
        return argv, {k: self.map_paths(v, mapping) for k, v in env.items()}

    def environment(self, env):
        """The container's env on a clean one: PATH (bin first) and HOME, as an image would have."""
        return {"PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
                "HOME": os.environ.get("HOME", "/"), **env}


# Processes.

class Processes:
    """Every child the rehearsal starts, each with its log file, stopped at the end whatever happened."""

    def __init__(self, work, timeout):
        self.logs = Path(work) / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout
        self.started = []

    def spawn(self, name, argv, env, stdout=None):
        log = open(self.logs / f"{name}.log", "wb")
        child = subprocess.Popen(argv, env=env, stdout=stdout or log, stderr=log, stdin=subprocess.DEVNULL)
        child.rehearsal_name, child.rehearsal_log = name, self.logs / f"{name}.log"
        log.close()
        self.started.append(child)
        return child

    @staticmethod
    def tail(child, lines=6):
        text = child.rehearsal_log.read_text(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:])

    def run_all(self, pods, parallelism):
        """Runs (name, what, argv, env) pods, at most parallelism at once, each to its end; fails on the first non-zero exit."""
        pending, running, seconds = list(pods), [], {}
        while pending or running:
            while pending and len(running) < parallelism:
                name, what, argv, env = pending.pop(0)
                child = self.spawn(name, argv, env)
                child.rehearsal_what = what
                running.append((child, time.monotonic()))
            time.sleep(0.1)
            for child, began in list(running):
                status = child.poll()
                if status is None and time.monotonic() - began > self.timeout:
                    raise RehearsalFailure(f"{child.rehearsal_what} did not finish within {self.timeout} s (--timeout): "
                                           f"{self.tail(child)}")
                if status is None:
                    continue
                running.remove((child, began))
                seconds[child.rehearsal_name] = time.monotonic() - began
                if status != 0:
                    raise RehearsalFailure(f"{child.rehearsal_what} exited {status}: {self.tail(child)} (log: {child.rehearsal_log})")
        return seconds

    def stop_all(self):
        for child in self.started:
            if child.poll() is None:
                child.kill()
                child.wait()
            if child.stdout:
                child.stdout.close()


def first_lines(child, count, what):
    """The first count lines a server prints on standard output (its URLs)."""
    lines, buffer, deadline = [], b"", time.monotonic() + START_SECONDS
    while len(lines) < count:
        left = deadline - time.monotonic()
        ready = select.select([child.stdout], [], [], max(left, 0))[0] if left > 0 else []
        chunk = os.read(child.stdout.fileno(), 4096) if ready else b""
        if not chunk:
            raise RehearsalFailure(f"{what} printed no URL within {START_SECONDS} s (exit {child.poll()}): {Processes.tail(child)}")
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        lines += [line.decode().strip() for line in complete]
    return lines[:count]


def port_of(url):
    return urllib.parse.urlsplit(url).port


# HTTP.

def get(port, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def thumbnail_path(variant):
    query = urllib.parse.urlencode({"url": variant["url"], "size": variant["size"], "format": variant["format"]})
    return f"/v1/thumbnail?{query}"


def catalog_images(catalog_port):
    """Every distinct thumbnail URL the demo catalog lists (its product list, page by page, as a run reads it)."""
    urls, page = set(), 1
    while True:
        status, _, body = get(catalog_port, f"/api/products?page_no={page}&items_per_page=100")
        if status != 200:
            raise RehearsalFailure(f"the demo catalog answered {status} for its page {page}")
        listing = json.loads(body)
        urls |= {p["thumbnail"] for p in listing["pages"] if str(p.get("thumbnail") or "").startswith("http")}
        if not listing.get("hasNext"):
            return urls
        page += 1


def make_images(catalog_port, urls):
    """Asks the demo catalog for each image once, two at a time: it makes an image on its first request (CPU-bound),
    while a marketplace's images exist before the night; without this, N shards asking at once for images not yet made
    queue past the fetcher's timeout on a small machine (4 shards of the debug build at load 20: 213 of 310 failed)."""
    def ask(url):
        path = urllib.parse.urlsplit(url)
        status = get(catalog_port, path.path + (f"?{path.query}" if path.query else ""))[0]
        if status != 200:
            raise RehearsalFailure(f"the demo catalog answered {status} for its image {url}")
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(ask, sorted(urls)))


def app_manifest(origin_port):
    status, headers, body = get(origin_port, "/v1/manifest", {"Accept-Encoding": "gzip"})
    if status != 200:
        raise RehearsalFailure(f"GET /v1/manifest answered {status}")
    text = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def variants_serving(origins, images):
    """Each variant of each catalog image from every origin; a sentence for the first that is missing or wrong, else the variants."""
    lines = {line["url"]: line for line in app_manifest(origins[0])}
    missing = sorted(images - lines.keys())
    if missing:
        return f"{len(missing)} of the catalog's {len(images)} images are not in the origin's app manifest (first: {missing[0]})", None
    variants = [{"url": url, **variant} for url in sorted(images) for variant in lines[url]["variants"]]
    for port in origins:
        for variant in variants:
            status, headers, body = get(port, thumbnail_path(variant))
            where = f"origin :{port}, {variant['url']} size {variant['size']} {variant['format']}"
            if status != 200:
                return f"{where}: answered {status}", None
            if headers.get("etag") != variant["etag"] or f'"{hashlib.sha256(body).hexdigest()[:32]}"' != variant["etag"]:
                return f"{where}: the body (SHA-256 {hashlib.sha256(body).hexdigest()[:32]}) or the ETag " \
                       f"({headers.get('etag')}) is not the manifest's {variant['etag']}", None
    return None, variants


def wait_until_serving(origins, images, what):
    deadline, problem = time.monotonic() + PUBLISH_SECONDS, None
    while time.monotonic() < deadline:
        problem, variants = variants_serving(origins, images)
        if problem is None:
            return variants
        time.sleep(1)
    raise RehearsalFailure(f"{what}: the origins did not serve every image within {PUBLISH_SECONDS} s: {problem}")


class Load:
    """Threads asking every origin for known variants, one request after another, every fourth one conditional (304)."""

    def __init__(self, origins, variants, threads_per_origin=2):
        self.variants, self.stop, self.lock = variants, threading.Event(), threading.Lock()
        self.answers = []   # (monotonic time, origin port, outcome)
        self.threads = [threading.Thread(target=self.loop, args=(port, seed), daemon=True)
                        for port in origins for seed in range(threads_per_origin)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(REQUEST_SECONDS + 5)

    def loop(self, port, seed):
        order, count = self.variants[:], 0
        random.Random(seed * 7919 + port).shuffle(order)
        while not self.stop.is_set():
            variant = order[count % len(order)]
            conditional = count % 4 == 3
            count += 1
            outcome = self.ask(port, variant, conditional)
            with self.lock:
                self.answers.append((time.monotonic(), port, outcome))
            time.sleep(0.01)   # leave the cores to the shards: the point is overlap, not throughput

    @staticmethod
    def ask(port, variant, conditional):
        try:
            status, headers, body = get(port, thumbnail_path(variant), {"If-None-Match": variant["etag"]} if conditional else {})
        except (OSError, http.client.HTTPException) as error:
            return f"error {type(error).__name__}"
        if status == 200:
            whole = f'"{hashlib.sha256(body).hexdigest()[:32]}"' == headers.get("etag")
            return "200" if whole else "torn"
        return str(status)

    def counts(self, since=None, until=None):
        with self.lock:
            chosen = [a for a in self.answers if (since is None or a[0] >= since) and (until is None or a[0] <= until)]
        tally = {}
        for _, port, outcome in chosen:
            tally[outcome] = tally.get(outcome, 0) + 1
        return len(chosen), tally, {port for _, port, _ in chosen}


# The nights.

class Rehearsal:
    def __init__(self, options):
        self.options = options
        self.work = Path(options.work or tempfile.mkdtemp(prefix="warm-rehearsal-"))
        self.topology = Topology(options.manifests)
        self.processes = Processes(self.work, options.timeout)
        self.figures = {}
        self.catalog = None

    def start_catalog(self, products, port=0):
        if self.catalog is not None:
            self.catalog.send_signal(signal.SIGTERM)
            self.catalog.wait(START_SECONDS)
            self.catalog.stdout.close()
        argv = [str(Path(self.options.warm).resolve()), "serve", "--port", str(port), "--products", str(products),
                "--parent-pid", str(os.getpid())]
        self.catalog = self.processes.spawn(f"catalog-{products}", argv, dict(os.environ), stdout=subprocess.PIPE)
        url = first_lines(self.catalog, 1, "the demo catalog (warm serve)")[0]
        return url, port_of(url)

    def catalog_made(self, catalog_port, cached=frozenset()):
        """The catalog's image URLs, each image the shards will download made by the demo before the night (make_images):
        not those cached, which are fresh."""
        images, began = catalog_images(catalog_port), time.monotonic()
        make_images(catalog_port, images - cached)
        say(f"the demo catalog made {len(images - cached)} images before the night ({time.monotonic() - began:.1f} s, not counted)")
        return images

    def night(self, number, subs):
        pods = [(f"night{number}-shard-{i}", f"night {number}: cronjob-warm.yaml's pod JOB_COMPLETION_INDEX={i}", *subs.shard_pod(i))
                for i in range(subs.shards)]
        pods = [(name, what, argv, subs.environment(env)) for name, what, argv, env in pods]
        began = time.monotonic()
        shard_seconds = self.processes.run_all(pods, min(self.topology.parallelism, subs.shards))
        shards_done = time.monotonic()
        argv, env = subs.merge_pod()
        self.processes.run_all([(f"night{number}-merge", f"night {number}: cronjob-merge.yaml's container merge", argv,
                                 subs.environment(env))], 1)
        merge_done = time.monotonic()
        summaries = [json.loads((subs.volume / "shards" / f"{i}-of-{subs.shards}" / "last-run.json").read_text())
                     for i in range(subs.shards)]
        night = {"seconds": round(merge_done - began, 1), "shardsSeconds": round(shards_done - began, 1),
                 "slowestShardSeconds": round(max(shard_seconds.values()), 1), "mergeSeconds": round(merge_done - shards_done, 1),
                 "downloaded": sum(s["imagesDownloaded"] for s in summaries),
                 "fresh": sum(s["imagesFresh"] + s["imagesNotModified"] for s in summaries),
                 "failed": sum(s["imagesFailed"] for s in summaries),
                 # --compare-one-in's sample is downloaded every night: measuring needs the source's bytes.
                 "measured": sum(s["imagesMeasured"] for s in summaries)}
        self.figures[f"night{number}"] = night
        return night, (shards_done, merge_done)

    def start_origins(self, subs):
        origins = []
        for replica in range(self.topology.replicas):
            argv, env = subs.origin_pod(replica)
            child = self.processes.spawn(f"origin-{replica}", argv, subs.environment(env), stdout=subprocess.PIPE)
            admin = flag(argv, "admin-port") is not None
            urls = first_lines(child, 2 if admin else 1, f"origin replica {replica}")
            origins.append((child, port_of(urls[0]), port_of(urls[-1])))
        for child, _, admin_port in origins:
            deadline = time.monotonic() + START_SECONDS
            while get(admin_port, "/healthz")[0] != 200:
                if time.monotonic() > deadline:
                    raise RehearsalFailure(f"{child.rehearsal_name}: /healthz did not answer 200 within {START_SECONDS} s")
                time.sleep(0.5)
        return origins

    def stop_origins(self, origins):
        for child, _, _ in origins:
            child.send_signal(signal.SIGTERM)
        for child, _, _ in origins:
            try:
                status = child.wait(self.topology.origin.grace_seconds)
            except subprocess.TimeoutExpired:
                raise RehearsalFailure(f"{child.rehearsal_name} did not stop within terminationGracePeriodSeconds "
                                       f"({self.topology.origin.grace_seconds} s) of SIGTERM")
            if status != 0:
                raise RehearsalFailure(f"{child.rehearsal_name} exited {status} on SIGTERM: {Processes.tail(child)}")

    def run(self):
        options = self.options
        catalog_url, catalog_port = self.start_catalog(options.products)
        subs = Substitutions(self.topology, options.warm, self.work, options.shards, catalog_url)
        subs.shard_pod(0), subs.merge_pod(), subs.origin_pod(0)   # collect the substitutions to print them first
        for line in subs.lines:
            say(f"substitute {line}")
        say(f"{subs.shards} shards, {min(self.topology.parallelism, subs.shards)} at once (parallelism as written), "
            f"{self.topology.replicas} origin replicas; the volume is {subs.volume}; logs in {self.processes.logs}")

        images = self.catalog_made(catalog_port)
        night, _ = self.night(1, subs)
        self.require(night["downloaded"] == len(images) and night["failed"] == 0,
                     f"night 1 downloaded {night['downloaded']} images with {night['failed']} failed, "
                     f"but the catalog lists {len(images)}")
        origins = self.start_origins(subs)
        ports = [port for _, port, _ in origins]
        variants = wait_until_serving(ports, images, "night 1")
        say(f"night 1: {night['seconds']} s ({subs.shards} shards {night['shardsSeconds']} s, the slowest "
            f"{night['slowestShardSeconds']} s; merge {night['mergeSeconds']} s); {len(images)} images in the catalog "
            f"({options.products} products), {night['downloaded']} downloaded; both origins serve all {len(variants)} variants")
        self.figures.update(images=len(images), variants=len(variants))

        self.night_under_load(subs, ports, variants, catalog_port, images)

        night, _ = self.night(3, subs)
        self.require(night["downloaded"] == night["measured"],
                     f"night 3 (nothing changed) downloaded {night['downloaded']} images, "
                     f"{night['downloaded'] - night['measured']} more than the {night['measured']} measured")
        wait_until_serving(ports, catalog_images(catalog_port), "night 3")
        say(f"night 3: {night['seconds']} s (merge {night['mergeSeconds']} s); nothing changed: "
            f"{night['downloaded'] - night['measured']} downloaded beyond the {night['measured']} measured "
            f"(the --compare-one-in sample, downloaded every night to be measured), {night['fresh']} fresh or not modified")
        self.stop_origins(origins)
        return self.figures

    def night_under_load(self, subs, ports, variants, catalog_port, old_images):
        products = self.options.products + self.options.added_products
        self.start_catalog(products, catalog_port)
        images = self.catalog_made(catalog_port, cached=old_images)
        with Load(ports, variants) as load:
            night, (merge_began, merge_done) = self.night(2, subs)
            new_variants = wait_until_serving(ports, images, "night 2")
            time.sleep(0.2)
        total, tally, _ = load.counts()
        during, during_tally, answering = load.counts(merge_began, merge_done)
        bad = {k: v for k, v in tally.items() if k not in ("200", "304")}
        self.require(not bad, f"night 2: under load the origins gave answers other than 200 and 304: {bad} "
                              f"(torn: a body that does not hash to its ETag)")
        self.require(answering == set(ports), f"night 2: not every origin answered while the merge ran "
                                              f"({during} answers, from ports {sorted(answering)})")
        new = len(images - old_images)
        self.require(new <= night["downloaded"] <= new + night["measured"],
                     f"night 2 downloaded {night['downloaded']}, but {new} images are new and {night['measured']} measured")
        server_errors = sum(v for k, v in tally.items() if k.startswith("5"))
        say(f"night 2: +{self.options.added_products} products, {len(images)} images; {night['seconds']} s "
            f"(merge {night['mergeSeconds']} s), {night['downloaded']} downloaded ({new} new, {night['measured']} measured); under load the origins answered "
            f"{total} requests ({tally.get('200', 0)} 200, {tally.get('304', 0)} 304), {during} while the merge ran; "
            f"{server_errors} 5xx, {tally.get('torn', 0)} torn bodies; both serve all {len(new_variants)} variants after it")
        self.figures.update(requests=total, requestsDuringMerge=during, serverErrors=server_errors,
                            tornBodies=tally.get("torn", 0), imagesAfterNight2=len(images))

    @staticmethod
    def require(condition, sentence):
        if not condition:
            raise RehearsalFailure(sentence)


def parse(arguments):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", default=str(ROOT / ".build" / "debug" / "warm"), help="the warm binary (default: the debug build)")
    parser.add_argument("--manifests", default=str(MANIFESTS), help="the manifests directory (default: deploy/kubernetes)")
    parser.add_argument("--shards", type=int, help="N in place of the manifests' completions (default: as written)")
    parser.add_argument("--products", type=int, default=1336, help="the demo catalog's products on nights 1 and 3 (default: warm serve's)")
    parser.add_argument("--added-products", type=int, default=24, help="products the catalog gains for night 2")
    parser.add_argument("--work", help="the work directory (default: a new temporary one, removed when the rehearsal passes)")
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds one shard or the merge may take (a bound on a hang; default 3600)")
    options = parser.parse_args(arguments)
    if options.shards is not None and options.shards < 1 or options.products < 1 or options.added_products < 1:
        parser.error("--shards, --products and --added-products must be positive")
    if not os.access(options.warm, os.X_OK):
        parser.error(f"--warm {options.warm} is not an executable (swift build makes .build/debug/warm)")
    return options


def main(arguments):
    options = parse(arguments)
    rehearsal = Rehearsal(options)
    try:
        figures = rehearsal.run()
    except (RehearsalFailure, OSError) as failure:
        say(f"FAILED: {failure} (work directory kept: {rehearsal.work})")
        return 1
    finally:
        rehearsal.processes.stop_all()
    (rehearsal.work / "figures.json").write_text(json.dumps(figures, indent=2))
    say("ok: " + json.dumps(figures, separators=(",", ":")))
    if options.work is None:
        shutil.rmtree(rehearsal.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
