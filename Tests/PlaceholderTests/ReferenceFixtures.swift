import Foundation
import XCTest

/// The fixtures Fixtures/make_vectors.py writes from evanw's reference (run with node).
/// To regenerate: `python3 Tests/PlaceholderTests/Fixtures/make_vectors.py` (needs node,
/// libvips-tools, Pillow and Debian's mate-backgrounds), then commit the two JSON files.
enum ReferenceFixtures {
    struct Vector: Decodable {
        let name: String
        let width: Int
        let height: Int
        let rgba: String
        let hash: String
        let averageRGBA: [Double]
        let aspectRatio: Double
        let decoded: Decoded
    }

    struct Decoded: Decodable {
        let width: Int
        let height: Int
        let rgba: String
    }

    struct Photo: Decodable {
        let name: String
        /// The crop's width over height, before it was thumbnailed.
        let aspectRatio: Double
        /// The thumbnail's mean colour, 0...1 a channel.
        let meanRGB: [Double]
        let width: Int
        let height: Int
        let rgba: String
        let hash: String
    }

    private struct VectorFile: Decodable {
        let vectors: [Vector]
        let cosines: [[Double]]
    }
    private struct PhotoFile: Decodable { let photos: [Photo] }

    static func vectors() throws -> [Vector] {
        try JSONDecoder().decode(VectorFile.self, from: data("vectors.json")).vectors
    }

    /// [width, term, x, node's Math.cos(PI / width * term * (x + 0.5))] where node's cosine
    /// and the C library's differ in the last bit.
    static func cosines() throws -> [[Double]] {
        try JSONDecoder().decode(VectorFile.self, from: data("vectors.json")).cosines
    }

    static func photos() throws -> [Photo] {
        try JSONDecoder().decode(PhotoFile.self, from: data("photos.json")).photos
    }

    static func bytes(_ base64: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        [UInt8](try XCTUnwrap(Data(base64Encoded: base64), "not base64", file: file, line: line))
    }

    private static func data(_ name: String) throws -> Data {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }
}
