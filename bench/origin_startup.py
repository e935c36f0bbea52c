#!/usr/bin/env python3
"""Start-up time and resident memory of `warm cache serve` on a cache: from the process's start to the port
opening, and to `/healthz` answering 200 (the index loaded), then VmRSS, VmHWM (the peak so far) and the index's row
count.

  python3 bench/origin_startup.py WARM_BINARY CACHE_DIR [REPEATS]

The origin loads the whole index before it listens, so "port open to ready" is the time of one /healthz request.
Run on the admin port (--admin-port 0), as the shipped Deployment does. bench/scale_figures.py uses `start`,
`status_kib` and `metric` for synthetic caches of 10,000 to 1,000,000 rows.
"""
import subprocess, sys, time, urllib.error, urllib.request


def start(binary, cache):
    """Starts the origin and waits until /healthz answers 200: (process, admin URL, seconds to the port opening,
    seconds from there to ready). The caller terminates the process."""
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
        return process, admin, opened - started, time.monotonic() - opened
    except BaseException:
        stop(process)
        raise


def stop(process):
    process.terminate()
    process.wait()


def status_kib(pid, field):
    """`VmRSS` (resident now) or `VmHWM` (resident at its peak) from /proc/PID/status, in KiB."""
    return int(next(l for l in open(f'/proc/{pid}/status') if l.startswith(field + ':')).split()[1])


def metric(admin, name):
    text = urllib.request.urlopen(admin + '/metrics', timeout=30).read().decode()
    return next(l for l in text.splitlines() if l.startswith(name + ' ')).split()[1]


def once(binary, cache):
    process, admin, opening_seconds, ready_seconds = start(binary, cache)
    try:
        rows = metric(admin, 'warm_origin_index_files')
        print(f'{rows} rows: start to port open {opening_seconds:.2f} s, port open to /healthz 200 '
              f'{ready_seconds:.3f} s, VmRSS {status_kib(process.pid, "VmRSS") // 1024} MiB, '
              f'VmHWM {status_kib(process.pid, "VmHWM") // 1024} MiB', flush=True)
    finally:
        stop(process)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    for _ in range(int(sys.argv[3]) if len(sys.argv) == 4 else 1):
        once(sys.argv[1], sys.argv[2])


if __name__ == '__main__':
    main()
