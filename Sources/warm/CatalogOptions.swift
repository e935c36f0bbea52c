import ArgumentParser
import DemoCatalog
import Servers
import WarmSupport

/// The demo catalog's options, one declaration for `warm demo` and `warm serve`: a cache warmed from either has the
/// same keys (thumbnail URLs carry the port).
struct CatalogOptions: ParsableArguments {
    @Option(help: "TCP port of the catalog on 127.0.0.1 (0 picks a free one). Fixed by default, because thumbnail URLs (the cache keys) include it: a second demo run then finds its cache warm. `warm cache serve`, the origin, defaults to \(OriginConfiguration().port).")
    var port: Int = Self.defaultPort

    @Option(help: "Products in the generated catalog (the seeds' catalog had 1,336).")
    var products: Int = CatalogConfiguration().productCount

    @Option(help: "Images: seeds (server-side marketplace thumbnails like the seed apps' catalog, about 2.5 MB of naive decode each) or phone (phone uploads, screenshots and large WebP, about 22 MB each). Every product gets an image of its own, made on its first request.")
    var imageMix: CatalogImageMix = CatalogConfiguration().imageMix

    static let defaultPort = 18_080

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        try OptionCheck.count(products, in: 1...OptionCheck.maximumProducts, option: "--products")
    }
}

extension CatalogImageMix: ExpressibleByArgument {}
