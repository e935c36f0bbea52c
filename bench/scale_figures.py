#!/usr/bin/env python3
"""What the nightly merge and the origin cost at a given number of manifest rows, on synthetic caches, as a
markdown table (docs/scaling-out.md, "Sizes").

  python3 bench/scale_figures.py WARM_BINARY [--rows 10000,100000,1000000] [--repeats 3|3,3,1] [--steps merge,gc,export,origin]
                                 [--shards 8] [--keep DIR] [--out reports/scale-figures.md]

For each row count it makes a cache in a temporary directory (deleted afterwards): an empty manifest made by WARM_BINARY
itself (`warm cache merge` on an empty directory: the schema is whatever that binary migrates to), copied into
`shards/I-of-N/` and filled with the rows of each shard's share (LAYOUT.md, "Shards": the first 8 bytes of the
SHA-256 of the URL), two variants a URL (300.jpg and 600.jpg, as the shipped Job makes), every column filled as a
real run fills it, and with `gc` an empty file at each row's path (`gc` walks them; nothing else reads them).
Without `merge` the same rows are also written into the tree's manifest directly, as a merge leaves it. Then,
REPEATS times, the --steps asked for, in this order:

- `merge`: with the tree's manifest removed first, `warm cache merge DIR --max-cache-size 80%` as the merge CronJob
  runs it, on an empty tree (every row inserted: the first night; nothing is evicted, the rows' bytes are far below
  80% of the disk);
- `gc`, `export`: `warm cache gc DIR` and `warm cache export DIR --out FILE`, the CronJob's other steps that read
  every row; each of these three under `/usr/bin/time -v` (elapsed, user + system CPU, maximum resident set);
- `origin`: `warm cache serve DIR` (bench/origin_startup.py): time and CPU until /healthz answers 200, VmRSS and
  VmHWM then; then one row of the tree's manifest is changed by another connection, as a merge commits, and VmHWM
  is read again once the origin has reloaded its index (a reload builds the new index while the old one serves, so
  this is the peak a night's merge causes).

It prints each measurement as it goes (with /proc/loadavg's 1-minute figure when the step started), then the
medians; `--out` also writes them as a report (the command, date, machine and build, every measurement, the table).
The machine's load varies; read the load column before comparing runs.
"""
import argparse, datetime, hashlib, os, re, shutil, sqlite3, statistics, subprocess, sys, tempfile, time

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


