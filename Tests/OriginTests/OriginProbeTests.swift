@testable import Cache
import CacheTestSupport
import Foundation
@testable import Servers
import WarmTestSupport
import XCTest

/// What an orchestrator, a load balancer or an uptime checker asks the origin: `HEAD` on every route, liveness that
/// reads no file, readiness, and the probes and metrics on an admin port the public Service does not expose.
final class OriginProbeTests: XCTestCase {
    private let image = "https://img.example.test/p/1.jpg"
    private let jpeg = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func start(configuration: OriginConfiguration = OriginConfiguration()) async throws -> OriginHarness {
        try await OriginHarness.start(self, writing: [(image, CacheVariant(longestSide: 300, format: .jpeg), jpeg)],
                                      configuration: configuration)
    }

    func testHeadAnswersWhereverGetDoesWithTheSameHeadersAndNoBody() async throws {
        let origin = try await start()
        for path in ["/livez", "/healthz", "/v1/manifest", OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"),
                     OriginHarness.thumbnailPath(url: image, size: 301)] {
            let get = try await origin.get(path)
            XCTAssertFalse(get.body.isEmpty, path)
            // Written byte for byte: a client library may refuse a gzip HEAD answer without a body (AsyncHTTPClient
            // with decompression on does), and the check is that nothing follows the headers before the close.
            let head = try Self.head(port: origin.running.port, path)
            XCTAssertEqual(head.status, get.status, path)
            XCTAssertEqual(head.bytesAfterHeaders, 0, path)
            for name in ["Content-Type", "Content-Length", "ETag", "Cache-Control", "Content-Encoding"] {
                XCTAssertEqual(head.headers[name.lowercased()], get.header(name), "\(name) of \(path)")
            }
        }
        // A hot thumbnail's HEAD on a kept-alive connection is answered below the router (`ThumbnailChannelHandler`).
        let hot = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"), head: true)
        XCTAssertEqual(hot.status, 200)
        XCTAssertEqual(hot.body.count, 0)
        XCTAssertEqual(hot.header("Content-Length"), "3000")
        // /metrics grows as requests are counted, so its length is not compared with a GET's; its type and a length are.
        let metrics = try Self.head(port: origin.running.port, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertEqual(metrics.bytesAfterHeaders, 0)
        XCTAssertEqual(metrics.headers["content-type"], "text/plain; version=0.0.4")
        XCTAssertGreaterThan(Int(metrics.headers["content-length"] ?? "") ?? 0, 0)
        let unknown = try Self.head(port: origin.running.port, "/nothing-here")
        XCTAssertEqual(unknown.status, 404)
    }

    /// `HEAD path` on a new connection that the server closes after answering: the status, the headers (names in
    /// lower case) and how many bytes came after them.
    private static func head(port: Int, _ path: String) throws -> (status: Int, headers: [String: String], bytesAfterHeaders: Int) {
        let answer = try rawRequest(port: port, "HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let parts = answer.text.components(separatedBy: "\r\n\r\n")
        var headers: [String: String] = [:]
        for line in parts[0].components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (answer.status, headers, parts.dropFirst().joined(separator: "\r\n\r\n").utf8.count)
    }

    func testWithoutAnAdminPortTheProbesAndMetricsAnswerOnTheOnePort() async throws {
        let origin = try await start()
        XCTAssertNil(origin.origin.adminURL)
        for path in ["/livez", "/healthz", "/metrics"] {
            let answer = try await origin.get(path)
            XCTAssertEqual(answer.status, 200, path)
        }
        let live = try await origin.get("/livez")
        XCTAssertEqual(String(decoding: live.body, as: UTF8.self), "ok\n")
    }

    func testWithAnAdminPortTheProbesAndMetricsAnswerThereOnlyAndThumbnailsOnThePublicPortOnly() async throws {
        var configuration = OriginConfiguration()
        configuration.adminPort = 0
        let origin = try await start(configuration: configuration)
        let adminURL = try XCTUnwrap(origin.origin.adminURL)
        XCTAssertNotEqual(adminURL.port, origin.running.baseURL.port)
        let thumbnail = OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg")
        for path in ["/livez", "/healthz", "/metrics"] {
            for head in [false, true] {
                let publicAnswer = try await origin.get(path, head: head)
                XCTAssertEqual(publicAnswer.status, 404, "\(path) on the public port")
                let adminAnswer = try await origin.admin(path, head: head)
                XCTAssertEqual(adminAnswer.status, 200, "\(path) on the admin port")
            }
        }
        let metrics = String(decoding: try await origin.admin("/metrics").body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("warm_origin_index_files 1\n"), metrics)
        XCTAssertTrue(metrics.contains("warm_origin_index_reload_failing 0\n"), metrics)
        let served = try await origin.get(thumbnail)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body, jpeg)
        let onAdmin = try await origin.admin(thumbnail)
        XCTAssertEqual(onAdmin.status, 404, "thumbnails are not served on the admin port")
        let manifestOnAdmin = try await origin.admin("/v1/manifest")
        XCTAssertEqual(manifestOnAdmin.status, 404)
    }

    func testLivezAnswersWhenTheCacheDirectoryIsGoneAndHealthzDoesNot() async throws {
        var configuration = OriginConfiguration()
        configuration.adminPort = 0
        let origin = try await start(configuration: configuration)
        // The volume goes away under the process: liveness reads no file, so the pod is not restarted for it;
        // readiness says the manifest is gone once the index has noticed (within its refresh interval).
        try FileManager.default.removeItem(atPath: origin.root)
        let deadline = ContinuousClock.now + .seconds(10)  // generous: the refresh runs every 100 ms
        var health = try await origin.admin("/healthz")
        while health.status == 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            health = try await origin.admin("/healthz")
        }
        XCTAssertEqual(health.status, 503)
        let live = try await origin.admin("/livez")
        XCTAssertEqual(live.status, 200)
    }
}
