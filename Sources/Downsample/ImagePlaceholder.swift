import CWarmVips
import Foundation

/// What an app shows before a thumbnail arrives (ThumbHash and average colour), from a bitmap already decoded.
public struct ImagePlaceholder: Sendable, Hashable, Codable {
    public var thumbHash: [UInt8]
    public var averageColor: String

    init(thumbHash: [UInt8], averageColor: String) {
        self.thumbHash = thumbHash
        self.averageColor = averageColor
    }

    /// nil when libvips cannot resize the image (an image without its placeholder is still cached).
    static func make(from image: VipsImageHandle) -> ImagePlaceholder? {
        let longest = max(image.width, image.height)
        var small = image
        if longest > ThumbHash.maxSide {
            let scale = Double(ThumbHash.maxSide) / Double(longest)
            let width = max(1, min(ThumbHash.maxSide, Int((Double(image.width) * scale).rounded())))
            let height = max(1, min(ThumbHash.maxSide, Int((Double(image.height) * scale).rounded())))
            guard let resized = try? image.resized(hscale: Double(width) / Double(image.width),
                                                   vscale: Double(height) / Double(image.height),
                                                   kernel: VIPS_KERNEL_LINEAR) else { return nil }
            small = resized
        }
        guard let rgba = try? small.toSRGB().materialized(),
              let pixels = rgba.pixelBytes,
              let hash = try? ThumbHash.encode(width: rgba.width, height: rgba.height, rgba: pixels),
              let average = try? ThumbHash.averageColor(hash) else { return nil }
        return ImagePlaceholder(thumbHash: hash, averageColor: average.hexRGB)
    }

    /// From encoded upright thumbnail bytes, when the only decode was the direct JPEG path (which keeps no bitmap).
    static func make(fromEncoded data: Data) -> ImagePlaceholder? {
        data.withUnsafeBytes { memory in
            (try? VipsImageHandle.thumbnail(memory: memory, size: ThumbHash.maxSide)).flatMap(make(from:))
        }
    }
}

extension ImagePlaceholder {
    /// From a thumbnail a run already cached, for entries stored before placeholders existed: the same computation
    /// as a fresh run's when its first variant came from the direct JPEG path (so the same placeholder for the same
    /// bytes); from a WebP, AVIF or PNG file it is the encoded image's, within encoding noise of the bitmap's.
    /// Memory: the file and a 32-pixel image. nil when libvips cannot start or read it.
    public static func make(fromThumbnail data: Data) -> ImagePlaceholder? {
        guard (try? VipsRuntime.ensureStarted()) != nil else { return nil }
        return make(fromEncoded: data)
    }
}
