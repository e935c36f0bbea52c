/// Lays a `ReportDocument` out as GitHub-flavoured Markdown. Charts exist
/// only in the HTML version; here they become a pointer to it.
enum MarkdownRenderer {
    static func render(_ document: ReportDocument) -> String {
        var out = ["# \(document.title)", ""]
        for section in document.sections {
            out += ["## \(section.title)", ""]
            for block in section.blocks {
                switch block {
                case .paragraph(let text):
                    out += [text, ""]
                case .list(let items):
                    out += items.map { "- \($0)" } + [""]
                case .table(let table):
                    out += lines(table) + [""]
                case .chart(_, let caption):
                    out += ["_Chart in memory-comparison.html: \(caption)._", ""]
                }
            }
        }
        return out.joined(separator: "\n")
    }

    static func lines(_ table: ReportDocument.Table) -> [String] {
        func row(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        let rule = table.header.indices.map { table.numericColumns.contains($0) ? "---:" : "---" }
        return [row(table.header), "|" + rule.joined(separator: "|") + "|"] + table.rows.map(row)
    }
}
