@testable import Cache
import CacheTestSupport
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// The 24-product sample catalog that `warm check` compares with reports/baseline.json, measured in full by the
/// binary (`warm demo --products 24 --compare all`): BaselineCheckTests and ShippedThumbnailTests measure it, planted
/// or not, idle or beside two busy processes.
enum SampleCatalog {
    struct Record: Decodable {
        struct Thumbnail: Decodable { var outputSHA256: String? }
        struct Strategies: Decodable { var thumbnail: Thumbnail? }
        var url: String
        var strategies: Strategies
    }

    /// Measures the sample on a free port into `directory` (its metrics.jsonl, report/ and cache/); returns the
    /// metrics file.
    static func measure(in directory: URL, environment: [String: String] = [:],
                        file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let port = try Socket.ephemeralPort()
        XCTAssertNotEqual(port, 18543, "not the port the baseline was made on", file: file, line: line)
        let demo = try WarmBinary.run(["demo"] + WarmBinary.patient + ["--products", "24", "--port", "\(port)", "--dir", directory.path,
                                       "--no-progress", "--compare", "all", "--no-detail-images"], environment: environment)
        XCTAssertEqual(demo.status, 0, demo.stderr, file: file, line: line)
        return directory.appendingPathComponent("metrics.jsonl").path
    }

    /// Runs `body` with two CPU-bound processes beside it (as on a shared CI runner), stopped afterwards.
    static func withTwoBusyProcesses(_ body: () throws -> Void) throws {
        let busy = try (0..<2).map { _ in
            try ChildProcess.spawn("/bin/sh", arguments: ["-c", "while :; do :; done"], environment: [:])
        }
        defer {
            for child in busy {
                child.kill()
                _ = child.waitForExit()
            }
        }
        try body()
    }

    /// Every measured image's `outputSHA256` is its cached 300 px JPEG's: the measured thumbnail engine is the one
    /// that fills the cache. The cache is read in the test process (`warm cache get` reads the same rows; its own
    /// tests launch it).
    static func assertMeasuredIsCached(metrics: String, cache: String, expected: Int,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let records = try String(contentsOfFile: metrics, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        let hashed = records.compactMap { record in record.strategies.thumbnail?.outputSHA256.map { (record.url, $0) } }
        XCTAssertEqual(hashed.count, expected, "every image is measured", file: file, line: line)
        let disk = try DiskCache.open(root: cache, readOnly: true)
        defer { try? disk.close() }
        for (url, measured) in hashed {
            let entry = try disk.lookup(url: url, variant: CacheVariant(longestSide: 300, format: .jpeg), recordingAccess: false)
            let path = try XCTUnwrap(entry?.absolutePath, url, file: file, line: line)
            XCTAssertEqual(measured, SHA256Hex.digest(of: try Data(contentsOf: URL(fileURLWithPath: path))), url, file: file, line: line)
        }
    }
}
