import Foundation
import WarmSupport
import WarmTestSupport
import XCTest

/// The measured thumbnail strategy is the engine that fills the cache: its
/// `outputSHA256` is the cached file's, and a memory regression planted in
/// the shipped path fails `warm check` against the committed baseline.
final class ShippedThumbnailTests: XCTestCase {
    struct Record: Decodable {
        struct Thumbnail: Decodable { var outputSHA256: String? }
        struct Strategies: Decodable { var thumbnail: Thumbnail? }
        var url: String
        var strategies: Strategies
    }

    func testEveryComparedImagesOutputSHA256IsTheCachedFilesSHA256() throws {
        let directory = try makeTemporaryDirectory()
        let port = try Socket.ephemeralPort()
        let demo = try WarmBinary.run(["demo", "--products", "24", "--port", "\(port)", "--dir", directory.path,
                                       "--no-progress", "--compare", "all", "--quality", "70"])
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let lines = try String(contentsOf: directory.appendingPathComponent("metrics.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        let records = try lines.map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        let hashed = records.compactMap { record in record.strategies.thumbnail?.outputSHA256.map { (record.url, $0) } }
        XCTAssertGreaterThan(hashed.count, 20, "every decodable image of the sample catalog is measured")
        for (url, measured) in hashed {
            let get = try WarmBinary.run(["cache", "get", directory.appendingPathComponent("cache").path, url, "--size", "300"])
            XCTAssertEqual(get.status, 0, get.stderr)
            let cached = try Data(contentsOf: URL(fileURLWithPath: get.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertEqual(measured, SHA256Hex.digest(of: cached), url)
        }
    }

    func testAFullSizeDecodePlantedInTheShippedThumbnailPathFailsTheCheck() throws {
        let directory = try makeTemporaryDirectory()
        // The baseline's URLs name port 18543, so the sample catalog is served there.
        let demo = try WarmBinary.run(["demo", "--products", "24", "--port", "18543", "--dir", directory.path,
                                       "--no-progress", "--compare", "all"],
                                      environment: ["WARM_TEST_PLANT_FULL_DECODE": "1"])
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let check = try WarmBinary.run(["check", "--metrics", directory.appendingPathComponent("metrics.jsonl").path,
                                        "--baseline", BaselineCheckTests.baseline])
        XCTAssertEqual(check.status, 3, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("thumbnail peak bytes grew"), check.stdout)
    }
}
