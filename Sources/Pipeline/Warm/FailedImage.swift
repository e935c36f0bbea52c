/// One failed image as the summary lists it (`failedImages`, the first `listLimit` of a run), or a product detail that
/// gave no carousel (its detail URL, reason code "detail-...").
struct FailedImage: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Enough to act on a bad night without making a large catalog's summary large; the counts by reason cover the rest.
    static let listLimit = 100

    var url: String
    /// The products naming it, as far as the run had seen them when it failed.
    var productIds: [Int]
    /// As in `failedByReason`: "http-404", "not-an-image", ...
    var reasonCode: String
    var reason: String

    init(_ failure: ImageFailure) {
        self.init(url: failure.url, productIds: failure.productIds, reasonCode: failure.reasonCode, reason: failure.reason)
    }

    init(url: String, productIds: [Int], reasonCode: String, reason: String) {
        self.url = url
        self.productIds = productIds
        self.reasonCode = reasonCode
        self.reason = reason
    }

    /// As `ImageFailure` says it.
    var description: String {
        ImageFailure.named(url: url, productIds: productIds) + ": " + reason
    }
}
