@testable import Cache
import CacheTestSupport
import Foundation
@testable import Servers
import WarmTestSupport
import XCTest

/// The origin in the test process on 127.0.0.1, over a cache written through `DiskCache`.
final class OriginServerTests: XCTestCase {
    private let image = "https://img.example.test/p/1.jpg?w=800"
    private let jpeg = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    private let webp = Data((0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    private let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    private func start() async throws -> OriginHarness {
        try await OriginHarness.start(self, writing: [
            (image, CacheVariant(longestSide: 300, format: .jpeg), jpeg),
            (image, CacheVariant(longestSide: 300, format: .webp), webp),
            (image, CacheVariant(longestSide: 600, format: .jpeg), jpeg + jpeg),
        ])
    }

    func testAThumbnailIsServedWithItsBytesAndValidators() async throws {
        let origin = try await start()
        let answer = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, jpeg)
        XCTAssertEqual(answer.header("Content-Type"), "image/jpeg")
        XCTAssertEqual(answer.header("Content-Length"), "3000")
        XCTAssertEqual(answer.header("ETag"), try OriginRequests.expectedETag(of: jpeg))
        XCTAssertEqual(answer.header("Cache-Control"), "public, max-age=86400, stale-while-revalidate=604800")
        XCTAssertNil(answer.header("Vary"), "a named format does not depend on Accept")
        let modified = try XCTUnwrap(answer.header("Last-Modified"))
        XCTAssertNotNil(modified.range(of: #"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$"#, options: .regularExpression), modified)

        // Another spelling of the same URL is the same key.
        let respelled = try await origin.get(OriginHarness.thumbnailPath(url: "HTTPS://IMG.example.test:443/p/./1.jpg?w=800#x", size: 600, format: "jpg"))
        XCTAssertEqual(respelled.status, 200)
        XCTAssertEqual(respelled.body, jpeg + jpeg)

        let head = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"), head: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body.count, 0)
        XCTAssertEqual(head.header("Content-Length"), "3000")
        XCTAssertEqual(head.header("ETag"), answer.header("ETag"))
    }

    func testMatchingValidatorsGet304AndOthersTheBody() async throws {
        let origin = try await start()
        let path = OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg")
        let first = try await origin.get(path)
        let etag = try XCTUnwrap(first.header("ETag"))
        let modified = try XCTUnwrap(first.header("Last-Modified"))
        for value in [etag, "W/" + etag, "\"other\", " + etag, "*"] {
            let again = try await origin.get(path, headers: [("If-None-Match", value)])
            XCTAssertEqual(again.status, 304, value)
            XCTAssertEqual(again.body.count, 0)
            XCTAssertEqual(again.header("ETag"), etag)
        }
        let changed = try await origin.get(path, headers: [("If-None-Match", "\"other\"")])
        XCTAssertEqual(changed.status, 200)
        XCTAssertEqual(changed.body, jpeg)
        let since = try await origin.get(path, headers: [("If-Modified-Since", modified)])
        XCTAssertEqual(since.status, 304)
        let before = try await origin.get(path, headers: [("If-Modified-Since", "Thu, 01 Jan 1998 00:00:00 GMT")])
        XCTAssertEqual(before.status, 200)
        let ignored = try await origin.get(path, headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", modified)])
        XCTAssertEqual(ignored.status, 200, "If-Modified-Since counts only without If-None-Match")
    }

    func testAcceptPicksTheBestFormatHeldWithVaryAccept() async throws {
        let origin = try await start()
        let path = OriginHarness.thumbnailPath(url: image, size: 300)
        let modern = try await origin.get(path, headers: [("Accept", chrome)])
        XCTAssertEqual(modern.status, 200)
        XCTAssertEqual(modern.header("Content-Type"), "image/webp")
        XCTAssertEqual(modern.body, webp)
        XCTAssertEqual(modern.header("Vary"), "Accept")
        let old = try await origin.get(path, headers: [("Accept", "*/*")])
        XCTAssertEqual(old.header("Content-Type"), "image/jpeg")
        XCTAssertEqual(old.header("Vary"), "Accept")
        let revalidated = try await origin.get(path, headers: [("Accept", chrome), ("If-None-Match", modern.header("ETag")!)])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertEqual(revalidated.header("Vary"), "Accept")
        let onlyJSON = try await origin.get(path, headers: [("Accept", "application/json")])
        XCTAssertEqual(onlyJSON.status, 406)
        let named = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "webp"), headers: [("Accept", "*/*")])
        XCTAssertEqual(named.header("Content-Type"), "image/webp", "format= wins over Accept")
        let absent = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "avif"), headers: [("Accept", chrome)])
        XCTAssertEqual(absent.status, 404, "a named format the cache lacks is a miss")
    }

