@testable import Cache
import Foundation
@testable import Pipeline
import XCTest

/// `--compare-one-in N` picks images by the one stable hash (SHA-256 of the canonical URL, its last 64 bits), so the
/// same images every night and on every machine, and independent of the shard (which reads the first 64 bits).
final class CompareSelectionTests: XCTestCase {
    func testTheSampleIsTheOneSHA256Picks() throws {
        // Which of these ten images one in 3 picks, by Python's hashlib.sha256.
        let picked = try (0..<10).filter { index in
            CompareSelection.oneIn(3).includes(try CanonicalURL("https://img.example.com/products/\(index)/thumb.jpg"))
        }
        XCTAssertEqual(picked, [3, 4])
    }

    /// A sample drawn from the shard's own bits would put the whole sample into one shard (one in 8 of 8 shards:
    /// shard 0 measures all its images, the others none). 40,000 URLs keep each shard's share within a third of
    /// the expected count (at least 78 images a shard, about 9 of binomial noise).
    func testEveryShardMeasuresItsShareOfTheSample() throws {
        let urls = try (0..<40_000).map {
            try CanonicalURL("https://img\($0 % 7).example.com/products/\($0 * 37 + 11)/thumb.jpg")
        }
        for (shards, oneIn) in [(8, 8), (8, 64), (4, 2)] {
            for index in 0..<shards {
                let shard = try CacheShard(index: index, count: shards)
                let owned = urls.filter(shard.owns)
                let sampled = owned.filter(CompareSelection.oneIn(oneIn).includes).count
                let expected = Double(owned.count) / Double(oneIn)
                XCTAssertEqual(Double(sampled), expected, accuracy: expected / 3,
                               "shard \(shard) of \(owned.count) images, one in \(oneIn)")
            }
        }
    }
}
