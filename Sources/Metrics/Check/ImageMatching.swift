/// Pairs each baseline image with this run's record of the same image, whatever host, port or scheme served it: by
/// source SHA-256 where both sides know it (a renamed image still matches), else by the URL's path and query. The same
/// path holding other bytes is a changed image: not compared, and not a regression.
struct ImageMatching {
    enum Match {
        case record(ImageMetricsRecord)
        case changed(ImageMetricsRecord)
        case missing
    }

    /// One per baseline image, in the baseline's order.
    let matches: [Match]
    /// Records no baseline image matched.
    let newImages: Int

    init(baseline: [MetricsBaseline.Image], records: [ImageMetricsRecord]) {
        let current = Array(MetricsBaseline.lastByURL(records).values).sorted { $0.url < $1.url }
        var bySHA: [String: [Int]] = [:], byLocation: [String: [Int]] = [:]
        for (index, record) in current.enumerated() {
            if let sha = record.sourceSHA256 { bySHA[sha, default: []].append(index) }
            byLocation[MetricsBaseline.Image.location(of: record.url), default: []].append(index)
        }
        var used = Set<Int>()
        matches = baseline.map { image in
            let location = image.location
            if let sha = image.sourceSHA256, let same = bySHA[sha]?.filter({ !used.contains($0) }), !same.isEmpty {
                // Identical bytes at several URLs: the one at the baseline's location first.
                let index = same.first { MetricsBaseline.Image.location(of: current[$0].url) == location } ?? same[0]
                used.insert(index)
                return .record(current[index])
            }
            guard let index = byLocation[location]?.first(where: { !used.contains($0) }) else { return .missing }
            used.insert(index)
            if let was = image.sourceSHA256, let now = current[index].sourceSHA256, was != now {
                return .changed(current[index])
            }
            return .record(current[index])
        }
        newImages = current.count - used.count
    }
}