def make_cache(binary, root, count, shards, tree, files):
    """The shards' manifests; with `tree`, the tree's manifest too, holding every row (as a merge leaves it)."""
    subprocess.run([binary, 'cache', 'merge', root], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    databases = []
    for index in range(shards):
        directory = os.path.join(root, 'shards', f'{index}-of-{shards}')
        os.makedirs(os.path.join(directory, 'tmp'))  # a shard's run makes it; the merge empties it
        shutil.copyfile(manifest_files(root)[0], os.path.join(directory, 'manifest.sqlite'))
        databases.append(sqlite3.connect(os.path.join(directory, 'manifest.sqlite')))
    if tree:
        whole = sqlite3.connect(manifest_files(root)[0])
    else:
        for path in manifest_files(root):
            os.remove(path)
    columns = [row[1] for row in databases[0].execute('PRAGMA table_info(entry)')]
    insert = f'INSERT INTO entry ({", ".join(columns)}) VALUES ({", ".join("?" * len(columns))})'
    batches = [[] for _ in databases]
    for text, values in rows(count):
        batches[share(text, shards)].append([values[column] for column in columns])
        if files:
            file = os.path.join(root, values['path'])
            os.makedirs(os.path.dirname(file), exist_ok=True)
            open(file, 'wb').close()
    for database, batch in zip(databases, batches):
        database.executemany(insert, batch)
        database.commit()
        database.close()
        if tree:
            whole.executemany(insert, batch)
    if tree:
        whole.commit()
        whole.close()


def load_average():
    return float(open('/proc/loadavg').read().split()[0])


def timed(command):
    """Runs `command` under /usr/bin/time -v: (elapsed seconds, maximum resident set in KiB, 1-minute load at start,
    user + system CPU seconds)."""
    load = load_average()
    with tempfile.NamedTemporaryFile('r') as report:
        subprocess.run(['/usr/bin/time', '-v', '-o', report.name] + command, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = report.read()
    clock = re.search(r'Elapsed \(wall clock\) time .*: (\S+)', text).group(1)
    seconds = sum(float(part) * 60 ** power for power, part in enumerate(reversed(clock.split(':'))))
    peak = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', text).group(1))
    cpu = sum(float(re.search(rf'{kind} time \(seconds\): (\S+)', text).group(1)) for kind in ('User', 'System'))
    return seconds, peak, load, cpu


def cpu_seconds(pid):
    """utime + stime of /proc/PID/stat."""
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def origin(binary, root):
    """(seconds to ready, VmRSS and VmHWM when ready, VmHWM after one reload (KiB), 1-minute load at start, CPU
    seconds to ready, VmRSS after the reload (KiB): the allocator may keep what the reload freed)."""
    load = load_average()
    process, admin, opening, ready = origin_startup.start(binary, root)
    try:
        cpu = cpu_seconds(process.pid)
        rss, hwm = origin_startup.status_kib(process.pid, 'VmRSS'), origin_startup.status_kib(process.pid, 'VmHWM')
        loaded = origin_startup.metric(admin, 'warm_origin_index_loaded_timestamp_seconds')
        if os.path.isdir(os.path.join(root, 'published')):
            # The origin reads the merge's published snapshot: the next merge publishes a new one, which it loads.
            subprocess.run([binary, 'cache', 'merge', root], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            tree = sqlite3.connect(manifest_files(root)[0])
            tree.execute('UPDATE entry SET lastAccessAt = lastAccessAt + 1 WHERE rowid = (SELECT min(rowid) FROM entry)')
            tree.commit()
            tree.close()
        deadline = time.monotonic() + 1800  # generous: a reload at a million rows on a machine at load 20
        while origin_startup.metric(admin, 'warm_origin_index_loaded_timestamp_seconds') == loaded:
            if time.monotonic() > deadline:
                sys.exit(f'{root}: the origin did not reload its index within 30 minutes of a commit')
            time.sleep(0.1)
        return (opening + ready, rss, hwm, origin_startup.status_kib(process.pid, 'VmHWM'), load, cpu,
                origin_startup.status_kib(process.pid, 'VmRSS'))
    finally:
        origin_startup.stop(process)


STEPS = ('merge, first night', 'gc', 'export')


def measure(binary, root, steps):
    figures = {}
    if 'merge' in steps:
        for path in manifest_files(root):
            if os.path.exists(path):
                os.remove(path)
        figures['merge, first night'] = timed([binary, 'cache', 'merge', root, '--max-cache-size', '80%'])
    if 'gc' in steps:
        figures['gc'] = timed([binary, 'cache', 'gc', root])
    if 'export' in steps:
        figures['export'] = timed([binary, 'cache', 'export', root, '--out', os.path.join(root, 'app-manifest.jsonl')])
    if 'origin' in steps:
        figures['origin'] = origin(binary, root)
    return figures


def mib(kib):
    return f'{kib / 1024:.0f} MiB'


def table(results):
    """One row per row count: each step's median elapsed time, CPU and peak, and the range of the load."""
    header = ['rows']
    for count, runs in results.items():
        present = [step for step in STEPS if step in runs[0]] + (['origin'] if 'origin' in runs[0] else [])
        break
    else:
        return ''
    header += [f'{step}: elapsed, CPU, peak RSS' for step in present if step != 'origin']
    if 'origin' in present:
        header += ['origin ready: elapsed, CPU', 'origin VmRSS, VmHWM ready', 'origin VmHWM, VmRSS after a reload']
    lines = ['| ' + ' | '.join(header + ['load (1 min)']) + ' |', '|' + '---:|' * (len(header) + 1)]
    for count, runs in results.items():
        cells, loads = [], []
        for step in present:
            values = [statistics.median(run[step][i] for run in runs) for i in range(len(runs[0][step]))]
            loads += [run[step][4 if step == 'origin' else 2] for run in runs]
            if step == 'origin':
                ready, rss, hwm, reload_hwm, _, cpu, reload_rss = values
                cells += [f'{ready:.1f} s, {cpu:.1f} s', f'{mib(rss)}, {mib(hwm)}', f'{mib(reload_hwm)}, {mib(reload_rss)}']
            else:
                seconds, peak, _, cpu = values
                cells.append(f'{seconds:.1f} s, {cpu:.1f} s, {mib(peak)}')
        lines.append(f'| {count:,} ({len(runs)}x) | ' + ' | '.join(cells) + f' | {min(loads):.1f} to {max(loads):.1f} |')
    return '\n'.join(lines)


def describe(count, figures):
    parts = [f'{step} {seconds:.2f} s, CPU {cpu:.2f} s, {mib(peak)} (load {load})'
             for step, (seconds, peak, load, cpu) in ((step, figures[step]) for step in STEPS if step in figures)]
    if 'origin' in figures:
        ready, rss, hwm, reload_hwm, load, cpu, reload_rss = figures['origin']
        parts.append(f'origin ready {ready:.2f} s, CPU {cpu:.2f} s, VmRSS {mib(rss)}, VmHWM {mib(hwm)}, '
                     f'VmHWM after a reload {mib(reload_hwm)}, VmRSS then {mib(reload_rss)} (load {load})')
    return f'{count:,} rows: ' + ', '.join(parts)


def report(arguments, lines, text):
    cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), 'unknown')
    memory = next(l.split(':', 1)[1].strip() for l in open('/proc/meminfo') if l.startswith('MemTotal'))
    directory = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(['git', '-C', directory, 'log', '-1', '--format=%h'], capture_output=True,
                            text=True).stdout.strip()
    return '\n'.join([
        '# Merge and origin costs by manifest rows', '',
        f'Generated by `python3 bench/scale_figures.py {" ".join(sys.argv[1:])}` on '
        f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC (bench/scale_figures.py says what it runs).', '',
        f'- Machine: {cpu}, `nproc` = {os.cpu_count()}, {memory} of memory, shared with other builds (the load column).',
        f'- Binary: `{arguments.binary}`, the worktree at commit `{commit}` when it ran.', '',
        '## Each measurement', '', '```', *lines, '```', '', '## Medians', '', text, ''])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('binary')
    parser.add_argument('--rows', default='10000,100000,1000000')
    parser.add_argument('--repeats', default='3', help='one count, or one per row count (3,3,1)')
    parser.add_argument('--shards', type=int, default=8)
    parser.add_argument('--steps', default='merge,gc,export,origin', help='some of merge, gc, export, origin')
    parser.add_argument('--keep', help='make the caches under this directory and keep them')
    parser.add_argument('--out', help='also write the figures as a markdown report to this file')
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    results, lines = {}, []
    if arguments.keep:
        os.makedirs(arguments.keep, exist_ok=True)
    counts = [int(text) for text in arguments.rows.split(',')]
    repeats = [int(text) for text in arguments.repeats.split(',')]
    for count, repeat in zip(counts, repeats * len(counts) if len(repeats) == 1 else repeats):
        root = tempfile.mkdtemp(prefix=f'warm-scale-{count}-', dir=arguments.keep)
        try:
            started = time.monotonic()
            steps = arguments.steps.split(',')
            make_cache(binary, root, count, arguments.shards, tree='merge' not in steps, files='gc' in steps)
            lines.append(f'{count:,} rows: made in {time.monotonic() - started:.0f} s')
            print(lines[-1], file=sys.stderr, flush=True)
            results[count] = []
            for _ in range(repeat):
                figures = measure(binary, root, steps)
                results[count].append(figures)
                lines.append(describe(count, figures))
                print(lines[-1], file=sys.stderr, flush=True)
        finally:
            if not arguments.keep:
                shutil.rmtree(root)
    text = table(results)
    print(text)
    if arguments.out:
        with open(arguments.out, 'w') as out:
            out.write(report(arguments, lines, text))


if __name__ == '__main__':
    main()
