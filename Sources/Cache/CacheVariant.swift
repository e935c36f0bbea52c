import WarmSupport

/// One rendition of a source image: longest side and format; its `name` ("300.jpg") is part of the cache key, and is
/// what the manifest's `variant` column and the file's extension hold (`OutputFormat.fileExtension`).
public struct CacheVariant: Sendable, Hashable, CustomStringConvertible {
    /// Pixels.
    public var longestSide: Int
    public var format: OutputFormat

    public init(longestSide: Int, format: OutputFormat) {
        self.longestSide = longestSide
        self.format = format
    }

    /// The variant a manifest row names; nil for a name no version of `warm` writes (an extension it does not know,
    /// a side that is not a positive number): readers skip such a row rather than guess what its file holds.
    init?(name: String) {
        guard let dot = name.firstIndex(of: "."), let side = Int(name[..<dot]), side > 0,
              let format = OutputFormat(fileExtension: String(name[name.index(after: dot)...])) else { return nil }
        self.init(longestSide: side, format: format)
    }

    public var name: String { "\(longestSide).\(format.fileExtension)" }

    public var description: String { name }

    /// The format comes from `OutputFormat`, so only the side can be wrong.
    var isValid: Bool { longestSide > 0 }

    func validated() throws(CacheError) -> CacheVariant {
        guard isValid else { throw .invalidVariant(name: name) }
        return self
    }
}
