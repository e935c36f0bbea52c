import CWarmVips
import Foundation

/// The one thumbnail engine: what the cache writer, `warm thumbnail` and the
/// measured `thumbnail` strategy run. Output: upright, 8-bit sRGB, no metadata,
/// alpha only when non-opaque and the format keeps it, `DecodeTarget.outputSize`.
/// Each target is decoded once by libvips (shrink-on-load, `ShrinkOnLoad`)
/// and encoded in every one of `formats` from that bitmap, except a JPEG
/// output of a JPEG, PNG or WebP, which the direct path (`directThumbnail`)
/// makes unless the image needs libvips. Memory: the shrunk
/// bitmap plus the encoded bytes; the full-size bitmap never exists.
public struct ThumbnailEncoder: Sendable, Hashable {
    /// Every target is encoded in each, in this order; never empty.
    public let formats: [OutputFormat]
    /// JPEG's and WebP's quality (AVIF has its own: `OutputFormat.avifQuality`).
    public var quality: Int

    public init(format: OutputFormat = .jpeg, quality: Int = 82) {
        self.init(formats: [format], quality: quality)
    }

    public init(formats: [OutputFormat], quality: Int = 82) {
        var distinct: [OutputFormat] = []
        for format in formats where !distinct.contains(format) { distinct.append(format) }
        self.formats = distinct.isEmpty ? [.jpeg] : distinct
        self.quality = quality
    }

    /// The first format: the one a single thumbnail is made in.
    public var format: OutputFormat { formats[0] }

    /// Decodes `source` at `target` and encodes it in the first format.
    /// - Throws: `.corrupt` when decoding fails, `.encodeFailed` when encoding does.
    public func encode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> EncodedImage {
        try encode(source, targets: [target])[0]
    }

    /// For each target in order, one thumbnail per format in `formats`' order.
    public func encode(_ source: ImageSource, targets: [DecodeTarget]) throws(DownsampleError) -> [EncodedImage] {
        try thumbnails(source, targets: targets, placeholder: false).images
    }

    /// `encode(_:targets:)`, and with `placeholder` the image's placeholder from
    /// the first target's bitmap (nil when it could not be made).
    public func thumbnails(_ source: ImageSource, targets: [DecodeTarget],
                           placeholder: Bool) throws(DownsampleError) -> (images: [EncodedImage], placeholder: ImagePlaceholder?) {
        let made: Result<([EncodedImage], ImagePlaceholder?), DownsampleError> = source.data.withUnsafeBytes { memory in
            Result { () throws(DownsampleError) in
                var images: [EncodedImage] = []
                var made: ImagePlaceholder?
                for (index, target) in targets.enumerated() {
                    let (encoded, bitmap) = try encode(source, memory: memory, target: target)
                    if placeholder && index == 0 {
                        made = bitmap.flatMap(ImagePlaceholder.make(from:)) ?? ImagePlaceholder.make(fromEncoded: encoded[0].data)
                    }
                    images += encoded
                }
                return (images, made)
            }
        }
        return try made.get()
    }

    /// One target in every format, in `formats`' order, and the upright bitmap
    /// libvips decoded (nil when the direct path made the only one). JPEG takes
    /// the direct path whenever it can, so that its bytes are those of a
    /// JPEG-only run; every other format shares one libvips decode. `memory`
    /// is lent by the caller for as long as the libvips images made here live.
    private func encode(_ source: ImageSource, memory: UnsafeRawBufferPointer,
                        target: DecodeTarget) throws(DownsampleError) -> ([EncodedImage], VipsImageHandle?) {
        #if DEBUG
        // The planted regression: a full-size bitmap held while the shipped path runs.
        let planted = Self.plantsFullDecode ? try NaiveDecode.fullBitmap(source) : nil
        defer { withExtendedLifetime(planted) {} }
        #endif
        var made: [OutputFormat: EncodedImage] = [:]
        if formats.contains(.jpeg) {
            let started = ProcessCPUTime.seconds()
            made[.jpeg] = source.directThumbnail(memory: memory, target: target, quality: quality)
            made[.jpeg]?.encodeCPUSeconds = ProcessCPUTime.seconds() - started
        }
        let rest = formats.filter { made[$0] == nil }
        guard !rest.isEmpty else { return (formats.compactMap { made[$0] }, nil) }
        let upright = try decoded(source, memory: memory, target: target, keepingAlpha: rest != [.jpeg])
        let size = PixelSize(width: upright.width, height: upright.height)
        for format in rest {
            let started = ProcessCPUTime.seconds()
            let data = try format.encode(upright, quality: quality)
            made[format] = EncodedImage(data: data, size: size, format: format, encodeCPUSeconds: ProcessCPUTime.seconds() - started)
        }
        return (formats.compactMap { made[$0] }, upright)
    }

    /// The upright 8-bit sRGB bitmap at `target`, materialised before rotating
    /// so that a broken file fails here as `.corrupt`, not inside an encoder.
    private func decoded(_ source: ImageSource, memory: UnsafeRawBufferPointer, target: DecodeTarget,
                         keepingAlpha: Bool) throws(DownsampleError) -> VipsImageHandle {
        let shrunk = keepingAlpha ? try source.shrunk(memory: memory, to: target)
                                  : try source.shrunkWithoutAlpha(memory: memory, to: target)
        return try vips(or: source.corrupt) {
            try shrunk.toSRGB(alpha: keepingAlpha ? WARM_ALPHA_KEEP : WARM_ALPHA_FLATTEN_ON_WHITE).materialized()
                .autorotated(orientation: source.header.orientation)
        }
    }
}

/// User + system CPU time of this process (`getrusage(RUSAGE_SELF)`), not of
/// the calling thread: libvips' savers compress in their own write-behind
/// thread, which per-thread CPU time would miss. A decode worker encodes one
/// image at a time, so the difference around one encode is that encode's.
enum ProcessCPUTime {
    static func seconds() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

#if DEBUG
extension ThumbnailEncoder {
    /// Test-only, debug builds only: `WARM_TEST_PLANT_FULL_DECODE=1` makes every
    /// thumbnail decode the whole image at full size too, the memory regression
    /// `ShippedThumbnailTests` expects `warm check` to catch.
    static let plantsFullDecode = ProcessInfo.processInfo.environment["WARM_TEST_PLANT_FULL_DECODE"] == "1"
}
#endif
