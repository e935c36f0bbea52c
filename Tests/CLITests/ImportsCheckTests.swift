import Foundation
import WarmTestSupport
import XCTest

/// `scripts/check-imports.py` keeps docs/source-layout.md's table of what each module may import true: it reads every
/// import under Sources/ and the table, and fails on an import the table does not allow and on a module it omits;
/// it also fails on Foundation's `Process` anywhere under Sources/ or Tests/ (swift-corelibs-foundation#5472), and
/// when a production module (Servers, Pipeline, Cache) may reach the demo catalog, and on a process, a server or a
/// sleep in a test target of the fast tier (scripts/test-fast).
final class ImportsCheckTests: XCTestCase {
    private static let repository = repositoryRoot
    private var script: URL { Self.repository.appendingPathComponent("scripts/check-imports.py") }

    /// Sources/, Tests/, docs/ and scripts/ copied into a new folder.
    private func copyOfTheSources() throws -> URL {
        let root = try makeTemporaryDirectory()
        for folder in ["Sources", "Tests", "docs", "scripts"] {
            try FileManager.default.copyItem(at: Self.repository.appendingPathComponent(folder),
                                             to: root.appendingPathComponent(folder))
        }
        return root
    }

    func testEveryImportUnderSourcesIsOneTheLayoutPageAllows() throws {
        let result = try runPythonScript(script)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains(" 0 not allowed"), result.output)
    }

    func testAnImportTheLayoutPageDoesNotAllowAndAnUnlistedModuleAreEachReported() throws {
        let clean = try copyOfTheSources()
        let control = try runPythonScript(script, ["--root", clean.path])
        XCTAssertEqual(control.status, 0, "the unchanged copy must pass: \(control.output)")

        // The cache must not link libvips: an import of the C engine is refused.
        let root = try copyOfTheSources()
        let layout = root.appendingPathComponent("Sources/Cache/CacheLayout.swift")
        let text = try String(contentsOf: layout, encoding: .utf8)
        try ("@preconcurrency import CWarmVips\n" + text).write(to: layout, atomically: true, encoding: .utf8)
        let extra = root.appendingPathComponent("Sources/Extra")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try "import Foundation\n".write(to: extra.appendingPathComponent("Extra.swift"), atomically: true, encoding: .utf8)
        let result = try runPythonScript(script, ["--root", root.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Sources/Cache/CacheLayout.swift:1: Cache may not import CWarmVips"), result.output)
        XCTAssertTrue(result.output.contains("Sources/Extra: a Swift module that docs/source-layout.md's table does not list"),
                      result.output)
        XCTAssertTrue(result.output.contains(" 2 not allowed"), result.output)
    }

    func testTheDemoCatalogImportedByAProductionModuleOrAModuleItReachesIsReported() throws {
        // Directly: the origin's module imports the catalog, which its row does not allow.
        let direct = try copyOfTheSources()
        let running = direct.appendingPathComponent("Sources/Servers/RunningServer.swift")
        try ("import DemoCatalog\n" + String(contentsOf: running, encoding: .utf8)).write(to: running, atomically: true,
                                                                                          encoding: .utf8)
        let directResult = try runPythonScript(script, ["--root", direct.path])
        XCTAssertEqual(directResult.status, 1, directResult.output)
        XCTAssertTrue(directResult.output.contains("Sources/Servers/RunningServer.swift:1: Servers may not import DemoCatalog"),
                      directResult.output)

        // Indirectly: a row edited to allow it lets Pipeline reach the catalog through WarmMetrics.
        let root = try copyOfTheSources()
        let layout = root.appendingPathComponent("docs/source-layout.md")
        let text = try String(contentsOf: layout, encoding: .utf8)
        let row = "| WarmMetrics | Sources/Metrics | WarmSupport, Downsample |"
        XCTAssertTrue(text.contains(row), "the table's WarmMetrics row changed; update this test")
        try text.replacingOccurrences(of: row, with: "| WarmMetrics | Sources/Metrics | WarmSupport, Downsample, DemoCatalog |")
            .write(to: layout, atomically: true, encoding: .utf8)
        let result = try runPythonScript(script, ["--root", root.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Pipeline may reach DemoCatalog (Pipeline -> WarmMetrics -> DemoCatalog)"),
                      result.output)
    }

    func testFoundationsProcessUnderSourcesOrTestsIsReportedWithItsFileAndLine() throws {
        let root = try copyOfTheSources()
        let tests = root.appendingPathComponent("Tests/Planted")
        try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
        // Spelled in two pieces, so that this file passes the check it tests.
        let process = "Process", foundation = "Foundation."
        try """
            import Foundation
            // Foundation's `\(process)()` in a comment, ChildProcess(pid: 1) and ProcessInfo are fine.
            let process = \(process)()
            """.write(to: tests.appendingPathComponent("Planted.swift"), atomically: true, encoding: .utf8)
        let layout = root.appendingPathComponent("Sources/Cache/CacheLayout.swift")
        let text = try String(contentsOf: layout, encoding: .utf8)
        try (text + "\nlet planted: \(foundation)\(process)? = nil\n").write(to: layout, atomically: true, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        let result = try runPythonScript(script, ["--root", root.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Tests/Planted/Planted.swift:3: Foundation's Process"), result.output)
        XCTAssertTrue(result.output.contains("Sources/Cache/CacheLayout.swift:\(lines + 1): Foundation's Process"), result.output)
        XCTAssertTrue(result.output.contains("#5472"), result.output)
        XCTAssertTrue(result.output.contains("processes: 2 started"), result.output)
    }

    func testAProcessOrASleepInTheFastTierIsReportedAndAMovedTestIsNot() throws {
        let root = try copyOfTheSources()
        let file = root.appendingPathComponent("Tests/CacheTests/CacheLockTests.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        try (text + """

            // Task.sleep in a comment is fine.
            func planted() async throws { try await Task.sleep(for: .seconds(1)) }
            let child = ChildProcess.self

            """).write(to: file, atomically: true, encoding: .utf8)
        let result = try runPythonScript(script, ["--root", root.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Tests/CacheTests/CacheLockTests.swift:\(lines + 2): 'sleep' in the fast tier"), result.output)
        XCTAssertTrue(result.output.contains("Tests/CacheTests/CacheLockTests.swift:\(lines + 3): 'ChildProcess' in the fast tier"),
                      result.output)
        XCTAssertTrue(result.output.contains("fast tier: 2 processes, servers or sleeps"), result.output)

        // The same lines in a target of the slow tier are where they belong.
        try text.write(to: file, atomically: true, encoding: .utf8)
        let slow = root.appendingPathComponent("Tests/ChildProcessesTests/CacheLockProcessTests.swift")
        try (String(contentsOf: slow, encoding: .utf8) + "\nfunc planted() async throws { try await Task.sleep(for: .seconds(1)) }\n")
            .write(to: slow, atomically: true, encoding: .utf8)
        let moved = try runPythonScript(script, ["--root", root.path])
        XCTAssertEqual(moved.status, 0, moved.output)
    }
}
