#!/usr/bin/env python3
"""Make a cache directory whose manifest holds ROWS rows, for measuring what the origin costs per row.

  python3 bench/synthetic_manifest.py SOURCE_CACHE DEST_CACHE ROWS

Copies SOURCE_CACHE's manifest.sqlite (a real cache: `warm demo` makes one) into DEST_CACHE and adds rows until it
holds ROWS rows that name a file, each a copy of one real row under a new URL
(https://img.synthetic.test/p/<n>.jpg), with the path the cache would give it (SHA-256 of the URL and variant) and the
validators of the template row. No thumbnail files are written: `warm cache serve` loads every row into its index at
start, and answers 404 for a synthetic row's thumbnail (its file is absent). WAL mode, as the origin requires.
"""
import hashlib, os, shutil, sqlite3, sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, destination, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(destination, exist_ok=True)
    manifest = os.path.join(destination, 'manifest.sqlite')
    # A consistent copy through SQLite's backup API, whatever the source's WAL holds.
    with sqlite3.connect(os.path.join(source, 'manifest.sqlite')) as src, sqlite3.connect(manifest) as dst:
        src.backup(dst)
    db = sqlite3.connect(manifest)
    db.execute('PRAGMA journal_mode=WAL')
    columns = [row[1] for row in db.execute('PRAGMA table_info(entry)')]
    template = db.execute("SELECT * FROM entry WHERE path IS NOT NULL AND variant LIKE '%.jpg' LIMIT 1").fetchone()
    if template is None:
        sys.exit(f'{source}: no JPEG row to copy')
    have = db.execute('SELECT count(*) FROM entry WHERE path IS NOT NULL').fetchone()[0]
    url_at, variant_at, path_at = columns.index('url'), columns.index('variant'), columns.index('path')
    variant = template[variant_at]
    insert = f'INSERT INTO entry ({", ".join(columns)}) VALUES ({", ".join("?" * len(columns))})'
    batch = []
    for n in range(max(0, rows - have)):
        url = f'https://img.synthetic.test/p/{n}.jpg'
        digest = hashlib.sha256((url + '\n' + variant).encode()).hexdigest()
        row = list(template)
        row[url_at], row[path_at] = url, f'v1/{digest[:2]}/{digest[2:4]}/{digest}.{variant.split(".")[1]}'
        batch.append(row)
        if len(batch) == 10_000:
            db.executemany(insert, batch)
            batch.clear()
    db.executemany(insert, batch)
    db.commit()
    total = db.execute('SELECT count(*) FROM entry WHERE path IS NOT NULL').fetchone()[0]
    db.close()
    print(f'{manifest}: {total} rows that name a file')


if __name__ == '__main__':
    main()
