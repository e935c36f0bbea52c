import Downsample
import Foundation

/// Lays a `ReportDocument` out as one self-contained HTML page: inline CSS,
/// inline SVG charts, no scripts, nothing fetched, readable offline.
enum HTMLRenderer {
    /// - Parameter records: the images the charts plot (all three strategies decoded).
    static func render(_ document: ReportDocument, records: [ImageMetricsRecord]) -> String {
        var body = "<h1>\(escape(document.title))</h1>\n"
        for section in document.sections {
            body += "<h2>\(escape(section.title))</h2>\n"
            for block in section.blocks {
                switch block {
                case .paragraph(let text):
                    body += "<p>\(inline(text))</p>\n"
                case .list(let items):
                    body += "<ul>" + items.map { "<li>\(inline($0))</li>" }.joined() + "</ul>\n"
                case .table(let table):
                    body += self.table(table) + "\n"
                case .chart(let chart, let caption):
                    body += "<figure>\(svg(chart, records: records))<figcaption>\(escape(caption))</figcaption></figure>\n"
                }
            }
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(document.title))</title>
            <style>
            body { font-family: -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #1d1d1f; line-height: 1.45; }
            h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
            table { border-collapse: collapse; margin: 1em 0; font-size: .92em; }
            th, td { border: 1px solid #d0d0d0; padding: .35em .6em; vertical-align: top; }
            th { background: #f3f3f3; text-align: left; }
            td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
            tbody tr:nth-child(even) { background: #fafafa; }
            code { font-family: "DejaVu Sans Mono", monospace; font-size: .9em; background: #f3f3f3; padding: 0 .2em; }
            figure { margin: 1.5em 0; } figcaption { color: #555; font-size: .9em; }
            .note { color: #777; }
            .wide { overflow-x: auto; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    static func table(_ table: ReportDocument.Table) -> String {
        var html = "<div class=\"wide\"><table><thead><tr>" + table.header.map { "<th>\(inline($0))</th>" }.joined() + "</tr></thead><tbody>"
        for row in table.rows {
            html += "<tr>" + row.enumerated().map { index, cell in
                table.numericColumns.contains(index) ? "<td class=\"n\">\(inline(cell))</td>" : "<td>\(inline(cell))</td>"
            }.joined() + "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    static func svg(_ chart: ReportDocument.Chart, records: [ImageMetricsRecord]) -> String {
        switch chart {
        case .retainedDistribution:
            return SVGChart.distribution(records, { $0.retainedBytes }, valueName: "retained memory")
        case .peakDistribution:
            return SVGChart.distribution(records, { $0.peakBytes }, valueName: "peak transient memory")
        case .retainedVersusPixels:
            return SVGChart.scatter(records.flatMap { record in
                StrategyKind.allCases.compactMap { kind in
                    guard let pixels = record.sourcePixels, let bytes = record.strategies[kind]?.retainedBytes else { return nil }
                    return (kind, pixels: pixels, bytes: bytes)
                }
            })
        case .variantBytes(let variants):
            // Grouped by size, so that the formats to choose between sit side by side.
            return SVGChart.bars(variants.sizes.flatMap { size in
                variants.rows.filter { $0.size == size }.map { (label: "\($0.format) \(size) px", format: $0.format, bytes: $0.bytesP50) }
            })
        }
    }

    /// Escapes text, then turns `backtick spans` into <code>.
    static func inline(_ text: String) -> String {
        let parts = escape(text).split(separator: "`", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return escape(text) }
        return parts.enumerated().map { index, part in index % 2 == 1 && index < parts.count - 1 ? "<code>\(part)</code>" : String(part) }
            .joined()
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
