/// WebP's and AVIF's encoder settings; JPEG's quality is the request's `quality`, the one the measured thumbnail
/// strategy and `warm check`'s baselines carry. Each format has its own scale, so the defaults were chosen by
/// measurement on the demo catalog at 300 px (bench/findings.md, section 21): at least JPEG 82's median SSIMULACRA2 in
/// fewer median bytes, AVIF at least its SSIM too (WebP's is 0.0003 under it: no WebP quality has both), and an AVIF
/// encode of about 7 ms of CPU (effort 0) where effort 1 costs three times that for 20% fewer bytes.
public struct EncoderSettings: Sendable, Hashable, Codable {
    /// JPEG's, kept beside the others so that every default is written once.
    public static let defaultJPEGQuality = 82
    public static let defaultWebPQuality = 90
    public static let defaultAVIFQuality = 81
    /// libvips' `effort` (0-9, aom's speed 9 - effort): the AVIF encode's CPU depends on it more than on anything else.
    public static let defaultAVIFEffort = 0
    /// libwebp's method (libvips' `effort`, 0-6).
    public static let webpMethod = 4

    public var webpQuality: Int
    public var avifQuality: Int
    public var avifEffort: Int

    public init(webpQuality: Int = defaultWebPQuality, avifQuality: Int = defaultAVIFQuality,
                avifEffort: Int = defaultAVIFEffort) {
        self.webpQuality = webpQuality
        self.avifQuality = avifQuality
        self.avifEffort = avifEffort
    }

    public static let `default` = EncoderSettings()
}
