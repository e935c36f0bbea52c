import Foundation
import WarmSupport

/// Paths inside one cache directory (`LAYOUT.md`): `v1/<h0h1>/<h2h3>/<sha256(url + "\n" + variant)>.<ext>`, so no
/// URL text ever reaches a path. `v1` is the layout version: another hashing or naming would move to `v2/`.
public struct CacheLayout: Sendable, Hashable {
    /// Absolute, without a trailing slash.
    public let root: String

    /// The shard whose manifest, lock and `tmp/` this names (nil: the tree's); thumbnails share `v1/` either way.
    let shard: CacheShard?

    static let versionDirectory = "v1"
    static let shardsDirectory = "shards"

    /// A relative `root` is made absolute so paths handed out stay valid if the process changes directory.
    public init(root: String, shard: CacheShard? = nil) {
        var path = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.root = path
        self.shard = shard
    }

    /// From the root to the manifest's directory: none for the tree, `shards`, `I-of-N` for a shard.
    var stateComponents: [String] {
        shard.map { [Self.shardsDirectory, $0.directoryName] } ?? []
    }

    /// The directory holding the manifest, lock and `tmp/` (the root, or `shards/I-of-N`).
    public var stateDirectory: String { ([root] + stateComponents).joined(separator: "/") }
    public var manifestPath: String { stateDirectory + "/manifest.sqlite" }
    var lockPath: String { stateDirectory + "/.lock" }
    var tempDirectory: String { stateDirectory + "/tmp" }
    public var shardsDirectoryPath: String { root + "/" + Self.shardsDirectory }
    var filesDirectory: String { root + "/" + Self.versionDirectory }

    /// `v1/ab/cd/abcd....jpg`, as stored in the manifest.
    static func relativePath(url: CanonicalURL, variant: CacheVariant) -> String {
        let hash = SHA256Hex.digest(of: url.text + "\n" + variant.name)
        return "\(versionDirectory)/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash).\(variant.format.fileExtension)"
    }

    func absolutePath(relative: String) -> String {
        root + "/" + relative
    }
}
