import Foundation

/// What tells one installed thumbnail's bytes apart without reading them, taken when the file is stored and kept in its
/// manifest row: the SHA-256 (the ETag), the byte count, and the inode and modification time of the file `rename(2)`
/// installed. Files are never written in place, so an open descriptor whose `fstat` matches holds exactly those bytes.
public struct FileValidators: Sendable, Hashable {
    public var sha256Hex: String
    var byteCount: Int
    var inode: UInt64
    /// `st_mtim` in nanoseconds since 1970.
    var modifiedAtNanoseconds: Int64

    public init(sha256Hex: String, byteCount: Int, inode: UInt64, modifiedAtNanoseconds: Int64) {
        self.sha256Hex = sha256Hex
        self.byteCount = byteCount
        self.inode = inode
        self.modifiedAtNanoseconds = modifiedAtNanoseconds
    }

    /// From the `fstat` of the descriptor the digest's bytes were written to or read from.
    public init(sha256Hex: String, info: stat) {
        self.init(sha256Hex: sha256Hex, byteCount: Int(info.st_size), inode: UInt64(info.st_ino),
                  modifiedAtNanoseconds: Self.nanoseconds(info.st_mtim))
    }

    /// The row's validators; nil for a row without a file or from before they were recorded (not filled yet).
    public init?(row: ManifestRow) {
        guard row.path != nil, let sha256 = row.sha256, let bytes = row.outputBytes, let inode = row.fileInode,
              let modified = row.fileModifiedAtNanoseconds else { return nil }
        self.init(sha256Hex: sha256, byteCount: bytes, inode: UInt64(bitPattern: Int64(inode)),
                  modifiedAtNanoseconds: Int64(modified))
    }

    /// True when `info`, the `fstat` of an open descriptor, is of the file these validators were taken from.
    public func describe(_ info: stat) -> Bool {
        UInt64(info.st_ino) == inode && Int(info.st_size) == byteCount && Self.nanoseconds(info.st_mtim) == modifiedAtNanoseconds
    }

    /// The ETag `warm cache serve` sends and the app manifest lists.
    public var etag: String { Self.etag(sha256Hex: sha256Hex) }

    /// A strong ETag of 128 bits of the SHA-256.
    public static func etag(sha256Hex: String) -> String { "\"" + sha256Hex.prefix(32) + "\"" }

    var modifiedAtSeconds: Int { Int(modifiedAtNanoseconds / 1_000_000_000) }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
