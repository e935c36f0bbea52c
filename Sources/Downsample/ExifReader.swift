import CLibExif
import Foundation

/// Reads EXIF with libexif from an EXIF block or a whole JPEG, WebP or PNG file.
public enum ExifReader {
    /// The orientation tag's raw value (0 when absent; may be outside 1...8).
    public static func orientation(in data: Data) -> Int {
        let block = block(in: data)
        guard block.count >= 6, let exif = exif_data_new() else { return 0 }
        defer { exif_data_unref(exif) }
        // Read what is there; do not let libexif "fix" (invent) mandatory tags.
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        block.withUnsafeBytes { exif_data_load_data(exif, $0.bindMemory(to: UInt8.self).baseAddress, UInt32(truncatingIfNeeded: $0.count)) }
        guard let entry = exif_content_get_entry(exif.pointee.ifd.0, EXIF_TAG_ORIENTATION)?.pointee,
              entry.format == EXIF_FORMAT_SHORT, entry.components >= 1, let value = entry.data, entry.size >= 2 else { return 0 }
        return Int(exif_get_short(value, exif_data_get_byte_order(exif)))
    }

    /// What libexif should read: JPEG or EXIF block as is; a WebP or PNG EXIF chunk or bare TIFF with the
    /// `Exif\0\0` prefix libexif expects (empty when there is none).
    public static func block(in data: Data) -> Data {
        let chunk: Data?
        switch ImageFormat.sniff(data) {
        case .webp: chunk = chunkPayload(in: data, named: "EXIF", from: 12, bigEndian: false, trailer: 0)
        case .png: chunk = chunkPayload(in: data, named: "eXIf", from: 8, bigEndian: true, trailer: 4)
        case .tiff: chunk = data  // a bare TIFF structure, as some WebP writers store it
        default: return data
        }
        guard let chunk else { return Data() }
        return chunk.starts(with: Array("Exif\0\0".utf8)) ? chunk : Data("Exif\0\0".utf8) + chunk
    }

    /// RIFF: little-endian sizes padded to even; PNG: big-endian sizes and a 4-byte CRC trailer.
    private static func chunkPayload(in data: Data, named name: String, from start: Int, bigEndian: Bool, trailer: Int) -> Data? {
        let bytes = [UInt8](data)
        let wanted = Array(name.utf8)
        var offset = start
        while offset + 8 <= bytes.count {
            let size: Int
            let fourCC: ArraySlice<UInt8>
            if bigEndian {
                size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                fourCC = bytes[offset + 4..<offset + 8]
            } else {
                fourCC = bytes[offset..<offset + 4]
                size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            }
            let payloadStart = offset + 8
            guard size >= 0, size <= bytes.count - payloadStart else { return nil }
            if Array(fourCC) == wanted { return Data(bytes[payloadStart..<payloadStart + size]) }
            offset = payloadStart + size + trailer + (bigEndian ? 0 : size & 1)
        }
        return nil
    }
}
