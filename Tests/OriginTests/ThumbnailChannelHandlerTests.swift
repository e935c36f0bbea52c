@testable import Cache
import Foundation
@testable import Servers
import WarmTestSupport
import XCTest

/// A thumbnail in the hot set is answered on the event loop, below Hummingbird's router; the first request for it is
/// answered by the router after a read from disk. Both must look the same to a client, keep the order of pipelined
/// requests, and keep a busy connection open.
final class ThumbnailChannelHandlerTests: XCTestCase {
    private let image = "https://img.example.test/p/1.jpg?w=800"
    private let jpeg = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    private let webp = Data((0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    private let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    private func start(idleTimeoutSeconds: Int? = nil) async throws -> OriginHarness {
        var configuration = OriginConfiguration()
        if let idleTimeoutSeconds { configuration.idleTimeoutSeconds = idleTimeoutSeconds }
        return try await OriginHarness.start(self, writing: [
            (image, CacheVariant(longestSide: 300, format: .jpeg), jpeg),
            (image, CacheVariant(longestSide: 300, format: .webp), webp),
        ], configuration: configuration)
    }

    func testAHotThumbnailGetsTheSameAnswerAsItsFirstReadFromDisk() async throws {
        let origin = try await start()
        for (path, accept) in [(OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg"), "*/*"),
                               (OriginHarness.thumbnailPath(url: image, size: 300), chrome)] {
            let cold = try await origin.get(path, headers: [("Accept", accept)])
            let hot = try await origin.get(path, headers: [("Accept", accept)])
            XCTAssertEqual(cold.status, 200, path)
            XCTAssertEqual(hot.status, 200, path)
            XCTAssertEqual(hot.body, cold.body, path)
            XCTAssertEqual(hot.headers.filter { $0.key != "date" }, cold.headers.filter { $0.key != "date" }, path)
            XCTAssertNotNil(hot.header("Date"), path)
            XCTAssertEqual(hot.header("Server"), "warm-origin", path)

            let head = try await origin.get(path, head: true, headers: [("Accept", accept)])
            XCTAssertEqual(head.status, 200, path)
            XCTAssertEqual(head.body.count, 0, path)
            XCTAssertEqual(head.header("Content-Length"), cold.header("Content-Length"), path)
            XCTAssertEqual(head.header("ETag"), cold.header("ETag"), path)

            let revalidated = try await origin.get(path, headers: [("Accept", accept), ("If-None-Match", cold.header("ETag")!)])
            XCTAssertEqual(revalidated.status, 304, path)
            XCTAssertEqual(revalidated.body.count, 0, path)
            XCTAssertEqual(revalidated.header("ETag"), cold.header("ETag"), path)
            XCTAssertEqual(revalidated.header("Vary"), cold.header("Vary"), path)
            XCTAssertNil(revalidated.header("Content-Type"), path)
        }
        let named = try await origin.get(OriginHarness.thumbnailPath(url: image, size: 300, format: "webp"))
        XCTAssertEqual(named.body, webp)
        let metrics = String(decoding: try await origin.get("/metrics").body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("warm_origin_requests_total{status=\"200\"} 7"), metrics)
        XCTAssertTrue(metrics.contains("warm_origin_requests_total{status=\"304\"} 2"), metrics)
        XCTAssertTrue(metrics.contains("warm_origin_response_body_bytes_total \(3000 * 2 + 2000 * 3)"), metrics)
    }

    func testPipelinedRequestsAreAnsweredInTheirOrder() async throws {
        let origin = try await start()
        let thumbnail = OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg")
        let first = try await origin.get(thumbnail)
        XCTAssertEqual(first.status, 200)  // now in the hot set
        let connection = try RawConnection(port: origin.running.port)
        // The first goes up to Hummingbird; the second, hot, must wait for it.
        try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET \(thumbnail) HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /v1/thumbnail?size=300 HTTP/1.1\r\nHost: x\r\n\r\nGET \(thumbnail) HTTP/1.1\r\nHost: x\r\n\r\n")
        let answers = try (0..<4).map { _ in try XCTUnwrap(try connection.readAnswer()) }
        XCTAssertEqual(answers.map(\.status), [200, 200, 400, 200])
        XCTAssertEqual(answers[0].body, Array("ok\n".utf8))
        XCTAssertEqual(answers[1].body, Array(jpeg))
        XCTAssertEqual(answers[3].body, Array(jpeg))
    }

    /// Busy: a request every 100 ms for more than twice the 3 s idle timeout, so only a stall of 3 s between two
    /// requests (which a loaded machine does not make) could close it. Idle: the read waits until the server closes
    /// the connection, up to 60 s, a bound on a hang rather than a measure of the timeout.
    func testABusyConnectionStaysOpenPastTheIdleTimeoutAndAnIdleOneIsClosed() async throws {
        let origin = try await start(idleTimeoutSeconds: 3)
        let thumbnail = OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg")
        let first = try await origin.get(thumbnail)
        XCTAssertEqual(first.status, 200)
        let connection = try RawConnection(port: origin.running.port, receiveTimeoutSeconds: 60)
        let started = ContinuousClock.now
        var answered = 0
        while ContinuousClock.now - started < .seconds(7) {
            try connection.send("GET \(thumbnail) HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try XCTUnwrap(try connection.readAnswer(), "closed while busy, after \(answered) answers")
            XCTAssertEqual(answer.status, 200)
            answered += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertTrue(try connection.isClosedByServer(), "an idle connection stays open with a 3 s idle timeout")
    }

    /// The handler answers only requests that keep the connection open; one that asks to close it goes up to
    /// Hummingbird, which answers and closes. Answered below, the connection would stay open, and `isClosedByServer`
    /// would wait out the receive timeout and throw.
    func testAHotThumbnailAskedWithConnectionCloseIsAnsweredAndTheConnectionCloses() async throws {
        let origin = try await start()
        let thumbnail = OriginHarness.thumbnailPath(url: image, size: 300, format: "jpeg")
        let first = try await origin.get(thumbnail)
        XCTAssertEqual(first.status, 200)  // now in the hot set
        let connection = try RawConnection(port: origin.running.port, receiveTimeoutSeconds: 3)
        try connection.send("GET \(thumbnail) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = try XCTUnwrap(try connection.readAnswer())
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, Array(jpeg))
        XCTAssertTrue(try connection.isClosedByServer())
    }
}
