import Downsample
import Foundation

/// Inline SVG charts for the HTML report: no scripts, no external resources.
/// Logarithmic axes, because naive and thumbnail bitmaps differ by orders of magnitude.
enum SVGChart {
    static let colours: [StrategyKind: String] = [.naive: "#c0392b", .renderer: "#d68910", .thumbnail: "#1f6fb2"]

    /// One row per strategy: every image as a dot (deterministically jittered),
    /// with a box from p25 to p75 and a line at the median.
    static func distribution(_ records: [ImageMetricsRecord], _ value: (ImageMetricsRecord.StrategyMetrics) -> Int?,
                             valueName: String) -> String {
        let valuesByKind = StrategyKind.allCases.map { kind in (kind, records.compactMap { $0.strategies[kind].flatMap(value) }) }
        let all = valuesByKind.flatMap(\.1).filter { $0 > 0 }
        guard !all.isEmpty else { return empty("No \(valueName) to plot.") }
        let width = 1000.0, left = 110.0, right = 30.0, rowHeight = 90.0, top = 20.0
        let height = top + rowHeight * Double(valuesByKind.count) + 45
        let axis = LogAxis(values: all.map(Double.init), from: left, to: width - right)
        var svg = header(width: width, height: height, label: "\(valueName) per image by strategy, logarithmic axis")
        svg += axis.verticalGrid(top: top, bottom: height - 40, label: megabytesLabel)
        for (row, (kind, values)) in valuesByKind.enumerated() {
            let y0 = top + rowHeight * Double(row), mid = y0 + rowHeight / 2
            let colour = colours[kind] ?? "#444"
            svg += text(x: left - 10, y: mid + 4, anchor: "end", kind.rawValue, bold: true)
            for (i, value) in values.enumerated() where value > 0 {
                let jitter = (Double((i &* 2_654_435_761) % 1000) / 1000 - 0.5) * rowHeight * 0.6
                svg += "<circle cx=\"\(f(axis.position(Double(value))))\" cy=\"\(f(mid + jitter))\" r=\"2\" fill=\"\(colour)\" fill-opacity=\"0.35\"/>"
            }
            let sorted = values.filter { $0 > 0 }.sorted()
            if let p25 = Percentile.of(sorted, 25), let p50 = Percentile.of(sorted, 50), let p75 = Percentile.of(sorted, 75) {
                let x25 = axis.position(Double(p25)), x75 = axis.position(Double(p75)), x50 = axis.position(Double(p50))
                svg += "<rect x=\"\(f(x25))\" y=\"\(f(mid - rowHeight * 0.35))\" width=\"\(f(max(1, x75 - x25)))\" height=\"\(f(rowHeight * 0.7))\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.5\"/>"
                svg += "<line x1=\"\(f(x50))\" x2=\"\(f(x50))\" y1=\"\(f(mid - rowHeight * 0.35))\" y2=\"\(f(mid + rowHeight * 0.35))\" stroke=\"#222\" stroke-width=\"3\"/>"
                svg += text(x: x75 + 6, y: mid - rowHeight * 0.38 + 10, anchor: "start", "median " + ReportFormat.megabytes(p50))
            }
        }
        svg += text(x: (left + width - right) / 2, y: height - 8, anchor: "middle", "\(valueName) (decimal MB, log scale)")
        return svg + "</svg>"
    }

    /// Retained bytes (y) against source pixels (x), one dot per image and strategy.
    static func scatter(_ points: [(StrategyKind, pixels: Int, bytes: Int)]) -> String {
        let usable = points.filter { $0.pixels > 0 && $0.bytes > 0 }
        guard !usable.isEmpty else { return empty("No images to plot.") }
        let width = 1000.0, height = 520.0, left = 90.0, right = 30.0, top = 20.0, bottom = 60.0
        let xAxis = LogAxis(values: usable.map { Double($0.pixels) }, from: left, to: width - right)
        let yAxis = LogAxis(values: usable.map { Double($0.bytes) }, from: height - bottom, to: top)
        var svg = header(width: width, height: height, label: "retained bytes against source pixels, log-log")
        svg += xAxis.verticalGrid(top: top, bottom: height - bottom, label: megapixelsLabel)
        svg += yAxis.horizontalGrid(left: left, right: width - right, label: megabytesLabel)
        for point in usable {
            svg += marker(point.0, x: xAxis.position(Double(point.pixels)), y: yAxis.position(Double(point.bytes)), size: 3)
        }
        for (i, kind) in StrategyKind.allCases.enumerated() {
            let x = left + 20 + Double(i) * 140
            svg += marker(kind, x: x, y: top + 12, size: 5)
            svg += text(x: x + 10, y: top + 16, anchor: "start", kind.rawValue)
        }
        svg += text(x: (left + width - right) / 2, y: height - 12, anchor: "middle", "source pixels (megapixels, log scale)")
        svg += "<text x=\"16\" y=\"\(f((top + height - bottom) / 2))\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 16 \(f((top + height - bottom) / 2)))\">retained (decimal MB, log scale)</text>"
        return svg + "</svg>"
    }

