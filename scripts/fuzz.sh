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
#        FUZZ_WORK_DIR=/tmp/warm-fuzz   where corpora, crashes and the build go
#        FUZZ_TARGETS="PageParserFuzzer"   only some fuzzers
# Exit status: 0 when nothing was found, 1 when a fuzzer wrote a crash artifact.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=${FUZZ_WORK_DIR:-/tmp/warm-fuzz}
mkdir -p "$work"
# Leaks are not checked: libvips and GLib keep process-wide caches that
# LeakSanitizer would report at exit.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
# The Swift runtime's backtracer would take the crash signal from libFuzzer.
export SWIFT_BACKTRACE=enable=no

echo "== building the fuzzers (debug, -sanitize=fuzzer,address)"
# ld.gold warns once per ASan helper symbol ("Cannot export local symbol"): noise.
swift build --package-path fuzz -c debug --build-path "$work/build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
    -Xcc -fsanitize=fuzzer-no-link,address 2>&1 | grep -v "Cannot export local symbol" || true
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
    echo "== $target: $(ls "$dir/seeds" | wc -l) seeds, ${seconds}s"
    if ! "$bin/$target" "$dir/corpus" "$dir/seeds" -dict="fuzz/dictionaries/$target.dict" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/" > "$dir/log.txt" 2>&1; then
        found=1
    fi
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done)|#[0-9]+ +DONE" "$dir/log.txt" || true
    if ls "$dir/artifacts"/* > /dev/null 2>&1; then
        found=1
        echo "!! $target found something (reproduce: $bin/$target FILE):"
        ls -l "$dir/artifacts"
        grep -E "runtime failure|ERROR: AddressSanitizer|SUMMARY|Fatal error" "$dir/log.txt" | head -5 || true
    else
        echo "   nothing found; corpus: $(ls "$dir/corpus" | wc -l) inputs in $dir/corpus"
    fi
done
exit $found
