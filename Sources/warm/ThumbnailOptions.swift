import ArgumentParser
import Downsample

/// What `warm run` and `warm demo` cache of each image: sizes, formats, quality (`--help`'s "Thumbnails").
struct ThumbnailOptions: ParsableArguments {
    @Option(name: .customLong("size"), help: "Longest side of a cached variant, in pixels; repeat for several variants.")
    var sizes: [Int] = [300]

    @Option(name: .customLong("format"), help: ArgumentHelp(
        "Cached thumbnail formats: jpeg, webp, avif or png, comma-separated or repeated (default: jpeg; the demo: jpeg,webp,avif).",
        discussion: "Every --size is written in every format: WebP, AVIF and PNG from one libvips decode per size, JPEG through the direct libjpeg path when it takes the image.", valueName: "formats"))
    var formatLists: [FormatList] = []

    @Option(help: "Encoder quality of JPEG and WebP, 1-100 (AVIF uses Q \(OutputFormat.avifQuality)).")
    var quality: Int = 82

    func validate() throws {
        guard !sizes.isEmpty else { throw ValidationError("--size must be a positive number of pixels.") }
        for size in sizes { try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
    }
}
