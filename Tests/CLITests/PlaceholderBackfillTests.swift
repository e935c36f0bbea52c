@testable import DemoCatalog
@testable import Servers
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// Images cached before placeholders existed have `thumbHash` NULL in the manifest. A run that finds them fresh, or
/// revalidates them with a 304, fills the placeholder from the thumbnail it has cached: no download.
final class PlaceholderBackfillTests: XCTestCase {
    func testFreshAndNotModifiedEntriesGetTheirPlaceholderFromTheCachedThumbnailWithoutADownload() async throws {
        let server = try await TestCatalog.start(products: 40)
        let directory = try makeTemporaryDirectory()
        let cache = directory.appendingPathComponent("cache").path
        func run(_ extra: [String] = []) throws {
            let result = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache,
                                             "--size", "96", "--size", "160", "--no-progress"] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        try run()
        let fresh = try Self.placeholders(cache)
        XCTAssertGreaterThan(fresh.count, 40, "two variants per distinct thumbnail")
        XCTAssertTrue(fresh.values.allSatisfy { $0.thumbHash != nil }, "a fresh run stores placeholders")

        for (phase, extra) in [("fresh", [String]()), ("revalidated", ["--max-age", "0"])] {
            try Self.sqlite(cache, "UPDATE entry SET thumbHash = NULL, averageColor = NULL")
            XCTAssertTrue(try Self.placeholders(cache).values.allSatisfy { $0.thumbHash == nil })
            await server.stats.reset()
            try run(extra)
            let served = await server.stats.snapshot()
            XCTAssertEqual(served.requests(route: "thumbnail"), served.notModifiedResponses,
                           "\(phase): no thumbnail was downloaded, only revalidated")
            if phase == "revalidated" { XCTAssertGreaterThan(served.notModifiedResponses, 0) }

            let filled = try Self.placeholders(cache)
            XCTAssertEqual(Set(filled.keys), Set(fresh.keys))
            XCTAssertTrue(filled.values.allSatisfy { $0.thumbHash != nil && $0.averageColor != nil },
                          "\(phase): every entry has its placeholder again")
            // A JPEG source's first variant comes from the direct JPEG path, whose placeholder a fresh run makes from
            // those very bytes: the backfill gives the same.
            let jpeg = fresh.filter { $0.value.sourceFormat == "jpeg" }
            XCTAssertGreaterThan(jpeg.count, 4)
            for (key, made) in jpeg {
                XCTAssertEqual(filled[key]?.thumbHash, made.thumbHash, "\(phase): \(key)")
                XCTAssertEqual(filled[key]?.averageColor, made.averageColor, "\(phase): \(key)")
            }
            let same = filled.filter { fresh[$0.key]?.thumbHash == $0.value.thumbHash }.count
            print("\(phase): \(same) of \(filled.count) placeholders equal to the fresh run's (\(jpeg.count) from JPEG sources)")
        }
        await server.shutdown()
        let verify = try WarmBinary.run(["cache", "verify", cache])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    struct Placeholder: Equatable {
        var thumbHash: String?
        var averageColor: String?
        var sourceFormat: String?
    }

    /// Each row's placeholder (hex) by "url variant", read with another SQLite client than the cache's (Python's).
    static func placeholders(_ cache: String) throws -> [String: Placeholder] {
        let output = try sqlite(cache, "SELECT url, variant, hex(thumbHash), averageColor, sourceFormat FROM entry")
        var rows: [String: Placeholder] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5 else { continue }
            rows[fields[0] + " " + fields[1]] = Placeholder(thumbHash: fields[2].isEmpty ? nil : fields[2],
                                                            averageColor: fields[3] == "None" ? nil : fields[3],
                                                            sourceFormat: fields[4])
        }
        return rows
    }

    /// Runs one statement on the cache's manifest; a query's rows come back tab-separated.
    @discardableResult
    static func sqlite(_ cache: String, _ statement: String) throws -> String {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for row in db.execute(sys.argv[2]):
                print("\\t".join("" if v is None and i == 2 else str(v) for i, v in enumerate(row)))
            db.commit()
            db.close()
            """
        let python = try ChildProcess.run("/usr/bin/env", arguments: ["python3", "-c", script, cache + "/manifest.sqlite", statement],
                                          environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(python.status, .exited(0), statement + ": " + python.stderr)
        return python.stdout
    }
}
