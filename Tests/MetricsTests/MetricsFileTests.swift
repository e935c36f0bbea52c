@testable import Downsample
import Foundation
@testable import WarmSupport
@testable import WarmMetrics
import XCTest

final class MetricsFileTests: XCTestCase {
    func testJSONLinesRoundTripKeepsFieldNames() async throws {
        var first = MetricsFixtures.record(url: "https://example.test/a,b", naive: 4_000, renderer: 400, thumbnail: 400)
        first.shard = "worker-1"
        let second = MetricsFixtures.failed(url: "https://example.test/broken")

        let line = try JSONLines.line(first)
        XCTAssertEqual(line.last, UInt8(ascii: "\n"))
        XCTAssertEqual(line.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one object per line")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: line) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["productId", "url", "shard", "format", "sourceBytes", "sourceSHA256", "width", "height",
                                          "orientation", "targetLongestSide", "role", "outputFormat", "outputQuality", "peakMethod",
                                          "build", "decoders", "measured", "error", "errorReason", "strategies"])
        XCTAssertEqual(object["format"] as? String, "jpeg")
        XCTAssertTrue(object["error"] is NSNull, "a missing error is an explicit null")
        let strategies = try XCTUnwrap(object["strategies"] as? [String: Any])
        XCTAssertEqual(Set(strategies.keys), ["naive", "renderer", "thumbnail"])
        let naive = try XCTUnwrap(strategies["naive"] as? [String: Any])
        XCTAssertEqual(Set(naive.keys), ["retainedBytes", "peakBytes", "cpuSeconds", "wallSeconds", "outputWidth", "outputHeight",
                                         "decodedPixels", "ssim", "psnr"])
        XCTAssertTrue(naive["ssim"] is NSNull)
        XCTAssertEqual(naive["retainedBytes"] as? Int, 4_000)

        let failedObject = try XCTUnwrap(JSONSerialization.jsonObject(with: try JSONLines.line(second)) as? [String: Any])
        XCTAssertTrue((failedObject["strategies"] as? [String: Any])?["thumbnail"] is NSNull)

        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.jsonl").path, b = directory.appendingPathComponent("b.jsonl").path
        try JSONLinesWriter.write([first], to: a)
        let writer = try JSONLinesWriter(path: b)
        try await writer.append(second)
        try await writer.append(first)
        try await writer.close()
        XCTAssertEqual(try JSONLinesReader.read(paths: [a, b]), [first, second, first])
    }

    func testBadLineIsReportedWithItsFileAndNumber() throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.jsonl").path
        var data = try JSONLines.line(MetricsFixtures.failed(url: "ok"))
        data.append(Data("\n{\"url\": \"no other field\"}\n".utf8))
        try data.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try JSONLinesReader.read(path: path)) { error in
            guard case MetricsFileError.badLine(let file, let line, let reason) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(file, path)
            XCTAssertEqual(line, 3)
            XCTAssertTrue(reason.contains("missing"), reason)
        }
    }

    func testCSVFlattensEachStrategyIntoItsOwnColumns() {
        let records = [MetricsFixtures.record(url: "https://example.test/a,\"b\"", naive: 4_000, renderer: 400, thumbnail: 300),
                       MetricsFixtures.failed(url: "https://example.test/broken")]
        let lines = CSVWriter.csv(records).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        XCTAssertEqual(lines.count, 3)
        let header = lines[0].components(separatedBy: ",")
        XCTAssertEqual(header.count, 14 + 3 * 8)
        for column in ["naive_retainedBytes", "renderer_peakBytes", "thumbnail_ssim", "thumbnail_outputWidth"] {
            XCTAssertTrue(header.contains(column), column)
        }
        XCTAssertTrue(lines[1].contains("\"https://example.test/a,\"\"b\"\"\""), lines[1])
        let thumbnailRetained = header.firstIndex(of: "thumbnail_retainedBytes")!
        XCTAssertEqual(CSVWriter.row(for: records[0])[thumbnailRetained], "300")
        XCTAssertEqual(CSVWriter.row(for: records[1])[thumbnailRetained], "")
    }
}
