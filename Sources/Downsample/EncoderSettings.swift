import CWarmVips
import WarmSupport

/// Every format's encoder settings: JPEG's quality (the one the measured thumbnail strategy's records and `warm check`'s
/// baselines carry as `outputQuality`), WebP's and AVIF's quality and effort. Each format has its own scale, so the defaults were chosen by
/// measurement on the demo catalog at 300 px (bench/findings.md, sections 21 and 22): at least JPEG 82's median SSIM
/// and SSIMULACRA2 in fewer median bytes (WebP's SSIM only at parity: within 0.0002 of JPEG's either way, by image
/// set), AVIF at effort 0 where effort 1 costs three times the CPU for 20% fewer bytes, and both encoders called
/// directly: WebP through libwebp (about 8.6 ms, 1 ms under libvips' saver at the same settings), AVIF through
/// libheif's aom encoder on one thread (5.0 ms at the median, 1.1 ms under the saver, the same file at effort 0;
/// section 24).
public struct EncoderSettings: Sendable, Hashable, Codable {
    public static let defaultJPEGQuality = 82
    public static let defaultWebPQuality = 90
    public static let defaultAVIFQuality = 81
    /// libvips' `effort` (0-9, aom's speed 9 - effort, as `warm_avif_encode` maps it): the AVIF encode's CPU depends
    /// on it more than on anything else.
    public static let defaultAVIFEffort = 0
    /// libwebp's method (0-6; libvips' `effort`, `--webp-effort`): 2 takes the three-format run from 2.15x to 1.67x
    /// JPEG alone's CPU but puts WebP 0.002 of SSIM under JPEG's (findings 24), so the default keeps JPEG's look.
    public static let defaultWebPEffort = 4
    /// libwebp's segments (1-4; its preset's 4, which libvips' saver cannot change): macroblocks grouped in two
    /// quantiser and filter classes instead of four gave a higher median SSIM in fewer bytes (findings 22).
    static let webpSegments = 2

    public var jpegQuality: Int
    public var webpQuality: Int
    var webpEffort: Int
    var avifQuality: Int
    var avifEffort: Int

    public init(jpegQuality: Int = defaultJPEGQuality, webpQuality: Int = defaultWebPQuality, webpEffort: Int = defaultWebPEffort,
                avifQuality: Int = defaultAVIFQuality, avifEffort: Int = defaultAVIFEffort) {
        self.jpegQuality = jpegQuality
        self.webpQuality = webpQuality
        self.webpEffort = webpEffort
        self.avifQuality = avifQuality
        self.avifEffort = avifEffort
    }

    public static let `default` = EncoderSettings()
}

extension EncoderSettings {
    /// What `warm_webp_encode` takes: libwebp's default preset at `webpQuality`, then method and segments.
    var libwebp: WarmWebPSettings {
        WarmWebPSettings(quality: Float(OutputFormat.encoderQuality(webpQuality)), method: Int32(min(6, max(0, webpEffort))),
                         segments: Int32(Self.webpSegments))
    }

    /// What `warm_avif_encode` takes: libheif's lossy quality and libvips' effort (aom's speed 9 - effort).
    var libheif: WarmAVIFSettings {
        WarmAVIFSettings(quality: Int32(OutputFormat.encoderQuality(avifQuality)), effort: Int32(min(9, max(0, avifEffort))))
    }
}
