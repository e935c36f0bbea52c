import CatalogServer
import Crawl
import Fetch
import Foundation
import Pipeline

/// A small catalog server on loopback for pipeline tests, and quick settings.
enum TestCatalog {
    static func start(products: Int = 80, mix: CatalogImageMix = .miniature, shape: PageShape = .camelCase,
                      shared: Double = 0.05, without: Double = 0.03) async throws -> CatalogServer {
        var configuration = CatalogConfiguration()
        configuration.productCount = products
        configuration.imageMix = mix
        configuration.imagePoolSize = 8
        configuration.pageShape = shape
        configuration.sharedThumbnailFraction = shared
        configuration.withoutThumbnailFraction = without
        return try await CatalogServer.start(configuration: configuration)
    }

    /// Distinct thumbnail URLs the server lists right now.
    static func distinctThumbnails(_ server: CatalogServer) async -> Set<String> {
        Set(await server.products().compactMap { $0.thumbnailURL?.absoluteString })
    }

    static func configuration(_ server: CatalogServer, cache: URL, maxAgeSeconds: Double = 3600,
                              itemsPerPage: Int = 25) -> WarmConfiguration {
        WarmConfiguration(apiURL: server.baseURL, cacheDirectory: cache.path, sizes: [64], itemsPerPage: itemsPerPage,
                          fetchConcurrency: 6, decodeConcurrency: 2, maxAgeSeconds: maxAgeSeconds)
    }

    /// Fast retries, so retry tests take milliseconds.
    static let quickRetries = FetchConfiguration(requestTimeoutSeconds: 10, deadlineSeconds: 20, maxAttempts: 4,
                                                 backoffBaseSeconds: 0.01, backoffCapSeconds: 0.05)
}
