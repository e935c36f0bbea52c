import Downsample
@testable import WarmMetrics
import XCTest

/// The `measure-strategy` command line is written by the parent and read by
/// the child through one type: what one side writes, the other reads back.
final class IsolatedStrategyRunArgumentsTests: XCTestCase {
    func testEveryFieldSurvivesTheCommandLine() throws {
        let run = IsolatedStrategyRun(kind: .renderer, imagePath: "/tmp/a b.jpg", target: DecodeTarget(longestSide: 123),
                                      limits: DecodeLimits(maxPixels: 4_000, maxEncodedBytes: 5_000),
                                      preferredPeakMethod: .vipsTracked)
        XCTAssertEqual(run.commandLine.first, "measure-strategy")
        XCTAssertEqual(try IsolatedStrategyRun(arguments: run.arguments), run)
        for kind in StrategyKind.allCases {
            for method in PeakMethod.allCases {
                let other = IsolatedStrategyRun(kind: kind, imagePath: "x.png", target: DecodeTarget(longestSide: 300),
                                                preferredPeakMethod: method)
                XCTAssertEqual(try IsolatedStrategyRun(arguments: other.arguments), other)
            }
        }
    }

    func testLeftOutFlagsKeepTheDefaults() throws {
        let run = try IsolatedStrategyRun(arguments: ["a.jpg", "--strategy", "thumbnail", "--size", "100"])
        XCTAssertEqual(run, IsolatedStrategyRun(kind: .thumbnail, imagePath: "a.jpg", target: DecodeTarget(longestSide: 100)))
    }

    func testBadCommandLinesAreRefusedNamingTheFlag() {
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["--strategy", "naive"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .missingImage)
        }
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["a.jpg"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .missingStrategy)
        }
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["a.jpg", "--strategy", "sharpest"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .invalidValue(flag: "--strategy", value: "sharpest"))
        }
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["a.jpg", "--strategy", "naive", "--size", "0"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .invalidValue(flag: "--size", value: "0"))
        }
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["a.jpg", "--strategy", "naive", "--colour", "red"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .unknownArgument("--colour"))
            XCTAssertTrue("\($0)".contains("--colour"))
        }
        XCTAssertThrowsError(try IsolatedStrategyRun(arguments: ["a.jpg", "--strategy"])) {
            XCTAssertEqual($0 as? IsolatedStrategyRun.ArgumentsError, .missingValue(flag: "--strategy"))
        }
    }
}
