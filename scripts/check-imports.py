#!/usr/bin/env python3
"""Checks every Swift import under Sources/ against docs/source-layout.md's table "Modules and what each may import".

A module may import the modules of its row and those of the "(every module)" row. Fails (exit 1) on an import the
table does not allow, on a folder under Sources/ with Swift files that no row names, and on a row whose folder is
gone; prints each with its file and line. The table is the only list: this script holds none.

Also reads the page's line "Kept out of production: DEMO, imported neither directly nor through another module by
A, B, C." and fails if the table lets A, B or C reach DEMO, directly or through the rows of the modules they may
import (so production code never links the demo catalog), or if the line is missing.

Also fails on any use of Foundation's `Process` in Sources/ or Tests/: processes start through `ChildProcess`.

Also reads the fast tier's test targets from scripts/test-fast (its line `targets=(...)`) and fails if a test file
in one of them starts a process or a server, or sleeps: the names in FAST_TIER_REFUSES, outside comments.

Usage: scripts/check-imports.py [--root DIR]   (DIR: a checkout; default: this script's)
"""
import argparse
import pathlib
import re
import sys

HEADING = "## Modules and what each may import"
EVERY = "(every module)"
KEPT_OUT = re.compile(r"^Kept out of production: (\w+), imported neither directly nor through another module by (.+)\.$",
                      re.M)
# `import X`, `import X.Y`, `@testable import X`, `public import X`, `import struct X.Y`, after indentation.
# `Process()`, `Process.run(...)`, `Foundation.Process`; not `ChildProcess(`, `ProcessInfo`, `x.Process(`.
FOUNDATION_PROCESS = re.compile(r"(?<![\w.])Process\s*(?:\(|\.run\b)|\bFoundation\.Process\b")
FAST_TARGETS = re.compile(r"^targets=\(([^)]*)\)$", re.M)
# What a test needing a process, a server or a sleep names; such a test belongs in a target of the slow tier.
FAST_TIER_REFUSES = re.compile(r"\b(?:ChildProcess|WarmBinary|TestCatalog|CatalogServer|OriginHarness|OriginServer|"
                               r"usleep|sleep|import\s+(?:Hummingbird|AsyncHTTPClient|Servers|DemoCatalog))\b")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def read_table(doc):
    """{folder: (module, allowed set)} and the set every module may import, from the doc's table."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index(HEADING)
    except ValueError:
        sys.exit(f"{doc}: no heading {HEADING!r}")
    rows, every = {}, set()
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("module", "") or set(cells[0]) <= set("-: "):
            continue
        module, folder, allowed = cells
        names = {name.strip() for name in allowed.split(",") if name.strip()}
        if module == EVERY:
            every |= names
        else:
            rows[folder] = (module, names)
    if not rows:
        sys.exit(f"{doc}: the table under {HEADING!r} has no rows")
    return rows, every


def kept_out_of_production(doc, rows):
    """Problems with the page's "Kept out of production" line: a production row that reaches the demo module."""
    match = KEPT_OUT.search(doc.read_text(encoding="utf-8"))
    if not match:
        return [f"{doc.name}: no line 'Kept out of production: MODULE, imported neither directly nor through another "
                f"module by A, B.'"]
    demo = match.group(1)
    production = [name.strip() for name in match.group(2).split(",") if name.strip()]
    allowed = {module: names for module, names in rows.values()}
    problems = [f"{doc.name}: '{name}' is kept from {demo} but has no row in the table"
                for name in [demo] + production if name not in allowed]
    for module in (name for name in production if name in allowed):
        # Breadth-first over the table's rows; `through[m]` is the module whose row let `module` reach m.
        through, queue = {}, [module]
        while queue:
            current = queue.pop(0)
            for name in sorted(allowed.get(current, ())):
                if name not in through and name != module:
                    through[name] = current
                    queue.append(name)
        if demo in through:
            path, step = [demo], demo
            while step != module:
                step = through[step]
                path.append(step)
            problems.append(f"{doc.name}: {module} may reach {demo} ({' -> '.join(reversed(path))}); "
                            f"{demo} is kept out of production")
    return problems


def foundation_processes(root):
    """file:line of each use of Foundation's Process under Sources/ and Tests/, comments left out."""
    found = []
    for top in ("Sources", "Tests"):
        for file in sorted((root / top).rglob("*.swift")):
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                if FOUNDATION_PROCESS.search(line.split("//", 1)[0]):
                    found.append(f"{file.relative_to(root)}:{number}: Foundation's Process; start processes with "
                                 f"ChildProcess (Process crashes on Linux in Swift 6.3.1: swift-corelibs-foundation#5472)")
    return found


def fast_tier_problems(root):
    """file:line of each process, server or sleep in the fast tier's test targets."""
    match = FAST_TARGETS.search((root / "scripts/test-fast").read_text(encoding="utf-8"))
    if not match:
        return ["scripts/test-fast: no line 'targets=(...)'"], 0
    targets = match.group(1).split()
    found = []
    for target in targets:
        folder = root / "Tests" / target
        if not folder.is_dir():
            found.append(f"scripts/test-fast: {target} is not a folder under Tests/")
        for file in sorted(folder.rglob("*.swift")):
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                hit = FAST_TIER_REFUSES.search(line.split("//", 1)[0])
                if hit:
                    found.append(f"{file.relative_to(root)}:{number}: '{hit.group(0)}' in the fast tier "
                                 f"(scripts/test-fast); move the test to a target of the slow tier")
    return found, len(targets)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    root = parser.parse_args().root.resolve()
    rows, every = read_table(root / "docs/source-layout.md")
    problems, checked = [], 0
    for folder in sorted(p for p in (root / "Sources").iterdir() if p.is_dir()):
        files = sorted(folder.rglob("*.swift"))
        if not files:
            continue  # C modules and module maps
        key = f"Sources/{folder.name}"
        if key not in rows:
            problems.append(f"{key}: a Swift module that docs/source-layout.md's table does not list")
            continue
        module, allowed = rows[key]
        for file in files:
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                match = IMPORT.match(line)
                if not match:
                    continue
                checked += 1
                name = match.group(1)
                if name != module and name not in allowed and name not in every:
                    problems.append(f"{file.relative_to(root)}:{number}: {module} may not import {name} "
                                    f"(docs/source-layout.md allows: {', '.join(sorted(allowed))})")
    for folder in sorted(rows):
        if not (root / folder).is_dir():
            problems.append(f"{folder}: in docs/source-layout.md's table, but not a folder")
    problems += kept_out_of_production(root / "docs/source-layout.md", rows)
    processes = foundation_processes(root)
    fast, fast_targets = fast_tier_problems(root)
    for problem in problems + processes + fast:
        print(problem)
    print(f"imports: {checked} checked in {len(rows)} modules, {len(problems)} not allowed by docs/source-layout.md")
    print(f"processes: {len(processes)} started through Foundation's Process under Sources/ and Tests/")
    print(f"fast tier: {len(fast)} processes, servers or sleeps in its {fast_targets} test targets")
    return 1 if problems or processes or fast else 0


if __name__ == "__main__":
    sys.exit(main())
