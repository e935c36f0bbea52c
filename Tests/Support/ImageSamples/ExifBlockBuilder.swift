import Foundation

/// Writes an EXIF block (a little-endian TIFF structure, without the
/// `Exif\0\0` prefix) as a phone writes it: camera make and model, an
/// orientation, a capture date, a GPS position and optionally a large user
/// comment. Used to make phone-like test photos whose metadata must not reach
/// the cache, and oversized or odd EXIF (orientation outside 1...8).
///
/// Written by hand because libvips only writes the EXIF fields it knows about
/// (not GPS), and tests must control every byte, odd values included.
public struct ExifBlockBuilder: Sendable {
    /// The orientation tag's value, written as it is (even 0 or 65535); nil: no tag.
    public var orientation: Int?
    public var make: String = "WarmTestPhone"
    public var model: String = "Hostile 1"
    /// Latitude and longitude in degrees (north and east positive); nil: no GPS IFD.
    public var gps: (latitude: Double, longitude: Double)? = (48.8583, 2.2945)
    /// Bytes of user comment (a camera's maker data stands in the same place);
    /// 60,000 makes a block near JPEG's 64 KiB segment limit.
    public var commentBytes: Int = 0

    public init(orientation: Int? = nil) {
        self.orientation = orientation
    }

    /// The TIFF structure: IFD0, the EXIF IFD and the GPS IFD, then their data.
    public func tiff() -> Data {
        var ifd0: [Entry] = [
            Entry(tag: 0x010F, value: .ascii(make)),
            Entry(tag: 0x0110, value: .ascii(model)),
        ]
        if let orientation { ifd0.append(Entry(tag: 0x0112, value: .short(orientation))) }
        ifd0.append(Entry(tag: 0x8769, value: .ifd(1)))
        var exif: [Entry] = [Entry(tag: 0x9003, value: .ascii("2023:03:23 10:00:00"))]
        if commentBytes > 0 {
            let comment = Array("ASCII\0\0\0".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: commentBytes)
            exif.append(Entry(tag: 0x9286, value: .undefined(comment)))
        }
        var ifds = [ifd0, exif]
        if let gps {
            ifds[0].append(Entry(tag: 0x8825, value: .ifd(2)))
            func dms(_ degrees: Double) -> [(UInt32, UInt32)] {
                let value = abs(degrees), whole = value.rounded(.down), minutes = (value - whole) * 60
                return [(UInt32(whole), 1), (UInt32(minutes.rounded(.down)), 1),
                        (UInt32(((minutes - minutes.rounded(.down)) * 60 * 100).rounded()), 100)]
            }
            ifds.append([
                Entry(tag: 0x0000, value: .bytes([2, 2, 0, 0])),
                Entry(tag: 0x0001, value: .ascii(gps.latitude >= 0 ? "N" : "S")),
                Entry(tag: 0x0002, value: .rationals(dms(gps.latitude))),
                Entry(tag: 0x0003, value: .ascii(gps.longitude >= 0 ? "E" : "W")),
                Entry(tag: 0x0004, value: .rationals(dms(gps.longitude))),
            ])
        }
        return Self.layout(ifds)
    }

    /// `Exif\0\0` followed by the TIFF structure: the payload of a JPEG APP1 segment.
    public func app1Payload() -> Data {
        Data("Exif\0\0".utf8) + tiff()
    }

    // MARK: Layout

    enum Value {
        case ascii(String), short(Int), bytes([UInt8]), undefined([UInt8]), rationals([(UInt32, UInt32)])
        /// A LONG holding the offset of IFD number n.
        case ifd(Int)
    }

    struct Entry {
        var tag: UInt16
        var value: Value
    }

    /// IFDs one after another from offset 8, each entry's data over 4 bytes in
    /// a data area after the last IFD (word-aligned).
    static func layout(_ ifds: [[Entry]]) -> Data {
        let sorted = ifds.map { $0.sorted { $0.tag < $1.tag } }
        var ifdOffsets: [Int] = []
        var offset = 8
        for ifd in sorted {
            ifdOffsets.append(offset)
            offset += 2 + 12 * ifd.count + 4
        }
        var dataArea: [UInt8] = []
        let dataStart = offset
        var out: [UInt8] = Array("II".utf8) + le16(42) + le32(8)
        for (index, ifd) in sorted.enumerated() {
            out += le16(ifd.count)
            for entry in ifd {
                let (type, count, payload) = encode(entry.value, ifdOffsets: ifdOffsets)
                out += le16(Int(entry.tag)) + le16(type) + le32(count)
                if payload.count <= 4 {
                    out += payload + [UInt8](repeating: 0, count: 4 - payload.count)
                } else {
                    if dataArea.count % 2 == 1 { dataArea.append(0) }
                    out += le32(dataStart + dataArea.count)
                    dataArea += payload
                }
            }
            out += le32(0)  // no next IFD (IFD1, the thumbnail, is not written)
            precondition(out.count == (index + 1 < ifdOffsets.count ? ifdOffsets[index + 1] : dataStart))
        }
        return Data(out + dataArea)
    }

    static func encode(_ value: Value, ifdOffsets: [Int]) -> (type: Int, count: Int, payload: [UInt8]) {
        switch value {
        case .ascii(let text):
            let bytes = Array(text.utf8) + [0]
            return (2, bytes.count, bytes)
        case .short(let number):
            return (3, 1, le16(number))
        case .bytes(let bytes):
            return (1, bytes.count, bytes)
        case .undefined(let bytes):
            return (7, bytes.count, bytes)
        case .rationals(let pairs):
            return (5, pairs.count, pairs.flatMap { le32(Int($0.0)) + le32(Int($0.1)) })
        case .ifd(let index):
            return (4, 1, le32(ifdOffsets[index]))
        }
    }

    static func le16(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }

    static func le32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }
}
