import Foundation
import XCTest

/// Directories for a test's files under the system's temporary directory.
public enum TemporaryDirectory {
    /// Creates a new empty directory named after `name`; the caller removes it.
    public static func create(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("warm-tests-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension XCTestCase {
    /// A new empty directory, removed with everything in it when the test ends
    /// (a teardown block: it runs before `tearDown`, after the blocks added later).
    public func makeTemporaryDirectory(_ name: String = #function) throws -> URL {
        let url = try TemporaryDirectory.create(name)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
