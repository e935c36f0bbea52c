import Foundation
@testable import WarmSupport
import XCTest

/// `AtomicFile`, the one writer that replaces files (cache, export, summary, Prometheus file, metrics, thumbnails):
/// all or nothing, no temp file left, concurrent writers each succeed with one whole result.
final class AtomicFileTests: CacheTestCase {
    private struct ProducerFailed: Error {}

    private func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
    }

    func testAProducerThatThrowsMidwayLeavesTheOldFileAndNoTempFile() throws {
        let path = outside + "/last-run.json"
        try AtomicFile.write(Data("old".utf8), to: path)
        XCTAssertThrowsError(try AtomicFile.write(to: path) { sink in
            try sink.write(Data(repeating: UInt8(ascii: "n"), count: 100_000))
            throw ProducerFailed()
        }) { XCTAssertTrue($0 is ProducerFailed, "the producer's own error comes back: \($0)") }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old")
        XCTAssertEqual(try names(), ["last-run.json"])
    }

    func testAFailedWriteNamesTheCallAndPathAndLeavesNothing() throws {
        let path = outside + "/missing/warm.prom"
        XCTAssertThrowsError(try AtomicFile.write(Data("x".utf8), to: path)) { error in
            let failure = error as? AtomicFileError
            XCTAssertEqual(failure?.operation, "open directory")
            XCTAssertEqual(failure?.code, ENOENT)
            XCTAssertTrue("\(error)".contains(outside + "/missing"), "\(error)")
        }
        XCTAssertEqual(try names(), [])
    }

    func testTwoConcurrentWritersBothSucceedAndReadersOnlyEverSeeOneWholeFile() throws {
        let path = outside + "/metrics.csv"
        let contents = [Data(repeating: UInt8(ascii: "a"), count: 256 << 10), Data(repeating: UInt8(ascii: "b"), count: 300 << 10)]
        try AtomicFile.write(contents[0], to: path)
        let failures = FailureLog()
        let rounds = 40
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for _ in 0..<rounds {
                if worker == 2 {
                    // A reader beside the two writers: always one writer's whole bytes.
                    let seen = FileManager.default.contents(atPath: path) ?? Data()
                    if !contents.contains(seen) { failures.append("a reader saw \(seen.count) bytes of neither file") }
                    continue
                }
                do {
                    // Streamed in chunks, so the two writes interleave at the system-call level.
                    try AtomicFile.write(to: path, durable: worker == 0) { sink in
                        for chunk in stride(from: 0, to: contents[worker].count, by: 16 << 10) {
                            try sink.write(contents[worker][chunk..<min(chunk + (16 << 10), contents[worker].count)])
                        }
                    }
                } catch {
                    failures.append("writer \(worker): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.messages, [])
        XCTAssertTrue(contents.contains(try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertEqual(try names(), ["metrics.csv"], "no temp file left behind")
    }

    func testPermissionsAreExactWhenAskedAndTheUmasksOtherwise() throws {
        let exact = outside + "/exact", plain = outside + "/plain"
        let previous = umask(0o077)
        defer { umask(previous) }
        try AtomicFile.write(Data("x".utf8), to: exact, permissions: 0o644)
        try AtomicFile.write(Data("x".utf8), to: plain)
        let mode = { (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
        }
        XCTAssertEqual(mode(exact), 0o644)
        XCTAssertEqual(mode(plain), 0o600)
    }
}
