import CWarmVips
import Foundation

/// Reads EXIF with libexif, from an EXIF block or a whole JPEG file.
public enum ExifReader {
    /// The orientation tag's raw value (0 when absent; may be outside 1...8).
    public static func orientation(in data: Data) -> Int {
        data.withUnsafeBytes { Int(warm_exif_orientation($0.baseAddress, $0.count)) }
    }

    /// How many EXIF entries libexif finds (0: no EXIF at all).
    public static func entryCount(in data: Data) -> Int {
        data.withUnsafeBytes { Int(warm_exif_entry_count($0.baseAddress, $0.count)) }
    }
}
