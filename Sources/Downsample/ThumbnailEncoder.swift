import CWarmVips
import Foundation
import WarmSupport

/// The one thumbnail engine (cache writer, `warm thumbnail`, measured `thumbnail` strategy): upright 8-bit sRGB, no
/// metadata. Memory: the shrunk bitmap plus the encoded bytes; the full-size bitmap never exists.
public struct ThumbnailEncoder: Sendable, Hashable {
    /// Every target is encoded in each, in this order; never empty.
    public let formats: [OutputFormat]
    /// Every format's quality, and WebP's and AVIF's effort.
    public var settings: EncoderSettings

    public init(format: OutputFormat = .jpeg, settings: EncoderSettings = .default) {
        self.init(formats: [format], settings: settings)
    }

    public init(formats: [OutputFormat], settings: EncoderSettings = .default) {
        let distinct = OutputFormat.distinct(formats)
        self.formats = distinct.isEmpty ? [.jpeg] : distinct
        self.settings = settings
    }

    /// The first format: the one a single thumbnail is made in.
    public var format: OutputFormat { formats[0] }

    /// - Throws: `.corrupt` when decoding fails, `.encodeFailed` when encoding does.
    public func encode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> EncodedImage {
        try encode(source, targets: [target])[0]
    }

    /// For each target in order, one thumbnail per format in `formats`' order.
    public func encode(_ source: ImageSource, targets: [DecodeTarget]) throws(DownsampleError) -> [EncodedImage] {
        try thumbnails(source, targets: targets, placeholder: false).images
    }

    /// `encode(_:targets:)`, and with `placeholder` the placeholder from the first target's bitmap.
    func thumbnails(_ source: ImageSource, targets: [DecodeTarget], placeholder: Bool) throws(DownsampleError) -> Thumbnails {
        let made: Result<Thumbnails, DownsampleError> = source.data.withUnsafeBytes { memory in
            Result { () throws(DownsampleError) in
                var made = Thumbnails(header: source.header, images: [])
                for (index, target) in targets.enumerated() {
                    let (encoded, bitmap) = try encode(source, memory: memory, target: target)
                    if placeholder && index == 0 {
                        made.placeholder = bitmap.flatMap(ImagePlaceholder.make(from:))
                            ?? ImagePlaceholder.make(fromEncoded: encoded[0].data)
                    }
                    made.images += encoded
                }
                return made
            }
        }
        return try made.get()
    }

    /// One decode per target: the direct path's whenever it takes the source (JPEG's bytes then equal a JPEG-only
    /// run's, and WebP and AVIF encode the bitmap it kept), else one libvips decode that every format shares. Every
    /// image made carries the pixels decoded for it, the direct path's attempt included when libvips took over.
    /// `memory` must outlive the libvips images made here.
    private func encode(_ source: ImageSource, memory: UnsafeRawBufferPointer,
                        target: DecodeTarget) throws(DownsampleError) -> ([EncodedImage], VipsImageHandle?) {
        var decodedPixels = 0
        #if DEBUG
        // The planted regression: a full-size bitmap held while the shipped path runs.
        let planted = Self.plantsFullDecode ? try NaiveDecode.fullBitmap(source) : nil
        defer { withExtendedLifetime(planted) {} }
        decodedPixels += planted.map { $0.width * $0.height } ?? 0
        let quality = Self.plantedQuality ?? settings.jpegQuality
        #else
        let quality = settings.jpegQuality
        #endif
        var made: [OutputFormat: EncodedImage] = [:]
        let others = formats.filter { $0 != .jpeg }
        let started = ProcessCPUTime.seconds()
        let direct = source.directThumbnail(memory: memory, target: target, quality: quality,
                                            jpeg: formats.contains(.jpeg), keepBitmap: !others.isEmpty)
        decodedPixels += direct?.decodedPixels ?? 0
        if let jpeg = direct?.jpeg {
            made[.jpeg] = jpeg
            made[.jpeg]?.encodeCPUSeconds = ProcessCPUTime.seconds() - started
        }
        let rest = formats.filter { made[$0] == nil }
        let upright: VipsImageHandle?
        if rest.isEmpty {
            upright = nil
        } else if let bitmap = direct?.bitmap {
            upright = bitmap
        } else {
            let decoded = try decoded(source, memory: memory, target: target, keepingAlpha: rest != [.jpeg])
            decodedPixels += decoded.decodedPixels
            upright = decoded.image
        }
        if let upright {
            let size = PixelSize(width: upright.width, height: upright.height)
            for format in rest {
                let started = ProcessCPUTime.seconds()
                let data = try format.encode(upright, quality: quality, settings: settings)
                made[format] = EncodedImage(data: data, size: size, format: format, encodeCPUSeconds: ProcessCPUTime.seconds() - started)
            }
        }
        let images = formats.compactMap { format in
            made[format].map { image in
                var image = image
                image.decodedPixels = decodedPixels
                return image
            }
        }
        return (images, upright)
    }

    /// Materialised before rotating, so that a broken file fails here as `.corrupt`, not inside an encoder; with the
    /// pixels the loader decodes, read from the lazy pipeline before it runs.
    private func decoded(_ source: ImageSource, memory: UnsafeRawBufferPointer, target: DecodeTarget,
                         keepingAlpha: Bool) throws(DownsampleError) -> (image: VipsImageHandle, decodedPixels: Int) {
        DecodeCount.note(.libvips, source, target)
        let shrunk = keepingAlpha ? try source.shrunk(memory: memory, to: target)
                                  : try source.shrunkWithoutAlpha(memory: memory, to: target)
        let decodedPixels = shrunk.sourcePixels
        let image = try vips(or: source.corrupt) {
            try shrunk.toSRGB(alpha: keepingAlpha ? WARM_ALPHA_KEEP : WARM_ALPHA_FLATTEN_ON_WHITE).materialized()
                .autorotated(orientation: source.header.orientation)
        }
        return (image, decodedPixels)
    }
}

/// Process CPU time, not the thread's: libvips' savers (JPEG and PNG from a libvips decode) compress on their own
/// thread. A worker encodes one image at a time, so the difference around one encode is that encode's.
public enum ProcessCPUTime {
    public static func seconds() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

#if DEBUG
extension ThumbnailEncoder {
    /// Debug only: `WARM_TEST_PLANT_FULL_DECODE=1` plants a full-size decode, the regression `warm check` must catch.
    static let plantsFullDecode = ProcessInfo.processInfo.environment["WARM_TEST_PLANT_FULL_DECODE"] == "1"
    /// Debug only: `WARM_TEST_PLANT_QUALITY=N` encodes at quality N whatever was asked, the SSIM drop `warm check` must catch.
    static let plantedQuality = ProcessInfo.processInfo.environment["WARM_TEST_PLANT_QUALITY"].flatMap { Int($0) }
}
#endif
