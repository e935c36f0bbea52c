import Downsample
import Foundation
import WarmMetrics
import XCTest

/// The measuring parent's bookkeeping over its children, with a stand-in
/// child (a shell script printing the reports a child would print) so that
/// the peaks are known in advance.
final class CloseCallTests: XCTestCase {
    /// Writes a script that logs each call's strategy and prints a report
    /// whose peak comes from `peaks[strategy]`, indexed by how many times
    /// that strategy ran before (the last value repeats).
    func fakeChild(in directory: URL, peaks: [String: [Int]]) throws -> (script: String, log: String) {
        let log = directory.appendingPathComponent("calls.log").path
        func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: " ") }
        let script = directory.appendingPathComponent("child.sh").path
        try """
            #!/bin/sh
            kind=""
            while [ $# -gt 0 ]; do [ "$1" = "--strategy" ] && kind="$2"; shift; done
            n=$(grep -c "^$kind$" '\(log)' 2>/dev/null || true)
            echo "$kind" >> '\(log)'
            case "$kind" in
              naive) set -- \(list(peaks["naive"]!)); retained=1228800 ;;
              renderer) set -- \(list(peaks["renderer"]!)); retained=270000 ;;
              *) set -- \(list(peaks["thumbnail"]!)); retained=270000 ;;
            esac
            i=0; peak=$1
            for p in "$@"; do [ $i -le $n ] && peak=$p; i=$((i+1)); done
            printf '{"metrics":{"retainedBytes":%s,"peakBytes":%s,"cpuSeconds":0.1,"wallSeconds":0.1,"outputWidth":300,"outputHeight":225},"peakMethod":"fresh-process"}\\n' "$retained" "$peak"
            """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return (script, log)
    }

    func calls(_ log: String) throws -> [String: Int] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").reduce(into: [:]) { $0[String($1), default: 0] += 1 }
    }

    func measure(with script: String, singleRunMinimumPixels: Int? = nil) async throws -> ImageMetricsRecord {
        let data = try MetricsFixtures.image(width: 640, height: 480, as: CompositionEncoding(format: .jpeg))
        let measurer = StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), quality: false,
                                                             isolation: .childProcess(executablePath: script),
                                                             singleRunMinimumPixels: singleRunMinimumPixels))
        return await measurer.measure(data: data, productId: nil, url: "a.jpg", gate: MeasurementGate())
    }

    func testRendererWithinItsCanvasOfNaiveGetsMoreRunsAndTheLowestPeaksAreKept() async throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two runs each: renderer 10.1 MB is less than naive 10.5 MB + its 0.27 MB canvas.
        let child = try fakeChild(in: directory, peaks: ["naive": [10_500_000, 10_500_000, 9_800_000],
                                                         "renderer": [10_100_000], "thumbnail": [3_000_000, 2_900_000]])
        let record = try await measure(with: child.script)
        XCTAssertNil(record.error)
        XCTAssertEqual(try calls(child.log), ["naive": 5, "renderer": 5, "thumbnail": 3])
        XCTAssertEqual(record.strategies.naive?.peakBytes, 9_800_000)
        XCTAssertEqual(record.strategies.renderer?.peakBytes, 10_100_000)
        XCTAssertEqual(record.strategies.thumbnail?.peakBytes, 2_900_000)
        XCTAssertEqual(record.peakMethod, .freshProcess)
    }

    func testRendererStillBelowNaiveAfterTheExtraRunsGetsASecondRoundAndNoThird() async throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // After two runs and three more each: naive 9.8 MB, renderer 9.7 MB, still below: three more each.
        let child = try fakeChild(in: directory, peaks: ["naive": [10_500_000, 10_500_000, 9_800_000, 9_800_000, 9_800_000, 9_600_000],
                                                         "renderer": [10_100_000, 10_100_000, 9_700_000, 9_700_000, 9_700_000, 9_900_000],
                                                         "thumbnail": [3_000_000]])
        let record = try await measure(with: child.script)
        XCTAssertEqual(try calls(child.log), ["naive": 8, "renderer": 8, "thumbnail": 3])
        XCTAssertEqual(record.strategies.naive?.peakBytes, 9_600_000)
        XCTAssertEqual(record.strategies.renderer?.peakBytes, 9_700_000)
    }

    func testAnImageMeasuredOnceGetsOneRunEachAndNoExtraRunsWithinHalfACanvas() async throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Renderer 0.2 MB above naive: less than its 0.27 MB canvas (a close call for a repeated image), more than half.
        let child = try fakeChild(in: directory, peaks: ["naive": [10_500_000], "renderer": [10_700_000], "thumbnail": [3_000_000]])
        let record = try await measure(with: child.script, singleRunMinimumPixels: 640 * 480)
        XCTAssertEqual(try calls(child.log), ["naive": 1, "renderer": 1, "thumbnail": 3])
        XCTAssertEqual(record.strategies.renderer?.peakBytes, 10_700_000)
    }

    func testClearResultsGetNoExtraRuns() async throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try fakeChild(in: directory, peaks: ["naive": [10_500_000, 10_400_000],
                                                         "renderer": [10_800_000], "thumbnail": [3_000_000]])
        let record = try await measure(with: child.script)
        XCTAssertEqual(try calls(child.log), ["naive": 2, "renderer": 2, "thumbnail": 3])
        XCTAssertEqual(record.strategies.naive?.peakBytes, 10_400_000)
        XCTAssertEqual(record.strategies.renderer?.peakBytes, 10_800_000)
    }
}
