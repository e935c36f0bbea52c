import ArgumentParser
import Cache
import Foundation
import WarmSupport

struct CacheExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the app manifest: one JSON line per cached image with its placeholder and every variant's size, bytes and ETag.",
        discussion: """
            Fields (docs/cache-layout.md, "App manifest"): url, productIds, thumbHash (base64), averageColor (#rrggbb), \
            variants [{size, format, width, height, bytes, etag, decodedBytes}]. Every file is read to count and hash it; \
            etag is the ETag `warm cache serve` sends for it.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Option(help: "Write to this file (replaced atomically) instead of standard output.")
    var out: String?

    func run() async throws {
        if let out {
            let count = try CacheAccess.reading(directory) { try $0.maintenance.writeAppManifest(to: out) }
            Console.error("\(count) images written to \(out)")
            return
        }
        try CacheAccess.reading(directory) { cache in
            try cache.maintenance.exportAppManifest { image throws(CacheError) in
                guard let line = try? JSONLines.line(image) else { return }
                FileHandle.standardOutput.write(line)
            }
        }
    }
}
