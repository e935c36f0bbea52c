@testable import Cache
import CacheTestSupport
import Foundation
import Synchronization
@testable import WarmSupport
import XCTest

final class DiskCacheStoreTests: CacheTestCase {
    let url = "https://img.example.com/products/42.jpg"
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    func testStoreThenLookupReturnsTheFileAndItsMetadata() throws {
        let cache = try openCache(maxAgeSeconds: 3600)
        let data = try jpeg()
        try cache.store(url: url, productIds: [7, 3], variant: variant, data: data,
                        metadata: metadata(fetchedAt: 1_000_000, etag: "\"abc\""))

        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant, now: 1_000_100))
        XCTAssertEqual(entry.url, url)
        XCTAssertEqual(entry.variant, variant)
        XCTAssertEqual(entry.productIds, [3, 7])
        XCTAssertTrue(entry.fileIsPresent)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(entry.absolutePath))), data)
        XCTAssertEqual(entry.outputBytes, data.count)
        XCTAssertEqual(entry.outputWidth, 64)
        XCTAssertEqual(entry.outputHeight, 48)
        XCTAssertEqual(entry.sourceBytes, 123_456)
        XCTAssertEqual(entry.sourceFormat, "jpeg")
        XCTAssertEqual(entry.sourceWidth, 640)
        XCTAssertEqual(entry.sourceHeight, 480)
        XCTAssertEqual(entry.etag, "\"abc\"")
        XCTAssertEqual(entry.lastModified, "Sat, 01 Nov 2025 10:00:00 GMT")
        XCTAssertEqual(entry.fetchedAt, 1_000_000)
        XCTAssertEqual(entry.expiresAt, 1_003_600, "default expiry is fetchedAt + maxAgeSeconds")
        XCTAssertEqual(entry.lastAccessAt, 1_000_100, "a lookup for use records the access")
        XCTAssertNil(entry.lastError)
        XCTAssertTrue(entry.isFresh(now: 1_003_599))
        XCTAssertFalse(entry.isFresh(now: 1_003_600))
        XCTAssertTrue(entry.canRevalidate)
    }

    func testLookupOfAnUnknownEntryReturnsNil() throws {
        let cache = try openCache()
        XCTAssertNil(try cache.lookup(url: url, variant: variant))
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        XCTAssertNil(try cache.lookup(url: url, variant: CacheVariant(longestSide: 600, format: .jpeg)))
        XCTAssertEqual(try cache.entries(forURL: "https://img.example.com/other.jpg"), [])
    }

    func testLookupRecordsAccessUnlessAskedNotTo() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata(fetchedAt: 100))
        _ = try cache.lookup(url: url, variant: variant, recordingAccess: false, now: 500)
        XCTAssertEqual(try cache.entries(forURL: url).first?.lastAccessAt, 100)
        _ = try cache.lookup(url: url, variant: variant, now: 500)
        XCTAssertEqual(try cache.entries(forURL: url).first?.lastAccessAt, 500)
        XCTAssertTrue(try cache.touch(url: url, variant: variant, now: 900))
        XCTAssertEqual(try cache.entries(forURL: url).first?.lastAccessAt, 900)
        XCTAssertFalse(try cache.touch(url: "https://img.example.com/none.jpg", variant: variant))
    }

    func testProductIdsAreMergedAcrossRuns() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [3, 1], variant: variant, data: try jpeg(), metadata: metadata())
        try cache.store(url: url, productIds: [2, 3], variant: variant, data: try jpeg(seed: 2), metadata: metadata())
        try cache.recordFailure(url: url, productIds: [9], variant: variant, reason: "the server answered 500")
        XCTAssertEqual(try cache.lookup(url: url, variant: variant)?.productIds, [1, 2, 3, 9])
    }

    func testStoreReplacesThePreviousFileAndClearsAnEarlierFailure() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(seed: 1), metadata: metadata(etag: "\"1\""))
        try cache.recordFailure(url: url, productIds: [1], variant: variant, reason: "the connection timed out", now: 2_000_000)
        let newer = try jpeg(width: 60, height: 40, seed: 5)
        try cache.store(url: url, productIds: [1], variant: variant, data: newer,
                        metadata: metadata(width: 60, height: 40, fetchedAt: 2_000_100, etag: "\"2\""))

        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry.absolutePath!)), newer)
        XCTAssertEqual(entry.etag, "\"2\"")
        XCTAssertEqual(entry.outputWidth, 60)
        XCTAssertNil(entry.lastError)
        XCTAssertNil(entry.failedAt)
        XCTAssertEqual(try cache.files.allFilePaths().count, 1)
    }

    func testManifestSurvivesReopen() throws {
        let data = try jpeg()
        do {
            let cache = try openCache()
            try cache.store(url: url, productIds: [5], variant: variant, data: data, metadata: metadata())
            try cache.recordFailure(url: "https://img.example.com/broken.jpg", productIds: [6], variant: variant,
                                    reason: "the image is corrupt")
            try cache.close()
        }
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [], "a closed cache leaves no temp files behind")
        let reopened = try openCache()
        let entry = try XCTUnwrap(try reopened.lookup(url: url, variant: variant))
        XCTAssertTrue(entry.fileIsPresent)
        XCTAssertEqual(entry.productIds, [5])
        XCTAssertEqual(entry.outputBytes, data.count)
        XCTAssertEqual(try reopened.lookup(url: "https://img.example.com/broken.jpg", variant: variant)?.lastError,
                       "the image is corrupt")
        // WAL mode leaves its write-ahead log beside the manifest while open.
        XCTAssertTrue(fileExists(root + "/manifest.sqlite-wal"))
    }

    func testMarkRevalidatedExtendsEveryVariantOfTheURL() throws {
        let cache = try openCache(maxAgeSeconds: 100)
        let small = CacheVariant(longestSide: 150, format: .jpeg)
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata(fetchedAt: 1000))
        try cache.store(url: url, productIds: [1], variant: small, data: try jpeg(), metadata: metadata(fetchedAt: 1000))
        try cache.store(url: "https://img.example.com/other.jpg", productIds: [2], variant: variant, data: try jpeg(),
                        metadata: metadata(fetchedAt: 1000))
        try cache.recordFailure(url: url, productIds: [1], variant: variant, reason: "the server answered 503", now: 1200)

        XCTAssertEqual(try cache.markRevalidated(url: url, now: 5000), 2)
        for entry in try cache.entries(forURL: url) {
            XCTAssertEqual(entry.expiresAt, 5100, entry.variant.name)
            XCTAssertEqual(entry.lastAccessAt, 5000, entry.variant.name)
            XCTAssertEqual(entry.fetchedAt, 1000, "a 304 does not refetch")
            XCTAssertNil(entry.lastError)
            XCTAssertTrue(entry.isFresh(now: 5050))
        }
        XCTAssertEqual(try cache.lookup(url: "https://img.example.com/other.jpg", variant: variant)?.expiresAt, 1100)
        XCTAssertEqual(try cache.markRevalidated(url: url, expiresAt: 9000, now: 6000), 2)
        XCTAssertEqual(try cache.lookup(url: url, variant: small)?.expiresAt, 9000)
    }

    func testFailedRefetchKeepsThePreviousGoodFile() throws {
        let cache = try openCache()
        let good = try jpeg()
        try cache.store(url: url, productIds: [1], variant: variant, data: good, metadata: metadata(fetchedAt: 1000))
        try cache.recordFailure(url: url, productIds: [1], variant: variant,
                                reason: "the server answered 500 Internal Server Error", now: 90_000)

        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant))
        XCTAssertEqual(entry.lastError, "the server answered 500 Internal Server Error")
        XCTAssertEqual(entry.failedAt, 90_000)
        XCTAssertTrue(entry.fileIsPresent)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry.absolutePath!)), good)
        XCTAssertEqual(entry.etag, "\"v1\"", "the validators of the good file stay for the next conditional request")
        XCTAssertTrue(entry.canRevalidate)
        XCTAssertEqual(try cache.path(for: url, longestSide: 300), entry.absolutePath)
        XCTAssertEqual(try cache.maintenance.stats().failedCount, 1)
    }

    func testFailureForANewURLRecordsARowWithoutAFile() throws {
        let cache = try openCache()
        try cache.recordFailure(url: url, productIds: [4], variant: variant, reason: "the image is 0 bytes", now: 500)
        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant, recordingAccess: false))
        XCTAssertNil(entry.path)
        XCTAssertNil(entry.absolutePath)
        XCTAssertNil(entry.outputBytes)
        XCTAssertFalse(entry.fileIsPresent)
        XCTAssertFalse(entry.isFresh(now: 0))
        XCTAssertFalse(entry.canRevalidate)
        XCTAssertEqual(entry.productIds, [4])
        XCTAssertNil(try cache.path(for: url, longestSide: 300))
        let stats = try cache.maintenance.stats()
        XCTAssertEqual(stats.entryCount, 0)
        XCTAssertEqual(stats.failedCount, 1)
    }

    func testEntryWhoseFileWasDeletedIsNeitherFreshNorRevalidatable() throws {
        let cache = try openCache()
        let stored = try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata(fetchedAt: 1000))
        try FileManager.default.removeItem(atPath: stored.absolutePath!)
        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant))
        XCTAssertFalse(entry.fileIsPresent)
        XCTAssertFalse(entry.isFresh(now: 1001), "a fresh row without its file must be fetched again")
        XCTAssertFalse(entry.canRevalidate, "a 304 would leave no file behind")
        XCTAssertNil(try cache.path(for: url, longestSide: 300))
    }

    func testPathForPrefersJPEGWhenSeveralFormatsExist() throws {
        let cache = try openCache()
        let data = try jpeg()
        for format: OutputFormat in [.webp, .png] {
            try cache.store(url: url, productIds: [1], variant: CacheVariant(longestSide: 300, format: format), data: data,
                            metadata: metadata(fetchedAt: 100))
        }
        XCTAssertTrue(try XCTUnwrap(try cache.path(for: url, longestSide: 300)).hasSuffix(".png"))
        try cache.store(url: url, productIds: [1], variant: variant, data: data, metadata: metadata(fetchedAt: 100))
        let path = try XCTUnwrap(try cache.path(for: url, longestSide: 300, now: 777))
        XCTAssertTrue(path.hasSuffix(".jpg"))
        XCTAssertTrue(path.hasPrefix(root + "/v1/"))
        XCTAssertEqual(try cache.lookup(url: url, variant: variant, recordingAccess: false)?.lastAccessAt, 777)
        XCTAssertNil(try cache.path(for: url, longestSide: 600))
        XCTAssertNil(try cache.path(for: "https://img.example.com/unknown.jpg", longestSide: 300))
    }

    func testEntriesForURLListsEveryVariant() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [1], variant: CacheVariant(longestSide: 600, format: .jpeg), data: try jpeg(), metadata: metadata())
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        try cache.recordFailure(url: url, productIds: [1], variant: CacheVariant(longestSide: 300, format: .webp), reason: "encoding failed")
        XCTAssertEqual(try cache.entries(forURL: url).map(\.variant.name), ["300.jpg", "300.webp", "600.jpg"])
    }

    func testEntriesForManyURLsEqualEachURLsOwnEntriesAcrossTheStatementChunks() throws {
        let cache = try openCache()
        // 1,203 URLs: three statements of at most 500; every 400th has three rows, one of them a failure.
        let urls = (0..<1_203).map { "https://img.example.com/\($0).jpg" }
        let image = try jpeg()
        for (index, url) in urls.enumerated() where index % 2 == 0 {
            try cache.recordFailure(url: url, productIds: [index], variant: variant, reason: "the server answered 500")
            if index % 400 == 0 {
                try cache.store(url: url, productIds: [index], variant: variant, data: image, metadata: metadata())
                try cache.store(url: url, productIds: [index], variant: CacheVariant(longestSide: 600, format: .jpeg),
                                data: image, metadata: metadata())
                try cache.recordFailure(url: url, productIds: [index], variant: CacheVariant(longestSide: 300, format: .webp),
                                        reason: "encoding failed")
            }
        }
        let together = try cache.entries(forURLs: urls.map { try CanonicalURL($0) })
        XCTAssertEqual(together.count, 602, "the 602 even URLs have rows, the odd ones none")
        for url in urls {
            let own = try cache.entries(forURL: url)
            XCTAssertEqual(together[try CanonicalURL(url).text] ?? [], own, url)
        }
        XCTAssertEqual(together[try CanonicalURL(urls[800]).text]?.map(\.variant.name), ["300.jpg", "300.webp", "600.jpg"])
        XCTAssertEqual(try cache.entries(forURLs: []), [:])
    }

    func testConcurrentStoresLeaveEveryFileMatchingItsRow() throws {
        let cache = try openCache()
        let images = try (1...4).map { try jpeg(width: 40 + 8 * $0, height: 30 + 6 * $0, seed: UInt64($0)) }
        let variant = self.variant
        let failures = FailureLog()
        // 8 URLs, each stored 4 times at once with different bytes: the last
        // rename and the last row must come from the same store. A thread per
        // store (`concurrentPerform` runs one per core) and eight rounds: with
        // `KeyLocks` made a no-op this failed 4 runs in 4, with two at a time 1 in 3.
        for round in 0..<8 {
            onThreads(32) { index in
                let image = (index + round) % 4
                do {
                    try cache.store(url: "https://img.example.com/\(index / 4).jpg", productIds: [index], variant: variant,
                                    data: images[image],
                                    metadata: CacheMetadata(sourceBytes: 1, sourceFormat: "jpeg", sourceWidth: 1, sourceHeight: 1,
                                                            outputWidth: 48 + 8 * image, outputHeight: 36 + 6 * image,
                                                            fetchedAt: Double(round * 32 + index)))
                } catch {
                    failures.append("\(error)")
                }
            }
            XCTAssertEqual(failures.messages, [])
            let report = try cache.maintenance.verify(validator: Self.validator)
            XCTAssertEqual(report.checkedCount, 8)
            XCTAssertEqual(report.problems, [], "round \(round)")
            XCTAssertTrue(report.isClean, "\(report)")
        }
        XCTAssertEqual(try cache.entries(forURL: "https://img.example.com/0.jpg").first?.productIds, [0, 1, 2, 3])
    }

    func testOperationsAfterCloseThrowClosed() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        try cache.close()
        assertThrowsCacheError("closed") { try cache.lookup(url: url, variant: variant) }
        assertThrowsCacheError("closed") { try cache.entries(forURL: url) }
        assertThrowsCacheError("closed") {
            try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        }
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [], "a refused store leaves no temp file")
    }
}

/// Runs `body(0..<count)` on `count` threads of its own, started at once; returns when all have.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        done.enter()
        Thread {
            start.wait()
            body(index)
            done.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
}

/// Collects messages from concurrent work.
final class FailureLog: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ message: String) { items.withLock { $0.append(message) } }
    var messages: [String] { items.withLock { $0 } }
}
