import Cache
import CacheTestSupport
import Foundation
import GRDB
import Origin
import XCTest

/// A cache tree someone tampered with: the origin still names files only by the hash of the key.
final class TamperedCacheTests: XCTestCase {
    private let image = "https://img.example.test/p/1.jpg"
    private let variant = CacheVariant(longestSide: 300, format: "jpg")

    func testARowNamingAnotherPathIsNotServed() async throws {
        let origin = try await OriginHarness.start(self, writing: [(image, variant, Data(repeating: 7, count: 500))])
        let database = try DatabaseQueue(path: origin.root + "/manifest.sqlite")
        try await database.write { db in
            try db.execute(sql: "UPDATE entry SET path = 'v1/../../../../etc/passwd'")
        }
        try database.close()
        let answer = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300))
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
