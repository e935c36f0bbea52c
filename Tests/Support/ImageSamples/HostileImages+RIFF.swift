import Downsample
import Foundation

/// Reading and writing the chunks of a RIFF container (WebP), to build WebP
/// files libvips would not write: an oversized canvas, EXIF in a chunk.
extension HostileImages {
    public struct RIFFChunk {
        public var fourCC: String
        public var size: Int
        /// The whole chunk: header, payload and padding.
        public var bytes: [UInt8]
    }

    public static func riffChunks(_ data: Data) -> [RIFFChunk] {
        let bytes = [UInt8](data)
        var chunks: [RIFFChunk] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = min(bytes.count, offset + 8 + size + (size & 1))
            chunks.append(RIFFChunk(fourCC: String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size: size,
                                    bytes: Array(bytes[offset..<end])))
            offset = end
        }
        return chunks
    }

    static func riff(_ chunks: [(String, [UInt8])]) -> Data {
        var body: [UInt8] = Array("WEBP".utf8)
        for (fourCC, payload) in chunks {
            body += Array(fourCC.utf8) + ExifBlockBuilder.le32(payload.count) + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Data(Array("RIFF".utf8) + ExifBlockBuilder.le32(body.count) + body)
    }

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
