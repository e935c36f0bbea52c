/// Nearest-rank percentiles (the smallest value with at least p% of the
/// values at or below it), so every figure reported is a measured value.
enum Percentile {
    /// - Parameter sorted: ascending values.
    static func of<T: Comparable>(_ sorted: [T], _ percent: Double) -> T? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }
}
