@testable import Cache
import Foundation
import WarmTestSupport
import XCTest

/// `--max-cache-size` (and `cache evict --max-size`) as bytes or as a share of the cache's file system: what is
/// refused, with a sentence naming the option (usage error, 64), and what is taken. The share's arithmetic on a real
/// volume of known size is FullDiskTests'.
final class CacheSizeOptionTests: XCTestCase {
    func testSharesOutsideZeroToAHundredPercentAndNonNumbersAreRefusedNamingTheOption() throws {
        let directory = try makeTemporaryDirectory()
        let cache = directory.appendingPathComponent("cache").path
        let run = ["run", "--api", "http://127.0.0.1:9/", "--cache-dir", cache, "--no-progress"]
        let cases: [(arguments: [String], option: String, sentence: String?)] = [
            (run + ["--max-cache-size", "150%"], "--max-cache-size", "at most 100%"),
            (run + ["--max-cache-size", "0%"], "--max-cache-size", "more than 0%"),
            (run + ["--max-cache-size", "-5%"], "--max-cache-size", nil),
            (run + ["--max-cache-size", "0"], "--max-cache-size", "must be positive"),
            (run + ["--max-cache-size", "eighty%"], "--max-cache-size", nil),
            (run + ["--max-cache-size", "85%%"], "--max-cache-size", nil),
            (["cache", "merge", cache, "--max-cache-size", "101%"], "--max-cache-size", "at most 100%"),
            (["cache", "evict", cache, "--max-size", "0%"], "--max-size", "more than 0%"),
            (["cache", "evict", cache, "--max-size", "nan%"], "--max-size", nil),
        ]
        for (arguments, option, sentence) in cases {
            let result = try WarmBinary.run(arguments)
            let label = arguments.suffix(2).joined(separator: " ")
            XCTAssertEqual(result.status, 64, label + ": " + result.stderr)
            XCTAssertTrue(result.stderr.contains(option), label + ": " + result.stderr)
            if let sentence { XCTAssertTrue(result.stderr.contains(sentence), label + ": " + result.stderr) }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache), "refused before any work started")
    }

    func testAShareIsTakenByRunMergeAndEvictAndAHundredPercentEvictsNothingThatFits() throws {
        let directory = try makeTemporaryDirectory()
        let cache = directory.appendingPathComponent("cache").path
        let opened = try DiskCache.open(root: cache)
        try opened.close()
        for arguments in [["cache", "merge", cache, "--max-cache-size", "85%"], ["cache", "evict", cache, "--max-size", "100 %"],
                          ["cache", "evict", cache, "--max-size", "0.5%"]] {
            let result = try WarmBinary.run(arguments)
            XCTAssertEqual(result.status, 0, arguments.joined(separator: " ") + ": " + result.stderr)
        }
        let evict = try WarmBinary.run(["cache", "evict", cache, "--max-size", "85%"])
        XCTAssertTrue(evict.stdout.contains("evicted 0 entries"), evict.stdout)
        // The merge published; each eviction after it publishes again, so origins stop naming what it removed.
        XCTAssertTrue(evict.stdout.contains("published \(cache)/published/manifest-4.sqlite"), evict.stdout)

        // One host, nothing published: an eviction leaves the origin reading the live manifest.
        let single = directory.appendingPathComponent("single").path
        try DiskCache.open(root: single).close()
        let alone = try WarmBinary.run(["cache", "evict", single, "--max-size", "85%"])
        XCTAssertEqual(alone.status, 0, alone.stderr)
        XCTAssertFalse(alone.stdout.contains("published"), alone.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: single + "/published"))
    }
}
