import Foundation
@testable import WarmSupport
import XCTest
@testable import Cache
import CacheTestSupport

/// The partition of images into shards, and each shard's own state in one tree.
final class CacheShardTests: CacheTestCase {
    private static func syntheticURLs(_ count: Int) -> [CanonicalURL] {
        (0..<count).map { try! CanonicalURL("https://img\($0 % 7).example.com/products/\($0 * 37 + 11)/thumb.jpg?v=\($0 % 5)") }
    }

    /// Binomial noise alone is about 1/sqrt(n/N) of a share: 100,000 URLs keep it
    /// under 1% even for 8 shards, so a 3% bound fails only on a real skew.
    func testSharesAreBalancedWithinAFewPercentOverOneHundredThousandURLs() {
        let digests = Self.syntheticURLs(100_000).map { SHA256Hex.digest(of: $0.text) }
        for count in [2, 3, 5, 8] {
            var sizes = [Int](repeating: 0, count: count)
            for digest in digests { sizes[CacheShard.share(ofHash: digest, count: count)] += 1 }
            let mean = Double(digests.count) / Double(count)
            let worst = sizes.map { abs(Double($0) - mean) / mean }.max()!
            XCTAssertLessThan(worst, 0.03, "\(count) shards: \(sizes)")
            XCTAssertEqual(sizes.reduce(0, +), digests.count)
        }
    }

    func testEveryImageBelongsToExactlyOneShardTheSameEveryTime() throws {
        let urls = Self.syntheticURLs(2_000)
        let shards = try (0..<4).map { try CacheShard(index: $0, count: 4) }
        for url in urls {
            XCTAssertEqual(shards.filter { $0.owns(url) }.count, 1, url.text)
            let reparsed = try CanonicalURL(url.text)
            XCTAssertEqual(shards.map { $0.owns(url) }, shards.map { $0.owns(reparsed) })
        }
        // Two spellings of one image are one key, so one shard.
        let a = try CanonicalURL("HTTP://Img.Example.com:80/a/./b/../c.jpg#top")
        let b = try CanonicalURL("http://img.example.com/a/c.jpg")
        let sixteen = try (0..<16).map { try CacheShard(index: $0, count: 16) }
        XCTAssertEqual(sixteen.map { $0.owns(a) }, sixteen.map { $0.owns(b) })
        XCTAssertTrue(try CacheShard(index: 0, count: 1).owns(a), "one shard owns everything")
    }

    func testShardSpecificationsAreParsedAndBadOnesRefused() throws {
        XCTAssertEqual(try CacheShard(parsing: "2/8"), try CacheShard(index: 2, count: 8))
        XCTAssertEqual(try CacheShard(parsing: "2/8").directoryName, "2-of-8")
        XCTAssertEqual(CacheShard(directoryName: "2-of-8"), try CacheShard(index: 2, count: 8))
        XCTAssertNil(CacheShard(directoryName: "8-of-8"))
        XCTAssertNil(CacheShard(directoryName: "02-of-8"))
        XCTAssertThrowsError(try CacheShard(parsing: "3/3")) { XCTAssertEqual($0 as? ShardError, .indexOutOfRange(index: 3, count: 3)) }
        XCTAssertThrowsError(try CacheShard(parsing: "0/0")) { XCTAssertEqual($0 as? ShardError, .badCount(0)) }
        XCTAssertThrowsError(try CacheShard(parsing: "-1/3"))
        XCTAssertThrowsError(try CacheShard(parsing: "1of3")) { XCTAssertEqual($0 as? ShardError, .malformed("1of3")) }

        let env = [CacheShard.completionIndexVariable: "2"]
        XCTAssertEqual(try CacheShard.resolve(shard: nil, shards: 3, environment: env), try CacheShard(index: 2, count: 3))
        XCTAssertEqual(try CacheShard.resolve(shard: "1/3", shards: nil, environment: env), try CacheShard(index: 1, count: 3),
                       "the flag wins over the environment")
        XCTAssertNil(try CacheShard.resolve(shard: nil, shards: nil, environment: env), "no flags: unsharded")
        XCTAssertThrowsError(try CacheShard.resolve(shard: nil, shards: 3, environment: [:])) {
            XCTAssertEqual($0 as? ShardError, .missingIndex(shards: 3))
        }
        XCTAssertThrowsError(try CacheShard.resolve(shard: nil, shards: 2, environment: env)) {
            XCTAssertEqual($0 as? ShardError, .indexOutOfRange(index: 2, count: 2))
        }
        XCTAssertThrowsError(try CacheShard.resolve(shard: "1/3", shards: 4, environment: [:]))
    }

