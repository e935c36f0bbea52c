import DemoCatalog
import Crawl
import Foundation

/// Catalog servers for tests: `CatalogServer` on a loopback port with small
/// catalogs (a few dozen products, a pool of 8 images), so that a test starts
/// one in a fraction of a second.
public enum TestCatalog {
    /// A small catalog of small synthetic images (no photo folder: cutting real
    /// photos costs about 0.2 s an image), seeded so that it repeats.
    public static func configuration(products: Int = 120, mix: CatalogImageMix = .miniature,
                                     shape: PageShape = .camelCase, shared: Double = 0.02,
                                     without: Double = 0.03, seed: UInt64 = 7) -> CatalogConfiguration {
        CatalogConfiguration(productCount: products, seed: seed, pageShape: shape,
                             sharedThumbnailFraction: shared, withoutThumbnailFraction: without,
                             photoDirectory: nil, imagePoolSize: 8, imageMix: mix)
    }

    /// Starts the catalog the pipeline and CLI tests run against: cut from the
    /// machine's photos when `CatalogConfiguration`'s default folder has any
    /// (as `warm demo` does), from seeded patterns otherwise.
    public static func start(products: Int = 80, mix: CatalogImageMix = .miniature, shape: PageShape = .camelCase,
                             shared: Double = 0.05, without: Double = 0.03) async throws -> CatalogServer {
        let defaults = CatalogConfiguration()
        var configuration = configuration(products: products, mix: mix, shape: shape, shared: shared, without: without,
                                          seed: defaults.seed)
        configuration.photoDirectory = defaults.photoDirectory
        return try await CatalogServer.start(configuration: configuration, hooks: CatalogTestHooks())
    }

    /// Distinct thumbnail URLs the server lists right now.
    public static func distinctThumbnails(_ server: CatalogServer) async -> Set<String> {
        Set(await server.products().compactMap { $0.thumbnailURL?.absoluteString })
    }
}
