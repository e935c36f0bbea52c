/// The size a WebP (`VP8X`) or GIF declares, checked before libvips sees the data: libvips 8.14 allocates that
/// canvas while reading the header (docs/faults-and-hostile-input.md).
enum DeclaredSize {
    static func of<Bytes: Collection>(_ data: Bytes, format: ImageFormat) -> (width: Int, height: Int)?
    where Bytes.Element == UInt8 {
        let bytes = Array(data.prefix(30))
        switch format {
        case .webp:
            // RIFF header (12), "VP8X", size (4), flags + reserved (4), then canvas width - 1 and height - 1 (24 bits each).
            guard bytes.count >= 30, bytes[12..<16].elementsEqual("VP8X".utf8) else { return nil }
            let width = Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16
            let height = Int(bytes[27]) | Int(bytes[28]) << 8 | Int(bytes[29]) << 16
            return (width + 1, height + 1)
        case .gif:
            // "GIF89a", then the logical screen width and height (16 bits each, little-endian).
            guard bytes.count >= 10 else { return nil }
            return (Int(bytes[6]) | Int(bytes[7]) << 8, Int(bytes[8]) | Int(bytes[9]) << 8)
        default:
            return nil
        }
    }
}
