/// What `warm check` found: each baseline image's result, the catalog-level figures, and why the comparison was
/// incomplete when it was. Encoded as is for `--json`.
public struct CheckOutcome: Sendable, Equatable, Codable {
    struct Regression: Sendable, Equatable, Codable, CustomStringConvertible {
        enum Kind: String, Sendable, Codable {
            case nowFails, outputSizeChanged, retainedGrew, decodedMorePixels, peakGrew, ssimBelowMinimum, ssimDropped,
                 catalogFigure
        }
        var kind: Kind
        /// Nil for a catalog-level figure.
        var url: String?
        var detail: String

        var description: String { (url.map { "\($0): " } ?? "") + detail }
    }

    /// Why the metrics cannot stand for the baseline: the check fails without calling it a regression.
    public struct Shortfall: Sendable, Equatable, Codable, CustomStringConvertible {
        enum Kind: String, Sendable, Codable {
            case tooFewCompared, pixelsNotCounted, decodersDiffer, settingsDiffer
        }
        var kind: Kind
        var detail: String

        public var description: String { detail }
    }

    struct ImageResult: Sendable, Equatable, Codable {
        enum State: String, Sendable, Codable {
            case compared
            /// No record of this image (by source SHA-256 or URL path).
            case missing
            /// A record at the same URL path with other source bytes: not compared.
            case changed
        }
        var url: String
        var state: State
        var regressions: [Regression]
        /// Advisory: a peak above its allowance. Reported, never failing the check (docs/measuring.md says why).
        var warnings: [Regression] = []
    }

    /// A median or p90 of the per-image ratio now / baseline over the compared images.
    struct CatalogFigure: Sendable, Equatable, Codable {
        var name: String
        /// Nil when no image had both figures.
        var ratio: Double?
        var limit: Double
        var images: Int
        /// False over fewer images than `RegressionCheck.catalogMinimumImages`: shown, not judged.
        var judged: Bool
        /// True for a figure of time or peak memory: above its limit it warns, and the check still passes.
        var advisory: Bool = false
        var exceeded: Bool { judged && ratio.map { $0 > limit } ?? false }

        var regression: Regression? { advisory ? nil : finding }
        var warning: Regression? { advisory ? finding : nil }

        private var finding: Regression? {
            guard exceeded, let ratio else { return nil }
            return Regression(kind: .catalogFigure, url: nil,
                              detail: "\(name) is \(ReportFormat.number(ratio, decimals: 3)) over \(images) images, above the limit \(ReportFormat.number(limit, decimals: 3))")
        }
    }

    var images: [ImageResult]
    var catalogFigures: [CatalogFigure]
    public var shortfalls: [Shortfall]
    var comparedImages: Int
    var newImages: Int
    var fixedImages: Int
    var notes: [String]

    var regressions: [Regression] { images.flatMap(\.regressions) + catalogFigures.compactMap(\.regression) }
    /// Advisory findings (peaks, CPU time): printed, in the JUnit file's output, never a failure.
    var warnings: [Regression] { images.flatMap(\.warnings) + catalogFigures.compactMap(\.warning) }
    public var passed: Bool { shortfalls.isEmpty && regressions.isEmpty }

    func count(_ state: ImageResult.State) -> Int { images.filter { $0.state == state }.count }

    /// What `warm check` prints: regressions, shortfalls, advisory warnings, catalog figures, notes, then the counts.
    public func lines() -> [String] {
        regressions.map { "regression: \($0)" } + shortfalls.map { "not comparable: \($0)" }
            + warnings.map { "warning (advisory, does not fail the check): \($0)" }
            + catalogFigures.map { figure in
                let ratio = figure.ratio.map { ReportFormat.number($0, decimals: 3) } ?? "none"
                let limit = !figure.judged ? "too few images to judge"
                    : "\(figure.advisory ? "advisory limit" : "limit") \(ReportFormat.number(figure.limit, decimals: 3))"
                return "catalog: \(figure.name) \(ratio) over \(figure.images) images (\(limit))"
            }
            + notes.map { "note: \($0)" }
            + ["\(comparedImages) of \(images.count) baseline images compared (\(count(.missing)) missing, \(count(.changed)) changed), \(regressions.count) regressions, \(warnings.count) advisory warnings, \(fixedImages) fixed, \(newImages) new."]
    }
}
