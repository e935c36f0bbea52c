#!/usr/bin/env python3
"""Checks, without a Docker daemon, that the Dockerfile builds from a clean clone.

1. Copies into an empty directory exactly what the build stage's COPY lines name, taking only files git tracks
   (a clean clone has nothing else: no Package.resolved, no .build/).
2. Runs `swift package describe` there: SwiftPM loads the manifest and checks every target's folder, so a COPY
   that leaves out a folder Package.swift names (Tests/Support, the test targets) fails here in a second.
3. With --build, also runs the build stage's own `swift build ...` command in that copy (release, static Swift
   standard library: several minutes) and compares the binary's shared libraries (ldd) with what the runtime
   stage installs: each must come from a Debian package that the runtime stage's `apt-get install` brings,
   directly or through dependencies.

   --keep-binary PATH copies that release binary to PATH (.ci/run checks the committed baseline with it).

Usage: scripts/check-docker-context.py [--dockerfile PATH] [--build [--keep-binary PATH]]
       (exit 0: fine; 1: each problem printed)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
problems = []


def argument(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def stages(text):
    """The Dockerfile's stages as lists of instructions (continuation lines joined)."""
    joined = re.sub(r"\\\n", " ", text)
    result = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            result.append([])
        if result:
            result[-1].append(line)
    return result


def tracked(path):
    """Files git tracks at `path` (a file or a folder), relative to the repository."""
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", path], capture_output=True, text=True)
    return [name for name in out.stdout.split("\0") if name]


def copy_context(build_stage, into):
    """Copies what the build stage's COPY lines (not --from) name; returns the paths copied."""
    copied = []
    for line in build_stage:
        words = shlex.split(line)
        if words[0].upper() != "COPY" or any(word.startswith("--from") for word in words):
            continue
        sources, destination = [w for w in words[1:-1] if not w.startswith("--")], words[-1]
        for source in sources:
            files = tracked(source)
            if not files:
                problems.append(f"Dockerfile: COPY {source}: git does not track it (ignored or untracked), "
                                "so a clean clone has none and the build fails")
                continue
            for name in files:
                if name == source:  # a file: into the destination folder, or as the destination
                    target = Path(destination) / Path(name).name if destination.endswith("/") or len(sources) > 1 \
                        else Path(destination)
                else:  # a folder: its contents into the destination
                    target = Path(destination) / Path(name).relative_to(source)
                (into / target).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, into / target)
                copied.append(str(target))
    return copied


def build_command(build_stage):
    """The build stage's `swift build ...` arguments (the first such command)."""
    for line in build_stage:
        if line.upper().startswith("RUN "):
            match = re.search(r"swift build ([^&;|]+)", line)
            if match:
                return shlex.split(match.group(1))
    return None


def package_of(path):
    """The Debian package that ships `path` (merged /usr: either spelling), or None."""
    real = os.path.realpath(path)
    candidates = {path, real}
    for name in list(candidates):
        if name.startswith("/usr/lib/"):
            candidates.add(name[len("/usr"):])
        elif name.startswith("/lib"):
            candidates.add("/usr" + name)
    for name in candidates:
        out = subprocess.run(["dpkg", "-S", name], capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout.split(":")[0].strip()
    return None


def runtime_closure(runtime_stage):
    """What the runtime stage's apt-get install brings: the packages and their dependencies, recursively."""
    installs = [w for line in runtime_stage for m in re.findall(r"apt-get install ([^&]+)", line)
                for w in m.split() if not w.startswith("-")]
    out = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                          "--no-breaks", "--no-replaces", "--no-enhances", *installs], capture_output=True, text=True)
    if out.returncode != 0:
        problems.append(f"apt-cache depends failed for {installs}: {out.stderr.strip()}")
    names = {line.strip() for line in out.stdout.splitlines() if line and not line.startswith(" ")}
    return installs, {name.split(":")[0] for name in names if not name.startswith("<")}


