#!/usr/bin/env bash
# Bounded fuzzing of warm's parsers of untrusted bytes, with libFuzzer through
# Swift's -sanitize=fuzzer (and AddressSanitizer):
#   PageParserFuzzer   a product list page body -> ProductPage.decode (both
#                      shapes), the page count, each thumbnail URL -> CanonicalURL
#   ImageHeaderFuzzer  a downloaded body -> ImageSource (sniffing, libvips'
#                      header read, limits, EXIF orientation with libexif) and
#                      ExifReader's WebP/PNG chunk parsing
# The fuzzers live in fuzz/, a separate package that compiles the main
# package's source files (symbolic links), so the main build is untouched.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 60)
#        scripts/fuzz.sh --runs N    a fixed number of inputs per fuzzer instead (CI: .ci/run)
#        FUZZ_WORK_DIR=/tmp/warm-fuzz   where corpora, crashes and the build go
#        FUZZ_TARGETS="PageParserFuzzer"   only some fuzzers
# Every input in fuzz/regressions/<fuzzer>/ (past crashes) is run once first,
# then fuzzing starts from the seeds and those inputs.
# Exit status: 0 when nothing was found, 1 when a fuzzer crashed (a past crash
# input again, or a new one: its artifact is printed in base64 when small).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--runs" ]; then
    [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: scripts/fuzz.sh --runs N" >&2; exit 2; }
    limit=(-runs="$2")
    budget="$2 inputs"
else
    seconds=${1:-60}
    limit=(-max_total_time="$seconds")
    budget="${seconds}s"
fi
work=${FUZZ_WORK_DIR:-/tmp/warm-fuzz}
mkdir -p "$work"
# Leaks are not checked: libvips and GLib keep process-wide caches that
# LeakSanitizer would report at exit.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
# The Swift runtime's backtracer would take the crash signal from libFuzzer.
export SWIFT_BACKTRACE=enable=no

echo "== building the fuzzers (debug, -sanitize=fuzzer,address)"
# ld.gold warns once per ASan helper symbol ("Cannot export local symbol"): noise.
if ! swift build --package-path fuzz -c debug --build-path "$work/build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
    -Xcc -fsanitize=fuzzer-no-link,address > "$work/build.txt" 2>&1; then
    grep -v "Cannot export local symbol" "$work/build.txt" | tail -40 >&2
    echo "error: the fuzzers did not build" >&2
    exit 2
fi
grep -v "Cannot export local symbol" "$work/build.txt" | grep -E "warning:|Build complete" || true
bin=$(swift build --package-path fuzz -c debug --build-path "$work/build" --show-bin-path \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)

found=0
for target in ${FUZZ_TARGETS:-PageParserFuzzer ImageHeaderFuzzer}; do
    [ -x "$bin/$target" ] || { echo "error: $bin/$target was not built" >&2; exit 2; }
    dir="$work/$target"
    rm -rf "$dir/seeds"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    # Each fuzzer writes its own seed corpus (pages of both shapes; the hostile image set).
    WARM_FUZZ_WRITE_SEEDS="$dir/seeds" "$bin/$target"
    corpora=("$dir/corpus" "$dir/seeds")
    regressions="fuzz/regressions/$target"
    if ls "$regressions"/* > /dev/null 2>&1; then
        corpora+=("$regressions")
        # Given files rather than directories, libFuzzer runs each once.
        if "$bin/$target" "$regressions"/* -artifact_prefix="$dir/artifacts/" > "$dir/regressions.txt" 2>&1; then
            echo "== $target: $(ls "$regressions" | wc -l) past crash input(s) in $regressions: no crash"
        else
            found=1
            echo "!! $target crashed on a past crash input in $regressions:"
            grep -E "^Running:|runtime failure|ERROR: AddressSanitizer|SUMMARY|Fatal error" "$dir/regressions.txt" | tail -5 || true
        fi
    fi
    echo "== $target: $(ls "$dir/seeds" | wc -l) seeds, $budget"
    if ! "$bin/$target" "${corpora[@]}" -dict="fuzz/dictionaries/$target.dict" \
        "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/" > "$dir/log.txt" 2>&1; then
        found=1
    fi
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done)|#[0-9]+ +DONE|INFO: Seed:" "$dir/log.txt" || true
    if ls "$dir/artifacts"/* > /dev/null 2>&1; then
        found=1
        echo "!! $target found something (reproduce: $bin/$target FILE):"
        ls -l "$dir/artifacts"
        grep -E "runtime failure|ERROR: AddressSanitizer|SUMMARY|Fatal error" "$dir/log.txt" | head -5 || true
        # A CI machine's /tmp is gone after the run: small crash inputs go to the log.
        for artifact in "$dir/artifacts"/*; do
            if [ "$(stat -c %s "$artifact")" -le 4096 ]; then
                echo "   $(basename "$artifact") (base64): $(base64 -w0 "$artifact")"
            fi
        done
    else
        echo "   nothing found; corpus: $(ls "$dir/corpus" | wc -l) inputs in $dir/corpus"
    fi
done
exit $found
