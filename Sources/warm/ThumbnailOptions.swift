import ArgumentParser
import Downsample
import Pipeline
import WarmSupport

/// What `warm run` and `warm demo` cache of each image: sizes, formats, quality (`--help`'s "Thumbnails").
struct ThumbnailOptions: ParsableArguments {
    /// Defaults written once, in `WarmConfiguration.Thumbnails`.
    private static let defaults = WarmConfiguration.Thumbnails()

    @Option(name: .customLong("size"), help: "Longest side of a cached variant, in pixels; repeat for several variants.")
    var sizes: [Int] = Self.defaults.sizes

    @Option(name: .customLong("format"), help: ArgumentHelp(
        "Cached thumbnail formats: jpeg, webp, avif or png, comma-separated or repeated (default: \(FormatList.names(Self.defaults.formats)); the demo: \(FormatList.names(DemoCommand.defaultFormats))).",
        discussion: "Every --size is written in every format: one decode per size: the direct libjpeg/libpng/libwebp path's when it takes the image (its JPEG is byte for byte a JPEG-only run's, and WebP and AVIF encode the bitmap it decoded), else one libvips decode every format shares.", valueName: "formats"))
    var formatLists: [FormatList] = []

    @Option(help: ArgumentHelp(QualityList.help, discussion: QualityList.discussion, valueName: "quality"))
    var quality: QualityList?

    @Option(help: "WebP encoder effort, 0 (fastest) to 6 (smallest files; libwebp's method) (default: \(EncoderSettings.defaultWebPEffort); 2 halves WebP's encode for 0.002 less SSIM).")
    var webpEffort: Int?

    @Option(help: "AVIF encoder effort, 0 (fastest) to 9 (smallest files; aom speed 9 - effort) (default: \(EncoderSettings.defaultAVIFEffort)).")
    var avifEffort: Int?

    /// What is cached of each image; `defaultFormats` without `--format`.
    func settings(defaultFormats: [OutputFormat]) -> WarmConfiguration.Thumbnails {
        WarmConfiguration.Thumbnails(sizes: sizes, formats: formatLists.isEmpty ? defaultFormats : formatLists.flatMap(\.formats),
                                     encoder: (quality ?? QualityList()).resolved(webpEffort: webpEffort, avifEffort: avifEffort))
    }

    func validate() throws {
        guard !sizes.isEmpty else { throw ValidationError("--size must be a positive number of pixels.") }
        for size in sizes { try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size") }
        if let webpEffort { try OptionCheck.count(webpEffort, in: 0...6, option: "--webp-effort") }
        if let avifEffort { try OptionCheck.count(avifEffort, in: 0...9, option: "--avif-effort") }
    }
}