def check_libraries(binary, runtime_stage):
    installs, closure = runtime_closure(runtime_stage)
    out = subprocess.run(["ldd", binary], capture_output=True, text=True)
    libraries = re.findall(r"(?:=>\s*)?(/\S+)\s+\(0x", out.stdout)
    needed = {}
    for library in libraries:
        package = package_of(library)
        if package is None:
            problems.append(f"{binary} needs {library}, which no Debian package ships (the runtime image cannot have it)")
        else:
            needed.setdefault(package, []).append(os.path.basename(library))
    for package, names in sorted(needed.items()):
        if package not in closure:
            problems.append(f"Dockerfile: the runtime stage does not install {package} ({', '.join(names)}), "
                            f"neither directly nor through {', '.join(installs)}")
    print(f"check-docker-context: {len(libraries)} shared libraries from {len(needed)} packages "
          f"({', '.join(sorted(needed))}), all brought by {' '.join(installs)}" if not problems else "")


def check_release_status(binary):
    """The release build, not only the debug one the tests drive, reports a dead API as a failure: a release-only
    miscompile once lost the crawl's failure and exited 0 with success (bench/findings.md, issue 34)."""
    with tempfile.TemporaryDirectory(prefix="warm-release-status.") as cache:
        run = subprocess.run([binary, "run", "--api", "http://127.0.0.1:9", "--cache-dir", cache, "--no-progress",
                              "--prometheus-file", os.path.join(cache, "warm.prom")], capture_output=True, text=True)
        summary = Path(cache, "last-run.json").read_text() if Path(cache, "last-run.json").exists() else ""
        prom = Path(cache, "warm.prom").read_text() if Path(cache, "warm.prom").exists() else ""
        if run.returncode != 6 or '"success" : false' not in summary or "warm_last_run_success 0" not in prom:
            problems.append(f"the release build against a dead API exited {run.returncode} (expected 6) with "
                            f"summary {summary[:200]!r} and {'warm_last_run_success 0' in prom=}")


def main():
    dockerfile = Path(argument("--dockerfile", ROOT / "Dockerfile"))
    parsed = stages(dockerfile.read_text())
    if len(parsed) != 2:
        print(f"check-docker-context: expected a build and a runtime stage, found {len(parsed)}")
        return 1
    build_stage, runtime_stage = parsed
    context = Path(tempfile.mkdtemp(prefix="warm-docker-context."))
    try:
        copied = copy_context(build_stage, context)
        described = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=context,
                                   capture_output=True, text=True)
        if described.returncode != 0:
            problems.append("the files the Dockerfile copies are not a package SwiftPM can load: "
                            + described.stderr.strip())
        elif '"warm"' not in described.stdout:
            problems.append("the copied package has no product warm")
        if "--build" in sys.argv and not problems:
            command = build_command(build_stage)
            if command is None:
                problems.append("Dockerfile: the build stage runs no `swift build`")
            else:
                started = time.monotonic()
                built = subprocess.run(["swift", "build", *command], cwd=context)
                print(f"check-docker-context: swift build {' '.join(command)} in the copy took "
                      f"{time.monotonic() - started:.0f} s")
                if built.returncode != 0:
                    problems.append(f"swift build {' '.join(command)} fails in a copy of what the Dockerfile copies")
                else:
                    configuration = [w for w in command if w in ("-c", "release", "debug")]
                    path = subprocess.run(["swift", "build", *configuration, "--show-bin-path"], cwd=context,
                                          capture_output=True, text=True).stdout.strip()
                    check_libraries(os.path.join(path, "warm"), runtime_stage)
                    check_release_status(os.path.join(path, "warm"))
                    keep = argument("--keep-binary")
                    if keep:  # the image's own binary, for .ci/run's regression check on a release build
                        shutil.copy2(os.path.join(path, "warm"), keep)
    finally:
        shutil.rmtree(context, ignore_errors=True)
    for problem in problems:
        print(f"check-docker-context: {problem}")
    if not problems:
        print(f"check-docker-context: {len(copied)} files copied as the Dockerfile copies them make a package "
              f"SwiftPM loads{' and builds' if '--build' in sys.argv else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
