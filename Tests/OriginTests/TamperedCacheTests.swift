@testable import Cache
import CacheTestSupport
import Foundation
import GRDB
@testable import Servers
import XCTest

/// A cache tree someone tampered with: the origin still names files only by the hash of the key.
final class TamperedCacheTests: XCTestCase {
    private let image = "https://img.example.test/p/1.jpg"
    private let variant = CacheVariant(longestSide: 300, format: .jpeg)

    func testARowNamingAnotherPathIsNotServed() async throws {
        let origin = try await OriginHarness.start(self, writing: [(image, variant, Data(repeating: 7, count: 500))])
        let database = try DatabaseQueue(path: origin.root + "/manifest.sqlite")
        try await database.write { db in
            try db.execute(sql: "UPDATE entry SET path = 'v1/../../../../etc/passwd'")
        }
        try database.close()
        // Within the origin's refresh interval it may still send the file it indexed (by the key's hash); never
        // what the row names now.
        let deadline = ContinuousClock.now + .seconds(10)
        var answer = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300))
        while answer.status == 200 && ContinuousClock.now < deadline {
            XCTAssertEqual(answer.body, Data(repeating: 7, count: 500))
            try await Task.sleep(for: .milliseconds(50))
            answer = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300))
        }
        XCTAssertEqual(answer.status, 404)
        XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains("root:"))
    }

    func testALinkPlantedAtAThumbnailIsNotFollowed() async throws {
        let origin = try await OriginHarness.start(self, writing: [(image, variant, Data(repeating: 7, count: 500))])
        let file = origin.root + "/" + CacheLayout.relativePath(url: try CanonicalURL(image), variant: variant)
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/etc/passwd")
        let answer = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300))
        XCTAssertNotEqual(answer.status, 200)
        XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains("root:"))
        let healthy = try await origin.get("/healthz")
        XCTAssertEqual(healthy.status, 200, "one bad file does not take the origin down")
    }
}
