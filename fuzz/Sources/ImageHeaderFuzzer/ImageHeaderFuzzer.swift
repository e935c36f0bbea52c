import CFuzzerDriver
import Downsample
import Foundation
import ImageSamples

/// libFuzzer entry point: one downloaded body through `ImageSource`: format
/// sniffing, the non-image guess, libvips' header read, the pixel limits and
/// EXIF parsing with libexif (orientation), then the EXIF reader's own
/// container parsing (WebP and PNG chunks). No pixel is decoded. Errors are
/// expected; a crash, a trap or an ASan report is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageHeader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(bytes: start, count: count)
    _ = try? ImageSource(data: data)
    _ = ExifReader.orientation(in: data)
    return 0
}

/// With WARM_FUZZ_WRITE_SEEDS=DIR, writes the seed corpus (the hostile and odd
/// image set plus plain images of every format) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["WARM_FUZZ_WRITE_SEEDS"] else { return 0 }
    let root = URL(fileURLWithPath: directory)
    try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    var seeds: [(String, Data)] = ((try? HostileImages.all()) ?? []).map { ($0.name, $0.data) }
    let pixels = ImageComposer.pattern(width: 24, height: 16)
    for format in [ImageFormat.jpeg, .png, .webp, .gif, .tiff] {
        if let data = try? ImageComposer.encode(pixels: pixels, width: 24, height: 16, bands: 3,
                                                as: CompositionEncoding(format: format, orientationTag: 6)) {
            seeds.append(("plain-\(format.rawValue)", data))
        }
    }
    for (name, data) in seeds {
        try? data.write(to: root.appendingPathComponent(name))
    }
    exit(0)
}

/// The program's entry point (SwiftPM links `main` to `ImageHeaderFuzzer_main`): libFuzzer's driver.
@_cdecl("ImageHeaderFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzImageHeader($0, $1) }
}
