import ChildProcesses
import Downsample
import Foundation
@testable import WarmMetrics
import WarmTestSupport
import XCTest

/// The peaks `warm measure-server`'s children report: read exactly by the
/// measuring process (`PeakWatch`), in a process without address-space
/// randomisation, so that one image reads the same run after run.
final class MeasuringProcessPeakTests: XCTestCase {
    /// One `warm measure-server`, spoken to line by line as `MeasuringPool` does.
    struct Server {
        let process: ChildProcess
        let reader: LineReader

        init(environment extra: [String: String] = [:]) throws {
            var environment = MeasuringServer.environment()
            environment.merge(extra) { $1 }
            process = try ChildProcess.spawn(WarmBinary.url.path, arguments: MeasuringServer.commandLine, environment: environment,
                                             standardInput: .pipe, standardOutput: .pipe)
            reader = LineReader(fd: try XCTUnwrap(process.standardOutput))
        }

        func ask(_ job: MeasureRequest.Job, image: String) throws -> MeasureReply {
            let request = MeasureRequest(job: job, imagePath: image, target: DecodeTarget(longestSide: 300), limits: .default,
                                         peakMethod: .forkedProcess)
            var line = try JSONEncoder().encode(request)
            line.append(UInt8(ascii: "\n"))
            FileDescriptorIO.writeAll(try XCTUnwrap(process.standardInput), line)
            let answer = try XCTUnwrap(reader.next(), "the measuring process closed its output")
            return try JSONDecoder().decode(MeasureReply.self, from: Data(answer.utf8))
        }

        /// `ADDR_NO_RANDOMIZE` in the process's personality.
        var addressRandomisationIsOff: Bool {
            let text = (try? String(contentsOfFile: "/proc/\(process.pid)/personality", encoding: .utf8)) ?? ""
            let value = UInt32(text.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) ?? 0
            return value & 0x0040000 != 0
        }

        func stop() {
            if let input = process.standardInput { close(input) }
            reader.close()
            _ = process.waitForExit()
        }
    }

    /// An 881x881 noise PNG: the size of the seeds image on which renderer read
    /// 232 KiB below naive in a whole-catalog run with `VmHWM`.
    func pngFile() throws -> String {
        let pixels = ImageComposer.pattern(width: 881, height: 881)
        let data = try ImageComposer.encode(pixels: pixels, width: 881, height: 881, bands: 3,
                                            as: CompositionEncoding(format: .png))
        let directory = try makeTemporaryDirectory("exact-peak")
        let file = directory.appendingPathComponent("noise.png")
        try data.write(to: file)
        return file.path
    }

    func testOneImagesPeaksReadWithinAFewKiBRunToRunAndRendererAlwaysAboveNaive() throws {
        let image = try pngFile()
        let server = try Server()
        defer { server.stop() }
        var peaks: [StrategyKind: [Int]] = [:]
        for _ in 0..<6 {
            for job in [MeasureRequest.Job.naive, .renderer] {
                let reply = try server.ask(job, image: image)
                let report = try XCTUnwrap(reply.report, reply.failure ?? "no report")
                XCTAssertEqual(report.peakMethod, .forkedProcess, "the child's span was not watched")
                let kind = try XCTUnwrap(job.strategy)
                let peak = try XCTUnwrap(report.metrics?.peakBytes)
                peaks[kind, default: []].append(peak)
            }
        }
        let naive = try XCTUnwrap(peaks[.naive]), renderer = try XCTUnwrap(peaks[.renderer])
        // With VmHWM the same runs spread over 60-316 KiB; read exactly, 0-24 KiB.
        XCTAssertLessThanOrEqual(naive.max()! - naive.min()!, 64 * 1024, "naive peaks \(naive)")
        XCTAssertLessThanOrEqual(renderer.max()! - renderer.min()!, 64 * 1024, "renderer peaks \(renderer)")
        // Renderer holds a 300x300 canvas (352 KiB) on top of everything naive holds.
        XCTAssertGreaterThan(renderer.min()!, naive.max()!, "naive \(naive), renderer \(renderer)")
    }

    func testTheMeasuringProcessRunsWithoutAddressRandomisationUnlessAskedToKeepIt() throws {
        let image = try pngFile()
        let server = try Server()
        defer { server.stop() }
        // An answer means the process is past its start (and its exec without randomisation).
        XCTAssertNotNil(try server.ask(.thumbnail, image: image).report)
        XCTAssertTrue(server.addressRandomisationIsOff)

        let keeping = try Server(environment: [MeasuringServer.keepRandomisationVariable: "1"])
        defer { keeping.stop() }
        XCTAssertNotNil(try keeping.ask(.thumbnail, image: image).report)
        XCTAssertFalse(keeping.addressRandomisationIsOff)
    }

    func testWithTheWatchTurnedOffTheChildSaysItReadVmHWM() throws {
        let image = try pngFile()
        let server = try Server(environment: [PeakWatch.switchVariable: "0"])
        defer { server.stop() }
        let report = try XCTUnwrap(try server.ask(.naive, image: image).report)
        XCTAssertEqual(report.peakMethod, .forkedProcessHighWaterMark)
        XCTAssertGreaterThan(report.metrics?.peakBytes ?? 0, 881 * 881 * 4)
    }
}
