#!/usr/bin/env python3
"""What the nightly merge and the origin cost at a given number of manifest rows, on synthetic caches, as a
markdown table (docs/scaling-out.md, "Sizes").

  python3 bench/scale_figures.py WARM_BINARY [--rows 10000,100000,1000000] [--repeats 3] [--shards 8] [--keep DIR]

For each row count it makes a cache in a temporary directory (deleted afterwards): an empty manifest made by WARM_BINARY
itself (`warm cache merge` on an empty directory: the schema is whatever that binary migrates to), copied into
`shards/I-of-N/` and filled with the rows of each shard's share (LAYOUT.md, "Shards": the first 8 bytes of the
SHA-256 of the URL), two variants a URL (300.jpg and 600.jpg, as the shipped Job makes), every column filled as a
real run fills it, and an empty file at each row's path (`gc` walks them; nothing else reads them). Then, REPEATS
times, with the tree's manifest removed first:

- `warm cache merge DIR --max-cache-size 80%` as the merge CronJob runs it, on an empty tree (every row inserted:
  the first night; nothing is evicted, the rows' bytes are far below 80% of the disk), then once more (every row
  unchanged: a night where nothing changed), then `warm cache gc DIR` and `warm cache export DIR --out FILE`, the
  CronJob's other steps that read every row; each under `/usr/bin/time -v` (elapsed, maximum resident set);
- `warm cache serve DIR` (bench/origin_startup.py): time until /healthz answers 200, VmRSS and VmHWM then; then one
  shard row is made newer and merged, and VmHWM is read again once the origin has reloaded its index (a reload
  builds the new index while the old one serves, so this is the peak a night's publish causes).

It prints each measurement as it goes (with /proc/loadavg's 1-minute figure when the step started), then the
medians. The machine's load varies; read the load column before comparing runs.
"""
import argparse, hashlib, os, re, shutil, sqlite3, statistics, subprocess, sys, tempfile, time

import origin_startup

# (variant, outputBytes, outputWidth, outputHeight): 300 and 600 px JPEGs, sizes of the order the demo catalog gives.
VARIANTS = (('300.jpg', 20_000, 300, 225), ('600.jpg', 52_000, 600, 450))
NOW = 1_795_000_000.0  # a fixed time, so two runs make the same manifests


def url(image):
    return f'https://img.synthetic.test/catalog/products/{image}/main.jpg'