    static let formatColours = ["jpeg": "#1f6fb2", "webp": "#2e8b57", "avif": "#8e44ad", "png": "#7f8c8d"]

    /// One horizontal bar per entry on a linear axis from 0, its value written at its end.
    static func bars(_ entries: [(label: String, format: String, bytes: Int)]) -> String {
        guard let largest = entries.map(\.bytes).max(), largest > 0 else { return empty("No variants to plot.") }
        let width = 1000.0, left = 130.0, right = 110.0, barHeight = 22.0, gap = 8.0, top = 10.0
        let height = top + Double(entries.count) * (barHeight + gap) + 10
        let scale = (width - left - right) / Double(largest)
        var svg = header(width: width, height: height, label: "median bytes per variant by format and size")
        for (row, entry) in entries.enumerated() {
            let y = top + Double(row) * (barHeight + gap), length = max(1, Double(entry.bytes) * scale)
            svg += text(x: left - 10, y: y + barHeight * 0.7, anchor: "end", entry.label, bold: true)
            svg += "<rect x=\"\(f(left))\" y=\"\(f(y))\" width=\"\(f(length))\" height=\"\(f(barHeight))\" fill=\"\(formatColours[entry.format] ?? "#444")\"/>"
            svg += text(x: left + length + 6, y: y + barHeight * 0.7, anchor: "start", ReportFormat.kilobytes(entry.bytes))
        }
        return svg + "</svg>"
    }

    // MARK: Pieces

    /// A shape per strategy, so renderer and thumbnail (often the same bytes) stay visible where they overlap.
    static func marker(_ kind: StrategyKind, x: Double, y: Double, size: Double) -> String {
        let colour = colours[kind] ?? "#444"
        switch kind {
        case .naive:
            return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(size))\" fill=\"\(colour)\" fill-opacity=\"0.55\"/>"
        case .renderer:
            return "<rect x=\"\(f(x - size))\" y=\"\(f(y - size))\" width=\"\(f(size * 2))\" height=\"\(f(size * 2))\" fill=\"\(colour)\" fill-opacity=\"0.55\"/>"
        case .thumbnail:
            return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(size + 1.5))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>"
        }
    }

    /// A base-10 logarithmic axis covering whole decades around the values.
    struct LogAxis {
        let lowDecade: Int, highDecade: Int
        let from: Double, to: Double

        init(values: [Double], from: Double, to: Double) {
            let low = Int(floor(log10(values.min()!))), high = Int(ceil(log10(values.max()!)))
            lowDecade = low
            highDecade = max(high, low + 1)
            self.from = from
            self.to = to
        }

        func position(_ value: Double) -> Double {
            let t = (log10(value) - Double(lowDecade)) / Double(highDecade - lowDecade)
            return from + t * (to - from)
        }

        var ticks: [Double] { (lowDecade...highDecade).map { pow(10, Double($0)) } }

        func verticalGrid(top: Double, bottom: Double, label: (Double) -> String) -> String {
            ticks.map { tick in
                let x = position(tick)
                return "<line x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(f(top))\" y2=\"\(f(bottom))\" stroke=\"#ddd\"/>"
                    + SVGChart.text(x: x, y: bottom + 16, anchor: "middle", label(tick))
            }.joined()
        }

        func horizontalGrid(left: Double, right: Double, label: (Double) -> String) -> String {
            ticks.map { tick in
                let y = position(tick)
                return "<line x1=\"\(f(left))\" x2=\"\(f(right))\" y1=\"\(f(y))\" y2=\"\(f(y))\" stroke=\"#ddd\"/>"
                    + SVGChart.text(x: left - 6, y: y + 4, anchor: "end", label(tick))
            }.joined()
        }
    }

    static func megabytesLabel(_ bytes: Double) -> String { decadeLabel(bytes / 1_000_000) + " MB" }
    static func megapixelsLabel(_ pixels: Double) -> String { decadeLabel(pixels / 1_000_000) + " MP" }

    /// 0.001, 0.01, 0.1, 1, 10, 100, 1,000...
    static func decadeLabel(_ value: Double) -> String {
        value >= 1 ? ReportFormat.grouped(value, decimals: 0) : String(format: "%g", value)
    }

    static func header(width: Double, height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"100%\" role=\"img\" aria-label=\"\(HTMLRenderer.escape(label))\" font-family=\"sans-serif\">"
    }

    static func text(x: Double, y: Double, anchor: String, _ content: String, bold: Bool = false) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-size=\"13\"\(bold ? " font-weight=\"bold\"" : "")>\(HTMLRenderer.escape(content))</text>"
    }

    static func empty(_ message: String) -> String {
        "<p class=\"note\">\(HTMLRenderer.escape(message))</p>"
    }

    /// Coordinates with one decimal: enough for the screen, short in the file.
    static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
