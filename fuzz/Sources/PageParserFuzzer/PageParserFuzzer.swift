import CFuzzerDriver
import Foundation
@testable import PageParsing

/// libFuzzer entry point: one product list page body, as the crawler receives
/// it, through `ProductPage.decode` (both shapes), then everything the
/// pipeline derives from a page: the page count, each thumbnail URL and its
/// canonical cache key. Decoding errors are expected; a crash, a trap
/// (overflow, out-of-range index) or an ASan report is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let body = Data(bytes: start, count: count)
    guard let page = try? ProductPage.decode(from: body) else { return 0 }
    _ = ProductPage.lastPage(totalCount: page.totalCount, itemsPerPage: page.itemsPerPage)
    for product in page.products {
        guard let url = product.thumbnailURL else { continue }
        _ = try? CanonicalURL(url.absoluteString)
    }
    return 0
}

/// With WARM_FUZZ_WRITE_SEEDS=DIR, writes the seed corpus (pages of both shapes) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["WARM_FUZZ_WRITE_SEEDS"] else { return 0 }
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (index, seed) in PageSeeds.all.enumerated() {
        try? Data(seed.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("page-\(index).json"))
    }
    exit(0)
}

/// The program's entry point (SwiftPM links `main` to `PageParserFuzzer_main`): libFuzzer's driver.
@_cdecl("PageParserFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzPage($0, $1) }
}
