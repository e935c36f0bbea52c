import Foundation
import XCTest
@testable import Cache
import CacheTestSupport

final class DiskCacheVerifyTests: CacheTestCase {
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func url(_ name: String) -> String { "https://img.example.com/\(name).jpg" }

    func testVerifyOfAHealthyCacheIsClean() throws {
        let cache = try openCache()
        for name in ["a", "b", "c"] {
            try cache.store(url: url(name), productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        }
        try cache.recordFailure(url: url("d"), productIds: [1], variant: variant, reason: "the server answered 404")
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.checkedCount, 3, "failure-only rows have no file to check")
        XCTAssertTrue(report.isClean, "\(report)")
    }

    func testVerifyReportsTruncatedAndMissingFiles() throws {
        let cache = try openCache()
        let data = try jpeg()
        var paths: [String: String] = [:]
        for name in ["truncated", "missing", "garbage", "good"] {
            paths[name] = try cache.store(url: url(name), productIds: [1], variant: variant, data: data, metadata: metadata()).absolutePath
        }
        let wrongSize = try cache.store(url: url("wrongsize"), productIds: [1], variant: variant, data: data,
                                        metadata: metadata(width: 100, height: 75)).absolutePath!

        try Data(data.prefix(data.count / 2)).write(to: URL(fileURLWithPath: paths["truncated"]!))
        try FileManager.default.removeItem(atPath: paths["missing"]!)
        // Stored as it is (a file written behind the manifest is a digest mismatch: FileValidatorsTests).
        try cache.store(url: url("garbage"), productIds: [1], variant: variant, data: Data(repeating: 0x41, count: data.count),
                        metadata: metadata())
        let orphan = root + "/v1/00/00/" + String(repeating: "0", count: 64) + ".jpg"
        try FileManager.default.createDirectory(atPath: root + "/v1/00/00", withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: orphan))
        try data.write(to: URL(fileURLWithPath: root + "/tmp/inflight.tmp"))

        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.checkedCount, 5)
        let issues = Dictionary(uniqueKeysWithValues: report.problems.map { ($0.url, $0) })
        XCTAssertEqual(issues.count, 4, "\(report.problems)")
        XCTAssertEqual(issues[url("truncated")]?.issue, .sizeMismatch(expectedBytes: data.count, actualBytes: data.count / 2))
        XCTAssertEqual(issues[url("truncated")]?.path, paths["truncated"])
        XCTAssertEqual(issues[url("truncated")]?.variant, "300.jpg")
        XCTAssertEqual(issues[url("missing")]?.issue, .missing)
        if case .undecodable(let reason)? = issues[url("garbage")]?.issue {
            XCTAssertFalse(reason.isEmpty)
        } else {
            XCTFail("garbage bytes should not decode: \(String(describing: issues[url("garbage")]))")
        }
        XCTAssertEqual(issues[url("wrongsize")]?.issue,
                       .dimensionMismatch(expected: ImageDimensions(width: 100, height: 75),
                                          actual: ImageDimensions(width: 64, height: 48)))
        XCTAssertEqual(issues[url("wrongsize")]?.path, wrongSize)
        XCTAssertNil(issues[url("good")])
        XCTAssertEqual(report.orphanFiles, [orphan])
        XCTAssertEqual(report.temporaryFiles, [root + "/tmp/inflight.tmp"])
        XCTAssertFalse(report.isClean)
        XCTAssertTrue(issues[url("missing")]!.description.contains("the file is missing"))
    }
}
