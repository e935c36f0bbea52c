/// A report as format-neutral blocks, so that the Markdown and the HTML
/// versions say exactly the same thing: each renderer only lays it out.
struct ReportDocument: Sendable {
    struct Table: Sendable {
        var header: [String]
        var rows: [[String]]
        /// Column indexes holding numbers (right-aligned).
        var numericColumns: Set<Int> = []
    }

    enum Chart: Sendable {
        case retainedDistribution
        case peakDistribution
        case retainedVersusPixels
        case variantBytes(VariantStatistics)
    }

    enum Block: Sendable {
        /// Plain text; `backticks` mark code.
        case paragraph(String)
        case list([String])
        case table(Table)
        /// Drawn in the HTML version only.
        case chart(Chart, caption: String)
    }

    struct Section: Sendable {
        var title: String
        var blocks: [Block]
    }

    var title: String
    var sections: [Section]
}
