import Cache
import CacheTestSupport
import Foundation
import Servers
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
            let head = try await origin.get(path, head: true)
            XCTAssertEqual(head.status, get.status, path)
            XCTAssertEqual(head.body.count, 0, path)
            XCTAssertFalse(get.body.isEmpty, path)
            for name in ["Content-Type", "Content-Length", "ETag", "Cache-Control", "Content-Encoding"] {
                XCTAssertEqual(head.header(name), get.header(name), "\(name) of \(path)")
            }
        }
        // /metrics grows as requests are counted, so its length is not compared; its type and a length are.
        let metrics = try await origin.get("/metrics", head: true)
        XCTAssertEqual(metrics.status, 200)
        XCTAssertEqual(metrics.body.count, 0)
        XCTAssertEqual(metrics.header("Content-Type"), "text/plain; version=0.0.4")
        XCTAssertGreaterThan(Int(metrics.header("Content-Length") ?? "") ?? 0, 0)
        let unknown = try await origin.get("/nothing-here", head: true)
        XCTAssertEqual(unknown.status, 404)
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
