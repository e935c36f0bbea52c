#!/usr/bin/env python3
"""Two builds of warm, interleaved on the same inputs: `warm thumbnail` over the
bench corpus, `warm thumbnail` over the files `warm serve` serves, and
`warm run` against that server (fresh cache each time). For a change that must
not cost speed, where one bench/run.py against the committed report would
compare two different days.

    python3 bench/ab.py OLD_WARM NEW_WARM [REPEATS]     # after bench/run.py made /tmp/warm-bench

Prints each repeat's wall times, then per build and job the median wall time
(range) and median CPU seconds (children's user + system), and the median of
the per-repeat new/old ratios. Copy each binary somewhere first: a decode
worker is the same binary, started as /proc/self/exe."""
import glob
import resource
import shutil
import statistics
import subprocess
import sys
import time

WORK = '/tmp/warm-bench'


def timed(argv):
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - started, cpu, process.returncode


def main():
    old, new = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    corpus = sorted(glob.glob(f'{WORK}/corpus-42-240/images/*'))
    served = sorted(glob.glob(f'{WORK}/served/files/*.img'))
    builds = {'old': old, 'new': new}
    server = subprocess.Popen([new, 'serve', '--port', '0', '--products', '1336'],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    api = server.stdout.readline().decode().strip()
    # The server makes each image on its first request: one untimed run first.
    subprocess.run([new, 'run', '--api', api, '--cache-dir', '/tmp/ab-prewarm', '--size', '300', '--no-progress'],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = {}
    for repeat in range(repeats):
        for name in (['old', 'new'] if repeat % 2 == 0 else ['new', 'old']):
            warm = builds[name]
            jobs = {  # job: (output directory, made fresh each time; command)
                'thumbnail': (f'/tmp/ab-out-{name}', [warm, 'thumbnail', *corpus, '--size', '300', '--out']),
                'files-only': (f'/tmp/ab-files-{name}', [warm, 'thumbnail', *served, '--size', '300', '--out']),
                'run': (f'/tmp/ab-cache-{name}', [warm, 'run', '--api', api, '--size', '300', '--no-progress', '--cache-dir']),
            }
            for job, (directory, argv) in jobs.items():
                shutil.rmtree(directory, ignore_errors=True)
                results.setdefault((name, job), []).append(timed(argv + [directory]))
            print(repeat, name, {job: round(results[(name, job)][-1][0], 2) for job in jobs}, flush=True)
    server.terminate()
    for job in ('thumbnail', 'files-only', 'run'):
        for name in ('old', 'new'):
            walls = [r[0] for r in results[(name, job)]]
            cpus = [r[1] for r in results[(name, job)]]
            codes = {r[2] for r in results[(name, job)]}
            print(f'{job:10s} {name}: wall median {statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}), '
                  f'CPU median {statistics.median(cpus):.2f} s, exit {sorted(codes)}')
        ratios = [n[0] / o[0] for n, o in zip(results[('new', job)], results[('old', job)])]
        print(f'{job:10s} new/old wall, median of {len(ratios)} paired repeats: {statistics.median(ratios):.2f}')


if __name__ == '__main__':
    main()
