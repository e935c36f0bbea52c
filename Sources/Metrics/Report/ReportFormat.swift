import Foundation

/// How the reports print numbers: memory in decimal MB, as the seeds' table is read.
enum ReportFormat {
    static func megabytes(_ bytes: Double?) -> String {
        guard let bytes else { return "-" }
        let mb = bytes / 1_000_000
        let decimals = abs(mb) >= 100 ? 1 : abs(mb) >= 1 ? 2 : 3
        return grouped(mb, decimals: decimals) + " MB"
    }

    /// Whole megabytes print without decimals ("100 MB"), others as `megabytes(Double)`.
    static func megabytes(_ bytes: Int?) -> String {
        guard let bytes else { return "-" }
        if bytes != 0 && bytes % 1_000_000 == 0 { return grouped(Double(bytes / 1_000_000), decimals: 0) + " MB" }
        return megabytes(Double(bytes))
    }

    /// Encoded files, in decimal kilobytes with one decimal: 10,538 bytes -> "10.5 KB".
    static func kilobytes(_ bytes: Int) -> String {
        grouped(Double(bytes) / 1_000, decimals: 1) + " KB"
    }

    /// A reduction in percent as a positive figure that says which way: 96.42 -> "96.42% less memory", -5 -> "5.00% more
    /// memory" (a minus sign under a heading that already says "less" reads as an increase).
    static func reduction(_ reductionPercent: Double) -> String {
        grouped(abs(reductionPercent), decimals: 2) + (reductionPercent >= 0 ? "% less memory" : "% more memory")
    }

    static func count(_ value: Int) -> String { grouped(Double(value), decimals: 0) }

    static func number(_ value: Double?, decimals: Int) -> String {
        guard let value else { return "-" }
        return grouped(value, decimals: decimals)
    }

    static func percent(_ fraction: Double?, decimals: Int = 1) -> String {
        guard let fraction else { return "-" }
        return grouped(fraction * 100, decimals: decimals) + "%"
    }

    /// Fixed decimals with thousands separators, independent of the locale.
    static func grouped(_ value: Double, decimals: Int) -> String {
        let text = String(format: "%.\(decimals)f", value)
        let negative = text.hasPrefix("-")
        let parts = (negative ? String(text.dropFirst()) : text).split(separator: ".", maxSplits: 1)
        let digits = Array(parts[0])
        let groups = stride(from: digits.count, to: 0, by: -3).reversed().map { String(digits[max(0, $0 - 3)..<$0]) }
        return (negative ? "-" : "") + groups.joined(separator: ",") + (parts.count > 1 ? "." + parts[1] : "")
    }
}
