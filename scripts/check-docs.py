#!/usr/bin/env python3
"""Check README.md and docs/*.md.

  python3 scripts/check-docs.py                 every relative link resolves to an existing file,
                                                and every #anchor to a heading of that file; README.md
                                                is at most 5,000 characters; neither README.md nor
                                                docs/*.md holds a /tmp/ path or a commit hash (a
                                                hexadecimal word of 7-40 characters that git knows as
                                                a commit: provenance lives in reports/, the lab notes
                                                in bench/findings.md)
  python3 scripts/check-docs.py --root DIR --skip-links
                                                the length and provenance checks on DIR's README.md and
                                                docs/ (commits are still looked up in this repository)
  python3 scripts/check-docs.py --moved-from REV  also: every heading, every number and every
                                                paragraph/list item/table row of README.md at REV
                                                is still in README.md or docs/*.md

Exit status 1 when something is missing. Links to docs/architecture.md are reported but
allowed while that page does not exist yet (--allow-missing).
"""
import argparse, glob, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY = ROOT
README_LIMIT = 5000


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    h = re.sub(r'`', '', heading.strip().lower())
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')


def anchors(path):
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r'^#+ (.+)$', text, flags=re.M)}


def pages():
    return [os.path.join(ROOT, 'README.md')] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))


def check_links(allow_missing):
    bad, allowed, count = [], [], 0
    for page in pages():
        text = re.sub(r'```.*?```', '', open(page, encoding='utf-8').read(), flags=re.S)
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'[a-z]+:', target):
                continue  # http(s), mailto: not checked (no network)
            count += 1
            file_part, _, anchor = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
            where = f'{os.path.relpath(page, ROOT)}: {target}'
            if not os.path.exists(resolved):
                (allowed if os.path.relpath(resolved, ROOT) in allow_missing else bad).append(where + ' (no such file)')
            elif anchor and resolved.endswith('.md') and anchor not in anchors(resolved):
                bad.append(where + ' (no such heading)')
    print(f'links: {count} relative links checked, {len(bad)} broken, {len(allowed)} allowed placeholders')
    for line in allowed:
        print('  placeholder:', line)
    for line in bad:
        print('  BROKEN:', line)
    return not bad


def normalise(text):
    text = re.sub(r'\]\([^)]*\)', ']', text)  # link targets change when text moves
    return re.sub(r'\s+', ' ', text).strip()


def known_commits(words):
    """The words git resolves to a commit of this repository (fails when there is no git checkout)."""
    if not words:
        return set()
    found = subprocess.run(['git', 'rev-parse', '--git-dir'], cwd=REPOSITORY, capture_output=True)
    if found.returncode != 0:
        sys.exit('check-docs: cannot look commit hashes up: ' + REPOSITORY + ' is not a git checkout')
    batch = subprocess.run(['git', 'cat-file', '--batch-check'], cwd=REPOSITORY, capture_output=True, text=True,
                           input=''.join(w + '^{commit}\n' for w in words)).stdout.splitlines()
    return {w for w, line in zip(words, batch) if not line.endswith('missing') and 'ambiguous' not in line}


def check_provenance():
    """README.md's length, and no scratch path or commit hash in README.md or docs/."""
    ok = True
    size = len(open(os.path.join(ROOT, 'README.md'), encoding='utf-8').read())
    print(f'README.md: {size} characters (at most {README_LIMIT})')
    if size > README_LIMIT:
        print(f'  TOO LONG: README.md has {size - README_LIMIT} characters over {README_LIMIT}')
        ok = False
    hits = []
    for page in pages():
        for number, line in enumerate(open(page, encoding='utf-8'), start=1):
            where = f'{os.path.relpath(page, ROOT)}:{number}'
            hits += [(where, 'a /tmp/ path', m) for m in re.findall(r'/tmp/\S*', line)]
            hits += [(where, None, w) for w in re.findall(r'\b[0-9a-f]{7,40}\b', line)]
    commits = known_commits(sorted({w for _, kind, w in hits if kind is None}))
    bad = [(where, kind or 'a commit hash', w) for where, kind, w in hits if kind or w in commits]
    print(f'provenance: {len(bad)} /tmp/ paths or commit hashes in README.md and docs/')
    for where, kind, w in bad:
        print(f'  SCRATCH: {where}: {kind} ({w})')
    return ok and not bad


def check_moved(rev):
    old = subprocess.run(['git', 'show', f'{rev}:README.md'], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    new = '\n'.join(open(p, encoding='utf-8').read() for p in pages())
    new_norm = normalise(new)
    ok = True

    headings = re.findall(r'^#+ (.+)$', re.sub(r'```.*?```', '', old, flags=re.S), flags=re.M)
    new_headings = [h.lower() for h in re.findall(r'^#+ (.+)$', new, flags=re.M)]
    lost = [h for h in headings if not any(h.lower() in n for n in new_headings)]
    print(f'headings: {len(headings)} in README at {rev}, {len(lost)} not found as (part of) a heading now')
    for h in lost:
        print('  MISSING heading:', h)
    ok &= not lost

    number = r'(?<![\w.])\d[\d,]*(?:\.\d+)?'
    old_numbers = set(re.findall(number, old))
    new_numbers = set(re.findall(number, new))
    lost = sorted(old_numbers - new_numbers, key=lambda s: (len(s), s))
    print(f'numbers: {len(old_numbers)} distinct in README at {rev}, {len(lost)} not found now')
    for n in lost:
        print('  MISSING number:', n)
    ok &= not lost

    # paragraphs, list items and table rows, each as one unit; code lines one by one
    units, buf, in_code = [], [], False
    for line in old.split('\n'):
        if line.startswith('```'):
            in_code = not in_code
            continue
        if in_code:
            if line.strip():
                units.append(line)
            continue
        if line.startswith('#'):
            continue
        if not line.strip() or re.match(r'\s*(- |\|)', line):
            if buf:
                units.append(' '.join(buf)); buf = []
            if line.strip():
                buf = [line]
                if line.lstrip().startswith('|'):
                    units.append(line); buf = []
            continue
        buf.append(line)
    if buf:
        units.append(' '.join(buf))
    lost = [u for u in units if normalise(u) not in new_norm]
    print(f'text: {len(units)} paragraphs, list items, table rows and code lines in README at {rev}, '
          f'{len(lost)} not found word for word now (link targets ignored)')
    for u in lost:
        print('  CHANGED:', normalise(u)[:160])
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--moved-from', metavar='REV')
    parser.add_argument('--root', metavar='DIR')
    parser.add_argument('--skip-links', action='store_true')
    parser.add_argument('--allow-missing', action='append', default=['docs/architecture.md'])
    args = parser.parse_args()
    if args.root:
        global ROOT
        ROOT = os.path.abspath(args.root)
    ok = True if args.skip_links else check_links(set(args.allow_missing))
    ok &= check_provenance()
    if args.moved_from:
        ok &= check_moved(args.moved_from)
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
