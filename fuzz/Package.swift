// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for warm's parsers of untrusted bytes. Built only by
// scripts/fuzz.sh (with -sanitize=fuzzer,address), never by the main package.
// The sources under test are the main package's own files, reached through
// symbolic links (Sources/PageParsing/*.swift, Sources/WarmSupport/PixelSize.swift, Sources/Downsample, ...), so
// the fuzzers build without the HTTP and database dependencies. ImageSamples
// (the hostile image set that seeds ImageHeaderFuzzer) is the main package's
// test-support target under Tests/Support.
let package = Package(
    name: "warm-fuzz",
    targets: [
        .systemLibrary(name: "CLibVips", path: "Sources/CLibVips", pkgConfig: "vips"),
        .systemLibrary(name: "CLibExif", path: "Sources/CLibExif", pkgConfig: "libexif"),
        .target(name: "CWarmVips", dependencies: ["CLibVips"], path: "Sources/CWarmVips",
                linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("heif")]),
        .systemLibrary(name: "CGLib", path: "Sources/CGLib", pkgConfig: "glib-2.0"),
        // PixelSize.swift, SHA256Hex.swift and OutputFormat.swift only (Sources/WarmSupport/): the rest of WarmSupport needs swift-nio.
        .target(name: "WarmSupport", dependencies: ["CGLib"], path: "Sources/WarmSupport"),
        // Without the decode worker processes, which need the rest of WarmSupport.
        .target(name: "Downsample", dependencies: ["CWarmVips", "CLibExif", "WarmSupport"], path: "Sources/Downsample",
                exclude: ["DecodeWorkers"]),
        .target(name: "CTestImages", dependencies: ["CLibVips"], path: "Sources/CTestImages"),
        .target(name: "ImageSamples", dependencies: ["Downsample", "CLibExif", "CTestImages"], path: "Sources/ImageSamples"),
        // ProductPage and Product (Sources/Crawl), CanonicalURL and CacheError (Sources/Cache).
        .target(name: "PageParsing", path: "Sources/PageParsing"),
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "PageParserFuzzer", dependencies: ["PageParsing", "CFuzzerDriver"]),
        .executableTarget(name: "ImageHeaderFuzzer", dependencies: ["Downsample", "ImageSamples", "CFuzzerDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
