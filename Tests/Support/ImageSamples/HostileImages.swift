import Downsample
import Foundation

/// Hostile and odd encoded images, made in memory in a few milliseconds each:
/// truncated files, wrong magic bytes, decompression bombs (PNG, JPEG, WebP
/// and GIF headers declaring 30000x30000 in a few hundred bytes), oversized and malformed EXIF,
/// orientations outside 1...8, CMYK, 16-bit, animations, empty bodies, and
/// phone photos carrying GPS EXIF.
///
/// For tests (unit, end-to-end through a real server) and for the fuzzers'
/// seed corpora (fuzz/Package.swift links this folder). A test-support target
/// of its own, so that the shipped `warm` binary does not carry it.
public enum HostileImages {
    /// The whole set, each with its expected outcome under the default limits.
    public static func all() throws(DownsampleError) -> [HostileSample] {
        try refused() + decoding()
    }

    /// The samples a correct decoder refuses, each with its `reasonCode`: broken
    /// files, non-images and decompression bombs.
    public static func refused() throws(DownsampleError) -> [HostileSample] {
        let photo = try jpeg(width: 320, height: 240)
        let png = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 300, height: 200), width: 300, height: 200,
                                           bands: 3, as: CompositionEncoding(format: .png))
        var wrongMagic = photo
        wrongMagic.replaceSubrange(0..<4, with: [0x00, 0x00, 0x00, 0x00])
        var pngBehindJPEGMagic = Data([0xFF, 0xD8, 0xFF, 0xE0])
        pngBehindJPEGMagic.append(png.dropFirst(4))
        return [
            HostileSample(name: "truncated-jpeg", data: photo.prefix(photo.count * 6 / 10),
                          outcome: .refused(reasonCode: "corrupt")),
            HostileSample(name: "truncated-png", data: png.prefix(png.count / 2), outcome: .refused(reasonCode: "corrupt")),
            HostileSample(name: "wrong-magic", data: wrongMagic, outcome: .refused(reasonCode: "not-an-image")),
            HostileSample(name: "png-behind-jpeg-magic", data: pngBehindJPEGMagic,
                          outcome: .refused(reasonCode: "unreadable-header")),
            HostileSample(name: "bomb-png", data: try pngDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-jpeg", data: try jpegDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-webp", data: try animatedWebPDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            // Under libwebp's own 16383-pixel limit: libvips would allocate this canvas (1 GB) in its header read.
            HostileSample(name: "bomb-webp-16000", data: try animatedWebPDeclaring(width: 16000, height: 16000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-gif", data: try gifDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "empty", data: Data(), outcome: .refused(reasonCode: "empty")),
            HostileSample(name: "html-error-page", data: Data("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>".utf8),
                          outcome: .refused(reasonCode: "not-an-image")),
        ]
    }

    /// The odd but valid samples, each with the upright size a correct decoder
    /// gives: oversized or malformed EXIF, orientations outside 1...8, CMYK,
    /// 16-bit, animations and phone photos carrying GPS.
    public static func decoding() throws(DownsampleError) -> [HostileSample] {
        let photo = try jpeg(width: 320, height: 240)
        let quadrants = quadrantPixels(width: 200, height: 100)
        func tagged(_ orientation: Int) throws(DownsampleError) -> Data {
            let plain = try ImageComposer.encode(pixels: quadrants, width: 200, height: 100, bands: 3,
                                                 as: CompositionEncoding(format: .jpeg, quality: 90))
            return jpeg(plain, withExif: ExifBlockBuilder(orientation: orientation).app1Payload())
        }
        var hugeExif = ExifBlockBuilder(orientation: 1)
        hugeExif.commentBytes = 60_000
        let frames = animationFrames(width: 120, height: 80, count: 3)
        func decodes(_ width: Int, _ height: Int) -> HostileSample.Outcome {
            .decodes(upright: PixelSize(width: width, height: height))
        }
        return [
            HostileSample(name: "huge-exif", data: jpeg(photo, withExif: hugeExif.app1Payload()), outcome: decodes(320, 240)),
            HostileSample(name: "malformed-exif", data: jpeg(photo, withExif: malformedExifPayload()), outcome: decodes(320, 240)),
            HostileSample(name: "orientation-0", data: try tagged(0), outcome: decodes(200, 100)),
            HostileSample(name: "orientation-9", data: try tagged(9), outcome: decodes(200, 100)),
            HostileSample(name: "orientation-65535", data: try tagged(65535), outcome: decodes(200, 100)),
            HostileSample(name: "cmyk-jpeg", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120, bands: 3,
                as: OddEncoding(format: .jpeg, quality: 90, cmyk: true)), outcome: decodes(160, 120)),
            HostileSample(name: "sixteen-bit-png", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 120, height: 90), width: 120, height: 90, bands: 3,
                as: OddEncoding(format: .png, sixteenBit: true)), outcome: decodes(120, 90)),
            HostileSample(name: "animated-gif", data: try ImageComposer.encode(
                pixels: frames, width: 120, height: 240, bands: 3, as: OddEncoding(format: .gif, frameCount: 3)),
                          outcome: decodes(120, 80)),
            HostileSample(name: "animated-webp", data: try ImageComposer.encode(
                pixels: frames, width: 120, height: 240, bands: 3, as: OddEncoding(format: .webp, quality: 90, frameCount: 3)),
                          outcome: decodes(120, 80)),
            HostileSample(name: "gps-phone-jpeg", data: try phoneJPEGWithGPS(), outcome: decodes(240, 320)),
            HostileSample(name: "gps-phone-webp", data: try phoneWebPWithGPS(), outcome: decodes(320, 240)),
        ]
    }

    // MARK: Helpers

    static func jpeg(width: Int, height: Int) throws(DownsampleError) -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: width, height: height), width: width, height: height,
                                 bands: 3, as: CompositionEncoding(format: .jpeg, quality: 90))
    }

    /// Red, green, blue and white quadrants (any orientation mistake shows).
    static func quadrantPixels(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                switch (x < width / 2, y < height / 2) {
                case (true, true): pixels[i + 1] = 0; pixels[i + 2] = 0
                case (false, true): pixels[i] = 0; pixels[i + 2] = 0
                case (true, false): pixels[i] = 0; pixels[i + 1] = 0
                case (false, false): break
                }
            }
        }
        return pixels
    }

    /// `count` solid frames stacked top to bottom: red first, then blue, green...
    static func animationFrames(width: Int, height: Int, count: Int) -> [UInt8] {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 0, 255], [0, 255, 0]]
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * count * 3)
        for frame in 0..<count {
            let colour = colours[frame % colours.count]
            for _ in 0..<(width * height) { pixels += colour }
        }
        return pixels
    }
}
