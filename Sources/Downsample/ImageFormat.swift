/// Identified from the bytes: marketplace thumbnail URLs are object-store keys without extensions. A source's format, not
/// what `warm` writes: that is `OutputFormat` (WarmSupport), which has no GIF, HEIF or TIFF.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, webp, gif
    /// The HEIF container, HEIC and AVIF alike.
    case heif
    case tiff

    public static func sniff<Bytes: Collection>(_ bytes: Bytes) -> ImageFormat?
    where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            let heifBrands: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"]
            if heifBrands.contains(brand) { return .heif }
        }
        return nil
    }

    /// A short guess at what non-image bytes are, for error messages ("an HTML page").
    static func describeNonImage<Bytes: Collection>(_ bytes: Bytes) -> String?
    where Bytes.Element == UInt8 {
        var head = Array(bytes.prefix(512))
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head.removeFirst(3) }
        guard let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            return head.isEmpty ? nil : "blank text"
        }
        let text = String(decoding: head, as: UTF8.self).lowercased()
        if text.contains("<html") || text.contains("<!doctype html") { return "an HTML page" }
        if first == UInt8(ascii: "<") { return "XML or HTML text" }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "JSON text" }
        return nil
    }
}
