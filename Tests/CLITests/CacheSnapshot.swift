@testable import Cache
import CacheTestSupport
import Foundation

/// What a cache directory holds, for comparing two caches: every file under
/// `v1/` with its bytes, and every manifest row's key, size and byte count.
struct CacheSnapshot: Equatable {
    struct Row: Hashable {
        var url: String
        var variant: String
        var path: String?
        var width: Int?
        var height: Int?
        var bytes: Int?
    }

    /// Relative path under the root -> bytes.
    var files: [String: Data]
    var rows: Set<Row>

    /// Reads `root`, and the rows of `urls` (the manifest's URLs are not listed
    /// by the public API, so callers pass the catalog's).
    init(root: String, urls: Set<String>) throws {
        files = [:]
        let base = URL(fileURLWithPath: root).appendingPathComponent("v1")
        if let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files["v1" + url.path.dropFirst(base.path.count)] = try Data(contentsOf: url)
            }
        }
        let cache = try DiskCache.open(root: root)
        defer { try? cache.close() }
        rows = []
        for url in urls {
            for entry in try cache.entries(forURL: url) {
                rows.insert(Row(url: entry.url, variant: entry.variant.name, path: entry.path,
                                width: entry.outputWidth, height: entry.outputHeight, bytes: entry.outputBytes))
            }
        }
    }
}
