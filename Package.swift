// swift-tools-version:6.0
import PackageDescription

// Module map: one module per pipeline stage (crawl, fetch, decode, measure, cache, serve), their composition,
// one support module every stage reaches without libvips, C interop kept to CWarmVips, the demo's catalog
// (DemoCatalog, which no production module imports), and a thin `warm` executable on top. What each may import: docs/source-layout.md (scripts/check-imports.py checks it).
let package = Package(
    name: "warm",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "warm", targets: ["warm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // gzip of the origin's app manifest (`GET /v1/manifest`): zlib for ByteBuffers, by Hummingbird's author.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // Already in the graph through Hummingbird; named here so the servers can stop gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Already in the graph through Hummingbird; AsyncChannel gives the pipeline back-pressure.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        // Already in the graph through Hummingbird; NIOHTTPTypes: the HTTP parts the origin answers below the router.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Already in the graph through swift-nio; FileDescriptor and Errno for ChildProcess's pipe I/O.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // System libraries, found with pkg-config (apt: libvips-dev, libexif-dev).
        .systemLibrary(
            name: "CLibVips", path: "Sources/CLibVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),
        .systemLibrary(
            name: "CLibExif", path: "Sources/CLibExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        // Thin, typed, non-variadic C wrappers over the libvips and glibc calls Swift cannot make.
        // libjpeg, libpng, libwebp and libheif (dependencies of libvips-dev) directly for thumbnails, without the savers.
        .target(name: "CWarmVips", dependencies: ["CLibVips"],
                linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("heif")]),

        // glibc calls declared only under _GNU_SOURCE (pipe2, posix_spawn_file_actions_addclosefrom_np), for
        // ChildProcess: declarations only, no C target, no libvips.
        .systemLibrary(name: "CLibcGNU", path: "Sources/CLibcGNU"),
        // GLib alone, for the one stable hash (SHA-256) without libvips; libvips-dev brings libglib2.0-dev.
        .systemLibrary(
            name: "CGLib", path: "Sources/CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),

        // Shared by every stage and free of libvips: small value types (PixelSize, Duration in seconds), the one
        // stable hash (SHA-256), BlockingWork and the child processes (one posix_spawn helper with pipes, wait
        // and kill, the frames spoken over the pipes, WorkerPool); blocking waits on NIO's thread pool.
        .target(
            name: "WarmSupport",
            dependencies: ["CLibcGNU", "CGLib",
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "SystemPackage", package: "swift-system")]),
        // Decode stage with its C engine (CWarmVips): image sources, limits, the three strategies, encoders,
        // placeholders (ThumbHash), the decode worker processes behind ThumbnailDecoding, and the image
        // composer the peak-noise probe and tests draw with (and whose libvips steps cut the demo catalog's images). The fuzz package compiles it
        // without DecodeWorkers/ (fuzz/Package.swift).
        .target(name: "Downsample", dependencies: ["CWarmVips", "CLibExif", "WarmSupport"]),
        // Measure stage: per-image metrics, the report table, regression checks.
        // (Named WarmMetrics because swift-metrics, pulled in by Hummingbird, owns the
        // module name "Metrics"; the folder keeps the project's fixed layout.)
        .target(name: "WarmMetrics", dependencies: ["Downsample", "WarmSupport"], path: "Sources/Metrics"),
        // Fetch stage: HTTP client with retries, limits, conditional requests.
        .target(
            name: "Fetch",
            dependencies: [
                "WarmSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Crawl stage: OpenMarket page models (both shapes), the page crawler and Detail/ (each product's carousel); the
        // other catalog sources, a folder each (URLList/, Sitemap/: CompressNIO inflates gzipped sitemaps, FoundationXML
        // parses them).
        .target(
            name: "Crawl",
            dependencies: [
                "Fetch", "WarmSupport",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // Cache stage: the disk cache layout, SQLite manifest, eviction, lock (no libvips).
        .target(
            name: "Cache",
            dependencies: [
                "WarmSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["LAYOUT.md"]),
        // The production HTTP server and what any server here shares: Origin/ (`warm cache serve` over a warmed
        // cache, read-only beside the writer), RunningServer (the one Hummingbird start-up: bound port, graceful
        // stop, signals) and ConditionalRequest (304 or not).
        .target(
            name: "Servers",
            dependencies: [
                "Cache", "WarmSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ]),
        // The demo's OpenMarket-compatible catalog (`warm demo`, `warm serve`, tests): its server, page JSON, the
        // images it draws and its fault injection. Production modules (Servers, Pipeline, Cache) do not import it.
        .target(
            name: "DemoCatalog",
            dependencies: [
                "Servers", "Crawl", "Downsample", "WarmSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Composition: crawl -> fetch -> decode -> cache write, with summaries.
        .target(
            name: "Pipeline",
            dependencies: [
                "Crawl", "Fetch", "Downsample", "Cache", "WarmMetrics", "WarmSupport",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "warm",
            dependencies: [
                "Downsample", "WarmMetrics", "Pipeline", "Servers", "DemoCatalog", "Cache", "Crawl", "Fetch", "WarmSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Test support, never linked into `warm`: the hostile and odd image set
        // (also the image fuzzer's seeds: fuzz/Package.swift links this folder).
        .target(name: "ImageSamples", dependencies: ["Downsample", "CLibExif", "CTestImages"], path: "Tests/Support/ImageSamples"),
        // libvips calls only tests need (CMYK, profiles, 16 bits, animations).
        .target(name: "CTestImages", dependencies: ["CLibVips"], path: "Tests/Support/CTestImages"),
        // Tests' shorthand for the cache's keyed calls with URL text (shipped code holds CanonicalURLs).
        .target(name: "CacheTestSupport", dependencies: ["Cache", .product(name: "GRDB", package: "GRDB.swift")],
                path: "Tests/Support/CacheTestSupport"),
        // Helpers more than one test target uses: catalog and fixture servers on loopback, fast fetch
        // settings, temporary directories removed after each test, `ChildProcess.run`, `CapturedLog`.
        .target(
            name: "WarmTestSupport",
            dependencies: [
                "Servers", "DemoCatalog", "Crawl", "Fetch", "WarmSupport", "Downsample",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support/WarmTestSupport"),

        // The fast tier (scripts/test-fast): one target per module, tests that need no process, no server and no sleep
        // (scripts/check-imports.py holds them to it). The other targets below start servers or processes.
        .testTarget(
            name: "DownsampleTests", dependencies: ["Downsample", "CWarmVips", "ImageSamples", "WarmSupport", "WarmTestSupport"]),
        // Fixtures/: the reference's vectors and the script that makes them, read through #filePath.
        // Placeholders (Downsample/Placeholder).
        .testTarget(name: "PlaceholderTests", dependencies: ["Downsample", "WarmTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MetricsTests", dependencies: ["WarmMetrics", "Downsample", "WarmSupport", "WarmTestSupport"]),
        // The sitemap tests gzip their documents with CompressNIO; the walker's fake fetcher answers with Fetch's types.
        .testTarget(
            name: "CrawlTests",
            dependencies: [
                "Crawl", "Fetch",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "CacheTests",
            dependencies: ["Cache", "CacheTestSupport", "Downsample", "WarmSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // The pipeline's parts and a run with a fake fetcher and decoder, in the test process.
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "Pipeline", "CacheTestSupport", "Cache", "Crawl", "Downsample", "Fetch", "WarmSupport",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The command line in the test process: help pages, the commands the hostile-option sweep drives, one option's grammar.
        .testTarget(
            name: "CommandTests",
            dependencies: ["warm", "WarmTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // The slow tier. The process helpers (WarmSupport/ChildProcesses), the cache lock and the measuring children
        // as other processes see them.
        .testTarget(name: "ChildProcessesTests", dependencies: ["WarmSupport", "WarmTestSupport", "Cache", "WarmMetrics"]),
        // The fetcher and the crawler against real servers on loopback.
        .testTarget(
            name: "FetchTests",
            dependencies: [
                "Fetch", "Crawl", "Servers", "DemoCatalog", "WarmTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .testTarget(name: "CatalogServerTests", dependencies: ["DemoCatalog", "Crawl", "Fetch", "WarmTestSupport"]),
        // WarmPipeline run in the test process against the demo catalog on loopback.
        .testTarget(
            name: "PipelineRunTests",
            dependencies: [
                "Pipeline", "CacheTestSupport", "WarmMetrics", "DemoCatalog", "Cache", "Downsample", "Fetch", "WarmSupport", "WarmTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // End to end: the built `warm` binary run as a child process, and the
        // deployment files checked by scripts/check-deploy.py; the slowest target.
        .testTarget(
            name: "CLITests",
            dependencies: [
                "Pipeline", "CacheTestSupport", "Servers", "DemoCatalog", "Cache", "Downsample", "WarmMetrics", "ImageSamples", "WarmTestSupport",
                "WarmSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        // The origin in the test process, on loopback, against caches the tests write.
        .testTarget(
            name: "OriginTests",
            dependencies: [
                "Servers", "Cache", "CacheTestSupport", "WarmTestSupport", "WarmSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
