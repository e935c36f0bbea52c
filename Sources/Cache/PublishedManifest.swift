import Foundation

/// Where the tree's manifest is published for origins on other hosts (LAYOUT.md, "Published snapshots"):
/// `published/manifest-<n>.sqlite`, each written once by `CacheMaintenance.publishSnapshot()` and never changed again, in
/// rollback-journal mode, and `published/manifest.sqlite`, a symbolic link to the newest, moved by one rename. An origin
/// opens the snapshot read-only with `immutable=1` (no lock, no `-shm`, no `-wal`), so no SQLite file on a shared
/// volume is opened on one host while another writes it.
public struct PublishedManifest: Sendable, Hashable {
    static let directoryName = "published"
    /// The pointer: a link to the newest snapshot's name, beside it.
    static let pointerName = "manifest.sqlite"
    static let snapshotPrefix = "manifest-"
    static let snapshotSuffix = ".sqlite"
    /// Names a publish writes before its renames (`.manifest-<n>.sqlite.tmp`, `.manifest.sqlite.tmp`); one left here
    /// was cut short by a crash, and the next publish removes it.
    static let temporarySuffix = ".tmp"

    /// Absolute, `<root>/published`.
    public let directory: String

    public init(root: String) {
        directory = CacheLayout(root: root).root + "/" + Self.directoryName
    }

    var pointerPath: String { directory + "/" + Self.pointerName }

    /// `manifest-<n>.sqlite`.
    static func snapshotName(sequence: Int) -> String { snapshotPrefix + String(sequence) + snapshotSuffix }

    /// The `n` of `manifest-<n>.sqlite`; nil for any other name (the pointer, temp files).
    static func sequence(ofSnapshot name: String) -> Int? {
        guard name.hasPrefix(snapshotPrefix), name.hasSuffix(snapshotSuffix) else { return nil }
        let digits = name.dropFirst(snapshotPrefix.count).dropLast(snapshotSuffix.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// The absolute path of the snapshot the pointer names (read from the link, so a reader opens that file by its own
    /// name and never meets the next one through the link); nil when nothing is published. Throws when the pointer is
    /// not a link to a `manifest-<n>.sqlite` beside it: it is never followed anywhere else.
    public func currentSnapshotPath() throws(CacheError) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { readlink(pointerPath, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 255) }
        guard count >= 0 else {
            if errno == ENOENT { return nil }
            throw .fileSystem(operation: "read the link", path: pointerPath, errno: errno)
        }
        let name = String(decoding: buffer[0..<count], as: UTF8.self)
        guard Self.sequence(ofSnapshot: name) != nil else {
            throw .fileSystem(operation: "follow the link (it names \"\(name)\", not a manifest-<n>.sqlite beside it)",
                              path: pointerPath, errno: EINVAL)
        }
        return directory + "/" + name
    }
}
