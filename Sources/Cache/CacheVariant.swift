/// One rendition of a source image: longest side and file extension; its `name` ("300.jpg") is part of the cache key.
public struct CacheVariant: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pixels.
    public var longestSide: Int
    /// The file extension: "jpg", "webp", "avif", "png".
    public var format: String

    public init(longestSide: Int, format: String) {
        self.longestSide = longestSide
        self.format = format
    }

    public init?(name: String) {
        guard let dot = name.firstIndex(of: "."), let side = Int(name[..<dot]) else { return nil }
        let variant = CacheVariant(longestSide: side, format: String(name[name.index(after: dot)...]))
        guard variant.isValid else { return nil }
        self = variant
    }

    public var name: String { "\(longestSide).\(format)" }

    public var description: String { name }

    /// The format as the app manifest names it: `jpeg` for `jpg`, else the extension.
    public var formatName: String { format == "jpg" ? "jpeg" : format }

    /// The format becomes part of a file name, so only a short lowercase alphanumeric extension is accepted.
    public var isValid: Bool {
        longestSide > 0 && (1...8).contains(format.utf8.count)
            && format.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    func validated() throws(CacheError) -> CacheVariant {
        guard isValid else { throw .invalidVariant(name: name) }
        return self
    }
}