    func testMissesAre404AndCounted() async throws {
        let origin = try await start()
        let unknownImage = try await origin.get(OriginHarness.thumbnailPath(url: "https://img.example.test/p/2.jpg", size: 300))
        XCTAssertEqual(unknownImage.status, 404)
        XCTAssertEqual(unknownImage.header("Cache-Control"), "public, max-age=60")
        let unknownSize = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 301))
        XCTAssertEqual(unknownSize.status, 404)
        // A row whose file is gone (deleted by hand, or evicted between the row and the file) is a miss too.
        let file = origin.root + "/" + CacheLayout.relativePath(url: try CanonicalURL(image), variant: CacheVariant(longestSide: 600, format: .jpeg))
        try FileManager.default.removeItem(atPath: file)
        let gone = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 600))
        XCTAssertEqual(gone.status, 404)
        let metrics = try await origin.get("/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        XCTAssertTrue(text.contains("warm_origin_misses_total 3"), text)
        XCTAssertTrue(text.contains("warm_origin_requests_total{status=\"404\"} 3"), text)
        XCTAssertTrue(text.contains("warm_origin_request_duration_seconds_count 3"), text)
        let health = try await origin.get("/healthz")
        XCTAssertEqual(health.status, 200)
    }

    func testHostileRequestsGet400Or404AndNeverAFileOutsideTheCache() async throws {
        let origin = try await start()
        let hostile = [
            "/v1/thumbnail?url=../../etc/passwd&size=300",
            "/v1/thumbnail?url=..%2F..%2F..%2Fetc%2Fpasswd&size=300&format=jpeg",
            "/v1/thumbnail?url=file:///etc/passwd&size=300",
            "/v1/thumbnail?url=file%3A%2F%2Flocalhost%2Fetc%2Fpasswd&size=300",
            "/v1/thumbnail?url=http://x/../../../../etc/passwd&size=300",
            "/v1/thumbnail?url=https%3A%2F%2Fx%2F%ZZ&size=300",
            "/v1/thumbnail?url=https%3A%2F%2Fx%2F%FF&size=300",
            "/v1/thumbnail?url=https%3A%2F%2Fimg.example.test%2Fp%2F1.jpg&size=-1",
            "/v1/thumbnail?url=https%3A%2F%2Fimg.example.test%2Fp%2F1.jpg&size=99999999999999999999",
            "/v1/thumbnail?url=https%3A%2F%2Fimg.example.test%2Fp%2F1.jpg&size=300&format=..%2F..%2Fetc%2Fpasswd",
            "/v1/thumbnail?url=https%3A%2F%2Fimg.example.test%2Fp%2F1.jpg&size=300&format=%00",
            "/v1/thumbnail?size=300",
            "/v1/thumbnail?url=" + String(repeating: "a", count: 9000) + "&size=300",
            "/v1/../../etc/passwd",
            "/v1/thumbnail/../../../etc/passwd?url=x&size=1",
        ]
        for target in hostile {
            let answer = try rawRequest(port: origin.running.port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            XCTAssertTrue([400, 404].contains(answer.status), "\(target.prefix(120)): \(answer.text.prefix(300))")
            XCTAssertFalse(answer.text.contains("root:"), target)
        }
        // A request line beyond the header limit is refused by the parser before any handler runs.
        let huge = try rawRequest(port: origin.running.port,
                                  "GET /v1/thumbnail?url=" + String(repeating: "a", count: 40_000) + "&size=300 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue([400, 431, 0].contains(huge.status), huge.text.prefix(300).description)
        let stillServing = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"))
        XCTAssertEqual(stillServing.status, 200)
    }
}
