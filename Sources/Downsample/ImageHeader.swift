/// What an image's header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Hashable, Codable {
    public var format: ImageFormat
    /// Width and height as stored, before orientation is applied.
    public var width: Int
    public var height: Int
    public var bands: Int
    public var hasAlpha: Bool
    var isSixteenBit: Bool
    public var colourSpace: String
    var hasICCProfile: Bool
    /// Frames or pages in the file (animated GIF/WebP); only the first is decoded.
    var pageCount: Int
    var hasExif: Bool
    /// EXIF orientation as stored (0 when the file has none; may be out of range).
    var exifOrientation: Int

    /// The orientation the decoders apply: 1...8, anything else counts as 1 (upright).
    public var orientation: Int { (1...8).contains(exifOrientation) ? exifOrientation : 1 }

    /// Orientations 5...8 turn the image a quarter, swapping width and height.
    public var uprightWidth: Int { orientation >= 5 ? height : width }
    public var uprightHeight: Int { orientation >= 5 ? width : height }
}
