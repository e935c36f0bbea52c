#!/usr/bin/env python3
"""Load test of `warm cache serve` on loopback, while the cache is rewritten and evicted,
beside nginx serving the same files by their paths in the cache directory.

  swift build -c release && python3 bench/origin_load.py              # about 2 minutes on 2 quiet cores
  python3 bench/origin_load.py --quick --warm .build/debug/warm        # a few seconds: checks the script only

Steps (everything on 127.0.0.1, bounded in time and requests):
1. Images: two catalogs of `warm serve` (seeds 1 and 2) are downloaded once into the work
   directory (set a, set b). A catalog server in this script lists --products products whose
   thumbnails are /img/<n>, serving set a, then set b at the same URLs (a newer Last-Modified).
2. `warm run` warms a cache from set a (--format jpeg, --size 300).
3. Consistency under writes: `warm cache serve` on the cache; --clients threads (keep-alive
   http.client connections) ask for every thumbnail in turn for --seconds; meanwhile the catalog
   switches to set b, `warm run --max-age 0` rewrites every thumbnail, then `warm cache evict`
   halves the cache. Counted: 200s, 304s, 404s (evicted), errors (any other status, any
   exception), bodies whose SHA-256 differs from their ETag, client-side p50/p99 latency.
   The clients are Python threads, so this phase's throughput is bounded by the client.
4. Throughput: wrk (--clients connections, 2 threads, --seconds) against the origin
   (format=jpeg URLs) and against nginx (the same files by path), nothing writing; requests/s and
   wrk's p50/p99. nginx: one worker per core, keep-alive, sendfile, access log off.

Writes <work dir>/origin-load.json and prints a Markdown table for docs/benchmarks.md.
Needs nginx and wrk for step 4 (`apt-get install -y nginx wrk`); without them step 4 is skipped.
"""
import argparse, concurrent.futures, hashlib, http.client, http.server, json, os, random, shutil, signal
import sqlite3, subprocess, sys, tempfile, threading, time, urllib.parse, urllib.request
from email.utils import formatdate, parsedate_to_datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def start_child(arguments):
    """A child printing its URL as the first line of stdout (warm serve, warm cache serve)."""
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("http://"):
        process.kill()
        sys.exit(f"origin_load: {' '.join(arguments)} did not start")
    return process, line


def stop_child(process):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def download_set(warm, directory, products, seed):
    """The distinct thumbnails of a `warm serve --seed` catalog, saved as <directory>/<n>."""
    if os.path.isdir(directory) and len(os.listdir(directory)) >= products:
        return
    os.makedirs(directory, exist_ok=True)
    server, base = start_child([warm, "serve", "--port", "0", "--products", str(products * 2), "--seed", str(seed)])
    try:
        thumbnails, page_no, more = [], 1, True
        while more and len(set(thumbnails)) < products:
            with urllib.request.urlopen(f"{base}/api/products?page_no={page_no}&items_per_page=500", timeout=60) as answer:
                page = json.load(answer)
            thumbnails += [p["thumbnail"] for p in page["pages"] if p.get("thumbnail")]
            more, page_no = page.get("hasNext", page.get("has_next", False)), page_no + 1
        urls = list(dict.fromkeys(thumbnails))[:products]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for index, data in enumerate(pool.map(lambda u: urllib.request.urlopen(u, timeout=60).read(), urls)):
                with open(os.path.join(directory, str(index)), "wb") as f:
                    f.write(data)
    finally:
        stop_child(server)


class Catalog(http.server.ThreadingHTTPServer):
    """An OpenMarket-style list of `count` products, thumbnails /img/<n> from `directory`."""
    daemon_threads = True

    def __init__(self, count, directory):
        super().__init__(("127.0.0.1", 0), CatalogHandler)
        self.count, self.directory, self.modified = count, directory, time.time() - 3600

    def switch(self, directory):
        self.directory, self.modified = directory, time.time()


class CatalogHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        server = self.server
        if url.path == "/api/products":
            query = urllib.parse.parse_qs(url.query)
            page, per = int(query.get("page_no", ["1"])[0]), int(query.get("items_per_page", ["20"])[0])
            host = f"http://127.0.0.1:{server.server_port}"
            products = [{"id": 1 + i, "vendor_id": 1, "name": f"p{i}", "price": 1000, "thumbnail": f"{host}/img/{i}",
                         "created_at": "2023-03-23"} for i in range(server.count)]
            last = max(1, (len(products) + per - 1) // per)
            body = json.dumps({"page_no": page, "items_per_page": per, "total_count": len(products), "last_page": last,
                               "has_next": page < last, "has_prev": page > 1,
                               "pages": products[(page - 1) * per: page * per]}).encode()
            return self.send(200, body, [("Content-Type", "application/json")])
        if url.path.startswith("/img/"):
            modified = int(server.modified)
            since = self.headers.get("If-Modified-Since")
            try:
                if since and int(parsedate_to_datetime(since).timestamp()) >= modified:
                    return self.send(304)
            except (TypeError, ValueError):
                pass
            try:
                with open(os.path.join(server.directory, os.path.basename(url.path)), "rb") as f:
                    body = f.read()
            except FileNotFoundError:
                return self.send(404)
            return self.send(200, body, [("Content-Type", "image/jpeg"), ("Last-Modified", formatdate(modified, usegmt=True))])
        self.send(404)


def percentile(values, share):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def client_loop(port, paths, deadline, seed, totals, lock):
    """One keep-alive connection asking for `paths` in a shuffled cycle until `deadline`."""
    rng = random.Random(seed)
    order = paths[:]
    rng.shuffle(order)
    counts = {"200": 0, "304": 0, "404": 0, "errors": 0, "mismatches": 0, "bytes": 0}
    latencies, errors, versions = [], [], {}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    index = 0
    while time.monotonic() < deadline:
        path = order[index % len(order)]
        index += 1
        started = time.perf_counter()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as error:
            counts["errors"] += 1
            errors.append(repr(error))
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        latencies.append(time.perf_counter() - started)
        status = str(response.status)
        if status == "200":
            counts["200"] += 1
            counts["bytes"] += len(body)
            etag = response.getheader("ETag")
            if etag != '"' + hashlib.sha256(body).hexdigest()[:32] + '"':
                counts["mismatches"] += 1
            versions.setdefault(path, set()).add(etag)
        elif status in counts:
            counts[status] += 1
        else:
            counts["errors"] += 1
            errors.append(f"status {status} for {path[:80]}")
    connection.close()
    with lock:
        for key, value in counts.items():
            totals[key] += value
        totals["latencies"] += latencies
        totals["error_samples"] += errors[:5]
        for path, etags in versions.items():
            totals["versions"].setdefault(path, set()).update(etags)


def consistency_phase(args, warm, cache, catalog, set_b, paths, origin_port):
    """Clients for --seconds while the catalog changes, a run rewrites and an eviction halves the cache."""
    totals = {"200": 0, "304": 0, "404": 0, "errors": 0, "mismatches": 0, "bytes": 0, "latencies": [], "error_samples": [], "versions": {}}
    lock = threading.Lock()
    started = time.monotonic()
    deadline = started + args.seconds
    threads = [threading.Thread(target=client_loop, args=(origin_port, paths, deadline, n, totals, lock)) for n in range(args.clients)]
    for thread in threads:
        thread.start()
    time.sleep(min(1.0, args.seconds / 10))
    catalog.switch(set_b)
    run = subprocess.run([warm, "run", "--api", f"http://127.0.0.1:{catalog.server_port}", "--cache-dir", cache, "--size", "300",
                          "--format", "jpeg", "--max-age", "0", "--no-progress"], capture_output=True, text=True)
    run_seconds = time.monotonic() - started
    cache_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(cache, "v1")) for f in fs)
    evict = subprocess.run([warm, "cache", "evict", cache, "--max-size", str(cache_bytes // 2)], capture_output=True, text=True)
    evict_seconds = time.monotonic() - started
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    latencies = totals.pop("latencies")
    # Images served both before and after their rewrite: the run really wrote under the clients.
    totals["images_seen_in_two_versions"] = sum(1 for etags in totals.pop("versions").values() if len(etags) >= 2)
    answered = totals["200"] + totals["304"] + totals["404"]
    return {
        "seconds": round(elapsed, 2), "clients": args.clients, **{k: v for k, v in totals.items()},
        "requests_per_second": round(answered / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2) if latencies else None,
        "rewrite_run": {"status": run.returncode, "ended_at_seconds": round(run_seconds, 1), "stderr_tail": run.stderr[-400:]},
        "eviction": {"status": evict.returncode, "ended_at_seconds": round(evict_seconds, 1), "stdout": evict.stdout.strip()},
        "writes_within_load": evict_seconds <= elapsed,
    }


WRK_SCRIPT = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
"""


def cpu_seconds(pids):
    """User plus system CPU time of these processes so far (/proc/<pid>/stat, fields 14 and 15)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def server_pids(process):
    """The process and its children (nginx's workers)."""
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    return [process.pid] + [int(pid) for pid in children]


def run_wrk(args, work, name, port, paths, pids):
    listing = os.path.join(work, f"{name}-paths.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    script = os.path.join(work, f"{name}.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT % listing)
    cpu_before = cpu_seconds(pids)
    result = subprocess.run(["wrk", "-t", "2", "-c", str(args.clients), "-d", f"{args.seconds}s", "--latency", "-s", script,
                             f"http://127.0.0.1:{port}"], capture_output=True, text=True)
    server_cpu = cpu_seconds(pids) - cpu_before
    text = result.stdout

    def value(prefix):
        for line in text.splitlines():
            parts = line.split()
            if parts and parts[0].rstrip(":") == prefix:
                return parts[1]
        return None
    non_2xx = next((int(line.split()[-1]) for line in text.splitlines() if "Non-2xx" in line), 0)
    errors = next((line.strip() for line in text.splitlines() if "Socket errors" in line), "")
    requests = next((int(line.split()[0]) for line in text.splitlines() if " requests in " in line), 0)
    # The server's CPU per answer: unlike requests/s, it does not depend on how much of the cores the server got.
    cpu_us = round(server_cpu * 1e6 / requests, 1) if requests else None
    return {"requests_per_second": float(value("Requests/sec") or 0), "p50": value("50%"), "p99": value("99%"),
            "server_cpu_seconds": round(server_cpu, 2), "server_cpu_us_per_request": cpu_us,
            "non_2xx": non_2xx, "socket_errors": errors, "raw": text}


def start_nginx(work, cache):
    conf = os.path.join(work, "nginx.conf")
    probe = subprocess.run(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"],
                           capture_output=True, text=True)
    port = int(probe.stdout)
    with open(conf, "w") as f:
        f.write(f"""
worker_processes {os.cpu_count() or 1};
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  types {{ image/jpeg jpg; image/webp webp; }}
  client_body_temp_path {work}/nginx-tmp; proxy_temp_path {work}/nginx-tmp; fastcgi_temp_path {work}/nginx-tmp;
  uwsgi_temp_path {work}/nginx-tmp; scgi_temp_path {work}/nginx-tmp;
  server {{
    listen 127.0.0.1:{port};
    root {cache};
    location /v1/ {{ }}
    location / {{ return 404; }}
  }}
}}
""")
    os.makedirs(os.path.join(work, "nginx-tmp"), exist_ok=True)
    process = subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return process, port
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("origin_load: nginx did not start")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", default=os.path.join(ROOT, ".build/release/warm"))
    parser.add_argument("--work-dir", default=os.path.join(tempfile.gettempdir(), "warm-origin-load"))
    parser.add_argument("--products", type=int, default=600, help="thumbnails in the cache (default 600)")
    parser.add_argument("--clients", type=int, default=64, help="concurrent keep-alive connections (default 64)")
    parser.add_argument("--seconds", type=int, default=30, help="length of each timed phase (default 30)")
    parser.add_argument("--quick", action="store_true", help="60 products, 8 clients, 4 s: checks the script, numbers mean nothing")
    args = parser.parse_args()
    if args.quick:
        args.products, args.clients, args.seconds = 60, 8, 4
    warm = os.path.abspath(args.warm)
    work = os.path.abspath(args.work_dir)
    os.makedirs(work, exist_ok=True)
    set_a, set_b = os.path.join(work, f"set-a-{args.products}"), os.path.join(work, f"set-b-{args.products}")
    log(f"images: {args.products} per set")
    download_set(warm, set_a, args.products, 1)
    download_set(warm, set_b, args.products, 2)

    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    catalog = Catalog(args.products, set_a)
    threading.Thread(target=catalog.serve_forever, daemon=True).start()
    log("warming the cache from set a")
    subprocess.run([warm, "run", "--api", f"http://127.0.0.1:{catalog.server_port}", "--cache-dir", cache, "--size", "300",
                    "--format", "jpeg", "--no-progress"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    origin, origin_url = start_child([warm, "cache", "serve", cache, "--port", "0"])
    origin_port = int(origin_url.rsplit(":", 1)[1])
    paths = ["/v1/thumbnail?" + urllib.parse.urlencode({"url": f"http://127.0.0.1:{catalog.server_port}/img/{n}", "size": 300,
                                                        "format": "jpeg"}) for n in range(args.products)]
    results = {"products": args.products, "clients": args.clients, "seconds": args.seconds, "cpus": os.cpu_count(),
               "load_average_before": os.getloadavg()}
    try:
        log(f"consistency: {args.clients} clients for {args.seconds} s while a run rewrites and an eviction runs")
        results["consistency"] = consistency_phase(args, warm, cache, catalog, set_b, paths, origin_port)
        if shutil.which("wrk") and shutil.which("nginx"):
            # Re-warm (the eviction removed half), then measure with nothing writing.
            subprocess.run([warm, "run", "--api", f"http://127.0.0.1:{catalog.server_port}", "--cache-dir", cache, "--size", "300",
                            "--format", "jpeg", "--no-progress"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # The origin sees the re-warmed rows at its next index refresh (every 100 ms): before it, evicted ones are 404s.
            time.sleep(0.5)
            log(f"throughput: wrk against the origin ({args.seconds} s)")
            results["origin_wrk"] = run_wrk(args, work, "origin", origin_port, paths, [origin.pid])
            database = sqlite3.connect(f"file:{cache}/manifest.sqlite?mode=ro", uri=True)
            files = ["/" + row[0] for row in database.execute("SELECT path FROM entry WHERE path IS NOT NULL AND variant = '300.jpg'")]
            database.close()
            nginx, nginx_port = start_nginx(work, cache)
            try:
                log(f"throughput: wrk against nginx on the same {len(files)} files ({args.seconds} s)")
                results["nginx_wrk"] = run_wrk(args, work, "nginx", nginx_port, files, server_pids(nginx))
            finally:
                stop_child(nginx)
        else:
            log("wrk or nginx missing (apt-get install -y nginx wrk): throughput comparison skipped")
    finally:
        stop_child(origin)
        catalog.shutdown()
    with open(os.path.join(work, "origin-load.json"), "w") as f:
        json.dump(results, f, indent=2)
    report(results)
    consistency = results["consistency"]
    if consistency["errors"] or consistency["mismatches"] or not consistency["writes_within_load"] \
            or consistency["images_seen_in_two_versions"] == 0:
        sys.exit(1)


def report(results):
    c = results["consistency"]
    print(f"\nOrigin under load: {results['products']} thumbnails, {results['clients']} keep-alive clients, "
          f"{results['seconds']} s, {results['cpus']} CPUs, load average before {results['load_average_before'][0]:.2f}\n")
    print("| phase | requests/s | p50 | p99 | 200 | 404 | errors | ETag mismatches |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| origin while a run rewrites and an eviction runs (Python clients, hashing every body) | {c['requests_per_second']} | "
          f"{c['p50_ms']} ms | {c['p99_ms']} ms | {c['200']} | {c['404']} | {c['errors']} | {c['mismatches']} |")
    for key, label in (("origin_wrk", "origin, nothing writing (wrk)"), ("nginx_wrk", "nginx, same files by path (wrk)")):
        if key in results:
            w = results[key]
            print(f"| {label} | {w['requests_per_second']:.0f} | {w['p50']} | {w['p99']} | - | {w['non_2xx']} non-2xx | "
                  f"{w['socket_errors'] or 0} | - |")
    if "origin_wrk" in results and "nginx_wrk" in results:
        print(f"\nserver CPU per answer under wrk (user + system, /proc): origin "
              f"{results['origin_wrk']['server_cpu_us_per_request']} us ({results['origin_wrk']['server_cpu_seconds']} s), nginx "
              f"{results['nginx_wrk']['server_cpu_us_per_request']} us ({results['nginx_wrk']['server_cpu_seconds']} s)")
    print(f"\nrewrite run: exit {c['rewrite_run']['status']} at {c['rewrite_run']['ended_at_seconds']} s; eviction: exit "
          f"{c['eviction']['status']} at {c['eviction']['ended_at_seconds']} s ({c['eviction']['stdout']}); "
          f"both within the load: {c['writes_within_load']}; {c['images_seen_in_two_versions']} of {results['products']} "
          f"images served both before and after their rewrite")
    if c["error_samples"]:
        print("error samples:", c["error_samples"][:5])
    print(summary_line(results))


def ms(text):
    """wrk's latency text (`812.00us`, `1.62ms`, `1.01s`) in milliseconds."""
    if not text:
        return None
    for unit, scale in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    return None


def summary_line(results):
    """One line with the figures the issue's targets name and whether each is met."""
    c = results["consistency"]
    parts, met = [], c["errors"] == 0 and c["mismatches"] == 0
    parts.append(f"under rewrite+eviction: {c['errors']} errors besides 404, {c['mismatches']} ETag mismatches")
    if "origin_wrk" in results and "nginx_wrk" in results:
        origin, nginx = results["origin_wrk"], results["nginx_wrk"]
        ratio = origin["requests_per_second"] / nginx["requests_per_second"] if nginx["requests_per_second"] else 0
        p99 = ms(origin["p99"])
        met = met and ratio >= 0.5 and p99 is not None and p99 <= 10
        parts.insert(0, f"origin {origin['requests_per_second']:.0f} req/s vs nginx {nginx['requests_per_second']:.0f} req/s = "
                        f"{ratio:.2f}x (target >= 0.5x), origin p99 {origin['p99']} (target <= 10 ms), CPU per answer origin "
                        f"{origin['server_cpu_us_per_request']} us vs nginx {nginx['server_cpu_us_per_request']} us")
    else:
        parts.insert(0, "no wrk/nginx comparison")
        met = False
    return f"SUMMARY: {'; '.join(parts)}; load average before {results['load_average_before'][0]:.2f}: " \
           f"{'targets met' if met else 'targets NOT met'}"


if __name__ == "__main__":
    main()
