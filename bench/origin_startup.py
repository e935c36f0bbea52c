#!/usr/bin/env python3
"""Start-up time and resident memory of `warm cache serve` on a cache: from the process's start to the port
opening, and to `/healthz` answering 200 (the index loaded), then VmRSS and the index's row count.

  python3 bench/origin_startup.py WARM_BINARY CACHE_DIR [REPEATS]

The origin loads the whole index before it listens, so "port open to ready" is the time of one /healthz request.
Run on the admin port (--admin-port 0), as the shipped Deployment does.
"""
import subprocess, sys, time, urllib.error, urllib.request


def once(binary, cache):
    started = time.monotonic()
    process = subprocess.Popen([binary, 'cache', 'serve', cache, '--port', '0', '--admin-port', '0'],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        process.stdout.readline()  # the public URL
        admin = process.stdout.readline().decode().strip()
        opened = time.monotonic()
        while True:
            try:
                with urllib.request.urlopen(admin + '/healthz', timeout=30) as answer:
                    if answer.status == 200:
                        break
            except urllib.error.HTTPError:
                pass
            time.sleep(0.01)
        ready = time.monotonic()
        rss_kib = int(next(l for l in open(f'/proc/{process.pid}/status') if l.startswith('VmRSS')).split()[1])
        metrics = urllib.request.urlopen(admin + '/metrics', timeout=30).read().decode()
        rows = next(l for l in metrics.splitlines() if l.startswith('warm_origin_index_files ')).split()[1]
        print(f'{rows} rows: start to port open {opened - started:.2f} s, port open to /healthz 200 '
              f'{ready - opened:.3f} s, VmRSS {rss_kib // 1024} MiB', flush=True)
    finally:
        process.terminate()
        process.wait()


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    for _ in range(int(sys.argv[3]) if len(sys.argv) == 4 else 1):
        once(sys.argv[1], sys.argv[2])


if __name__ == '__main__':
    main()
