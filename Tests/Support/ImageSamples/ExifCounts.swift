import CLibExif
import Downsample
import Foundation

/// What tests count in a file's EXIF (libexif, as `ExifReader` reads it):
/// proof that written thumbnails carry no metadata.
public enum ExifCounts {
    /// How many EXIF entries libexif finds, in all IFDs (0: no EXIF at all).
    public static func entries(in data: Data) -> Int {
        counts(in: data).reduce(0, +)
    }

    /// How many entries the GPS IFD holds (0: no position).
    public static func gpsEntries(in data: Data) -> Int {
        counts(in: data)[Int(EXIF_IFD_GPS.rawValue)]
    }

    /// Entries per IFD, in `ExifIfd` order.
    private static func counts(in data: Data) -> [Int] {
        let block = ExifReader.block(in: data)
        guard block.count >= 6, let exif = exif_data_new() else { return Array(repeating: 0, count: Int(EXIF_IFD_COUNT.rawValue)) }
        defer { exif_data_unref(exif) }
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        block.withUnsafeBytes { exif_data_load_data(exif, $0.bindMemory(to: UInt8.self).baseAddress, UInt32($0.count)) }
        return withUnsafeBytes(of: exif.pointee.ifd) { raw in
            raw.bindMemory(to: UnsafeMutablePointer<ExifContent>?.self).map { Int($0?.pointee.count ?? 0) }
        }
    }
}
