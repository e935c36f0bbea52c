import Fetch
import Foundation

/// Reads products' details (`GET /api/products/{id}`) through the run's fetcher, so its retries, deadlines, host
/// allow-list and body limit apply to each, `concurrency` at a time, and hands over each product's carousel
/// (`ProductCarousel`) or the reason it has none (`DetailFailure`).
///
/// One product's detail never ends the read: a 404, a body that is not a detail, a detail of another product or one
/// over the image limit is that product's `DetailFailure`, and the others are read. Only cancellation stops it.
///
/// A detail listing more than `maxImagesPerProduct` entries is refused whole rather than truncated: a carousel of
/// 10,000 photos is a broken detail (a bug, or hostile), not a product, and a truncated one would warm an arbitrary
/// prefix and report the product as fine. The failure names the count and the limit, so a real catalog that needs
/// more says so at once. Entries without a usable `url` are skipped and counted in `ProductCarousel.skipped`.
///
/// Cost: at most `concurrency` fetches in flight, hence at most `concurrency` bodies (each bounded by the fetcher's
/// body limit) and their parsed JSON held at once; a result holds about 200 bytes per image.
public struct DetailReader: Sendable {
    /// The API base; a path prefix is kept (as `CrawlConfiguration.apiBaseURL`).
    public let apiBaseURL: URL
    /// Details fetched at once.
    public let concurrency: Int
    /// More carousel entries than this fail the product (`DetailFailure.tooManyImages`).
    public let maxImagesPerProduct: Int
    private let fetcher: any Fetching

    public static let defaultConcurrency = 4
    /// The seed apps' products show 1 to 5 photos and marketplaces cap uploads at 10 to 30; 100 leaves room for any
    /// real carousel and none for a runaway list.
    public static let defaultMaxImagesPerProduct = 100

    public init(apiBaseURL: URL, fetcher: any Fetching, concurrency: Int = Self.defaultConcurrency,
                maxImagesPerProduct: Int = Self.defaultMaxImagesPerProduct) {
        self.apiBaseURL = apiBaseURL
        self.fetcher = fetcher
        self.concurrency = max(1, concurrency)
        self.maxImagesPerProduct = max(0, maxImagesPerProduct)
    }

    public func detailURL(productID: Int) -> URL {
        apiBaseURL.appending(path: "api/products/\(productID)")
    }

    /// Reads the detail of each of `productIDs` and calls `consume` with each result as its fetch completes (not in
    /// the order of `productIDs`), one call at a time; a slow `consume` holds back the next fetches. Returns when
    /// every product has been handed over, or early, without handing over the rest, when the task is cancelled. An
    /// error `consume` throws cancels the fetches in flight and is rethrown.
    public func read<E: Error>(_ productIDs: some Sequence<Int>,
                               _ consume: (Result<ProductCarousel, DetailFailure>) async throws(E) -> Void) async throws(E) {
        var thrown: E?
        await withTaskGroup(of: Result<ProductCarousel, DetailFailure>.self) { group in
            var pending = productIDs.makeIterator()
            func startNext() {
                guard !Task.isCancelled, let id = pending.next() else { return }
                group.addTask { await self.read(productID: id) }
            }
            for _ in 0..<concurrency { startNext() }
            while let result = await group.next() {
                guard !Task.isCancelled else { break }
                do throws(E) {
                    try await consume(result)
                } catch {
                    thrown = error
                    break
                }
                startNext()
            }
            group.cancelAll()
        }
        if let thrown { throw thrown }
    }

    /// One product's carousel or failure; never throws.
    func read(productID: Int) async -> Result<ProductCarousel, DetailFailure> {
        let url = detailURL(productID: productID)
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.get(url)
        } catch {
            return .failure(.fetchFailed(productID: productID, url: url, error: error))
        }
        guard let resource = outcome.resource else { return .failure(.notModified(productID: productID, url: url)) }
        return Self.carousel(from: resource.body, productID: productID, url: url, maxImages: maxImagesPerProduct)
    }

    /// The carousel `body` describes, checked against the product asked for (`productID`) and the image limit.
    public static func carousel(from body: Data, productID: Int, url: URL,
                                maxImages: Int = defaultMaxImagesPerProduct) -> Result<ProductCarousel, DetailFailure> {
        let detail: ProductDetail
        do {
            detail = try ProductDetail.decode(from: body)
        } catch {
            return .failure(.notADetail(productID: productID, url: url, problem: DecodingProblem.describe(error)))
        }
        guard detail.id == productID else {
            return .failure(.wrongID(productID: productID, url: url, answeredID: detail.id))
        }
        guard detail.images.count <= maxImages else {
            return .failure(.tooManyImages(productID: productID, url: url, count: detail.images.count, limit: maxImages))
        }
        return .success(ProductCarousel(detail, detailURL: url))
    }
}