def share(text, count):
    """CacheShard.share: floor(h * N / 2^64) of the first 8 bytes of the URL's SHA-256, big-endian."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], 'big') * count >> 64


def relative_path(text, variant):
    digest = hashlib.sha256(f'{text}\n{variant}'.encode()).hexdigest()
    return f'v1/{digest[:2]}/{digest[2:4]}/{digest}.{variant.split(".")[1]}'


def rows(count):
    """(share key URL, column values by name) for `count` rows, two variants per URL."""
    for n in range(count):
        image, (variant, output_bytes, width, height) = n // 2, VARIANTS[n % 2]
        text = url(image)
        path = relative_path(text, variant)
        yield text, {
            'url': text, 'variant': variant, 'productIds': f'[{image}]', 'path': path,
            'etag': f'"{image:016x}"', 'lastModified': 'Mon, 23 Nov 2026 10:00:00 GMT', 'sourceBytes': 150_000,
            'sourceFormat': 'jpeg', 'sourceWidth': 1200, 'sourceHeight': 900, 'outputBytes': output_bytes,
            'outputWidth': width, 'outputHeight': height, 'fetchedAt': NOW, 'expiresAt': NOW + 43_200,
            'lastAccessAt': NOW, 'lastError': None, 'failedAt': None, 'lastListedAt': NOW,
            'thumbHash': hashlib.sha256(text.encode()).digest()[:25], 'averageColor': '#8a7b6c',
            'sha256': hashlib.sha256(path.encode()).hexdigest(), 'fileInode': 1_000 + n,
            'fileModifiedAtNanoseconds': int(NOW) * 1_000_000_000 + n,
        }


def manifest_files(root):
    return [os.path.join(root, 'manifest.sqlite' + suffix) for suffix in ('', '-wal', '-shm')]


def make_cache(binary, root, count, shards):
    subprocess.run([binary, 'cache', 'merge', root], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    databases = []
    for index in range(shards):
        directory = os.path.join(root, 'shards', f'{index}-of-{shards}')
        os.makedirs(os.path.join(directory, 'tmp'))  # a shard's run makes it; the merge empties it
        shutil.copyfile(manifest_files(root)[0], os.path.join(directory, 'manifest.sqlite'))
        databases.append(sqlite3.connect(os.path.join(directory, 'manifest.sqlite')))
    for path in manifest_files(root):
        os.remove(path)
    columns = [row[1] for row in databases[0].execute('PRAGMA table_info(entry)')]
    insert = f'INSERT INTO entry ({", ".join(columns)}) VALUES ({", ".join("?" * len(columns))})'
    batches = [[] for _ in databases]
    for text, values in rows(count):
        batches[share(text, shards)].append([values[column] for column in columns])
        file = os.path.join(root, values['path'])
        os.makedirs(os.path.dirname(file), exist_ok=True)
        open(file, 'wb').close()
    for database, batch in zip(databases, batches):
        database.executemany(insert, batch)
        database.commit()
        database.close()


def load_average():
    return float(open('/proc/loadavg').read().split()[0])


def timed(command):
    """Runs `command` under /usr/bin/time -v: (elapsed seconds, maximum resident set in KiB, 1-minute load at start)."""
    load = load_average()
    with tempfile.NamedTemporaryFile('r') as report:
        subprocess.run(['/usr/bin/time', '-v', '-o', report.name] + command, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = report.read()
    clock = re.search(r'Elapsed \(wall clock\) time .*: (\S+)', text).group(1)
    seconds = sum(float(part) * 60 ** power for power, part in enumerate(reversed(clock.split(':'))))
    peak = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', text).group(1))
    return seconds, peak, load


def origin(binary, root, shards):
    """(seconds to ready, VmRSS and VmHWM when ready, VmHWM after one reload (KiB), 1-minute load at start)."""
    load = load_average()
    process, admin, opening, ready = origin_startup.start(binary, root)
    try:
        rss, hwm = origin_startup.status_kib(process.pid, 'VmRSS'), origin_startup.status_kib(process.pid, 'VmHWM')
        loaded = origin_startup.metric(admin, 'warm_origin_index_loaded_timestamp_seconds')
        shard = sqlite3.connect(os.path.join(root, 'shards', f'0-of-{shards}', 'manifest.sqlite'))
        shard.execute('UPDATE entry SET fetchedAt = fetchedAt + 1 WHERE rowid = (SELECT min(rowid) FROM entry)')
        shard.commit()
        shard.close()
        subprocess.run([binary, 'cache', 'merge', root], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 600  # a reload at a million rows on a loaded machine takes seconds, not minutes
        while origin_startup.metric(admin, 'warm_origin_index_loaded_timestamp_seconds') == loaded:
            if time.monotonic() > deadline:
                sys.exit(f'{root}: the origin did not reload its index within 10 minutes of a merge')
            time.sleep(0.1)
        return opening + ready, rss, hwm, origin_startup.status_kib(process.pid, 'VmHWM'), load
    finally:
        origin_startup.stop(process)


STEPS = ('merge, first night', 'merge, nothing changed', 'gc', 'export')


def measure(binary, root, shards):
    for path in manifest_files(root):
        if os.path.exists(path):
            os.remove(path)
    merge = [binary, 'cache', 'merge', root, '--max-cache-size', '80%']
    figures = {
        'merge, first night': timed(merge),
        'merge, nothing changed': timed(merge),
        'gc': timed([binary, 'cache', 'gc', root]),
        'export': timed([binary, 'cache', 'export', root, '--out', os.path.join(root, 'app-manifest.jsonl')]),
    }
    figures['origin'] = origin(binary, root, shards)
    return figures


def mib(kib):
    return f'{kib / 1024:.0f} MiB'


def table(results):
    lines = [
        '| rows | merge, first night | merge, nothing changed | gc | export | origin ready | origin VmRSS ready '
        '| origin VmHWM ready | origin VmHWM after a reload | load (1 min) |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ]
    for count, runs in results.items():
        cells, loads = [], []
        for step in STEPS:
            seconds, peak, load = (statistics.median(run[step][i] for run in runs) for i in range(3))
            loads += [run[step][2] for run in runs]
            cells.append(f'{seconds:.2f} s, {mib(peak)}')
        ready, rss, hwm, reload_hwm = (statistics.median(run['origin'][i] for run in runs) for i in range(4))
        loads += [run['origin'][4] for run in runs]
        cells += [f'{ready:.2f} s', mib(rss), mib(hwm), mib(reload_hwm), f'{min(loads):.1f} to {max(loads):.1f}']
        lines.append(f'| {count:,} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('binary')
    parser.add_argument('--rows', default='10000,100000,1000000')
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--shards', type=int, default=8)
    parser.add_argument('--keep', help='make the caches under this directory and keep them')
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    results = {}
    if arguments.keep:
        os.makedirs(arguments.keep, exist_ok=True)
    for count in (int(text) for text in arguments.rows.split(',')):
        root = tempfile.mkdtemp(prefix=f'warm-scale-{count}-', dir=arguments.keep)
        try:
            started = time.monotonic()
            make_cache(binary, root, count, arguments.shards)
            print(f'{count:,} rows: made in {time.monotonic() - started:.0f} s', file=sys.stderr, flush=True)
            results[count] = []
            for _ in range(arguments.repeats):
                figures = measure(binary, root, arguments.shards)
                results[count].append(figures)
                print(f'{count:,} rows: ' + ', '.join(
                    f'{step} {seconds:.2f} s {mib(peak)} (load {load})' for step, (seconds, peak, load)
                    in ((step, figures[step]) for step in STEPS)) + ', origin ready {:.2f} s, VmRSS {}, VmHWM {}, '
                    'after a reload {} (load {})'.format(figures['origin'][0], *map(mib, figures['origin'][1:4]),
                                                          figures['origin'][4]), file=sys.stderr, flush=True)
        finally:
            if not arguments.keep:
                shutil.rmtree(root)
    print(table(results))


if __name__ == '__main__':
    main()