    func testShardsNeverBlockEachOtherButOneShardNeverRunsTwice() throws {
        let zero = try CacheShard(index: 0, count: 2), one = try CacheShard(index: 1, count: 2)
        let first = try CacheLock.acquire(root: root, shard: zero)
        let second = try CacheLock.acquire(root: root, shard: one)
        let tree = try CacheLock.acquire(root: root)
        XCTAssertEqual(first.path, root + "/shards/0-of-2/.lock")
        let error = assertThrowsCacheError("locked") { try CacheLock.acquire(root: root, shard: zero) }
        XCTAssertEqual(error, .locked(path: root + "/shards/0-of-2/.lock", holderPID: getpid()))
        first.release()
        let again = try CacheLock.acquire(root: root, shard: zero)
        again.release()
        second.release()
        tree.release()
    }

    func testShardsWriteIntoOneTreeAndTheMergedManifestVerifies() throws {
        let shards = try (0..<3).map { try CacheShard(index: $0, count: 3) }
        var expected: [String: Int] = [:]
        for (number, url) in Self.syntheticURLs(12).enumerated() {
            let shard = shards.first { $0.owns(url) }!
            let cache = try DiskCache.open(root: root, shard: shard)
            let data = try jpeg(seed: UInt64(number))
            try cache.store(url: url.text, productIds: [number], variant: CacheVariant(longestSide: 64, format: .jpeg),
                            data: data, metadata: metadata())
            try cache.close()
            expected[url.text] = data.count
        }
        // A leftover temp file in a shard's tmp/ (a crash mid-write) is removed by the merge.
        _ = FileManager.default.createFile(atPath: root + "/shards/1-of-3/tmp/left.tmp", contents: Data("x".utf8))
        let tree = try openCache()
        let first = try tree.maintenance.mergeShards(batchSize: 5)
        XCTAssertEqual(first.mergedShards.count, 3)
        XCTAssertEqual(first.insertedRows, 12)
        XCTAssertEqual(first.removedTemporaryFileCount, 1)
        XCTAssertEqual(try tree.maintenance.stats().entryCount, 12)
        for (url, bytes) in expected {
            XCTAssertEqual(try tree.lookup(url: url, variant: CacheVariant(longestSide: 64, format: .jpeg), recordingAccess: false)?.outputBytes, bytes)
        }
        let report = try tree.maintenance.verify(validator: Self.validator)
        XCTAssertTrue(report.isClean, "\(report)")
        XCTAssertEqual(report.checkedCount, 12)

        let second = try tree.maintenance.mergeShards()
        XCTAssertEqual(second.insertedRows + second.updatedRows, 0, "a second merge changes nothing")
        XCTAssertEqual(second.unchangedRows, 12)
    }

    func testMergeRefusesAShardThatIsStillRunning() throws {
        let shard = try CacheShard(index: 1, count: 2)
        let running = try DiskCache.open(root: root, shard: shard)
        try running.store(url: "https://img.example.com/p/9.jpg", productIds: [9], variant: CacheVariant(longestSide: 64, format: .jpeg),
                          data: try jpeg(), metadata: metadata())
        let lock = try CacheLock.acquire(root: root, shard: shard)
        let tree = try openCache()
        let error = assertThrowsCacheError("locked") { try tree.maintenance.mergeShards() }
        XCTAssertEqual(error, .locked(path: root + "/shards/1-of-2/.lock", holderPID: getpid()))
        XCTAssertEqual(try tree.maintenance.stats().entryCount, 0, "nothing of the running shard was merged")
        lock.release()
        try running.close()
        XCTAssertEqual(try tree.maintenance.mergeShards().insertedRows, 1, "once it has finished, it merges")
    }

    func testMergeKeepsTheNewerRowAndUnitesProductIds() throws {
        let url = "https://img.example.com/p/1.jpg"
        let variant = CacheVariant(longestSide: 64, format: .jpeg)
        let shard = try CacheShard(index: 0, count: 1)
        let shardCache = try DiskCache.open(root: root, shard: shard)
        try shardCache.store(url: url, productIds: [1], variant: variant, data: try jpeg(seed: 1), metadata: metadata(fetchedAt: 100))
        try shardCache.close()
        // The tree has a newer store of the same key (an unsharded run after the shard's).
        let tree = try openCache()
        let newer = try jpeg(width: 60, seed: 2)
        try tree.store(url: url, productIds: [2], variant: variant, data: newer, metadata: metadata(width: 60, fetchedAt: 200))
        let result = try tree.maintenance.mergeShards()
        XCTAssertEqual(result.updatedRows, 1, "product ids were added")
        let entry = try XCTUnwrap(try tree.lookup(url: url, variant: variant, recordingAccess: false))
        XCTAssertEqual(entry.outputBytes, newer.count, "the older shard row does not replace the newer one")
        XCTAssertEqual(entry.fetchedAt, 200)
        XCTAssertEqual(entry.productIds, [1, 2])
        XCTAssertTrue(try tree.maintenance.verify(validator: Self.validator).isClean)
    }
}
