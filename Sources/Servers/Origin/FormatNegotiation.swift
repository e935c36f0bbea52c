import WarmSupport

/// Picks the format from `Accept` (RFC 9110 section 12.5.1), ties to the preferred format. AVIF and WebP count
/// only when named: old clients that cannot decode them still send `*/*`.
enum FormatNegotiation {
    /// nil when `Accept` allows none of `held`; no `Accept` means `*/*`.
    static func choose(accept: String?, held: some Sequence<OutputFormat>) -> OutputFormat? {
        let ranges = parse(accept ?? "*/*")
        // `max(by:)` keeps the first of equal elements: the preferred format wins a tie.
        return held.sorted { $0.preferenceRank < $1.preferenceRank }.map { (format: $0, quality: quality(of: $0, in: ranges)) }
            .filter { $0.quality > 0 }.max { $0.quality < $1.quality }?.format
    }

    struct MediaRange: Equatable {
        var type: String
        var subtype: String
        var quality: Double
    }

    static func quality(of format: OutputFormat, in ranges: [MediaRange]) -> Double {
        let parts = format.mediaType.split(separator: "/").map(String.init)
        var best: (specificity: Int, quality: Double)?
        for range in ranges {
            let specificity: Int
            if range.type == parts[0] && range.subtype == parts[1] {
                specificity = 3
            } else if range.type == parts[0] && range.subtype == "*" {
                specificity = 2
            } else if range.type == "*" && range.subtype == "*" {
                specificity = 1
            } else {
                continue
            }
            if format.needsExplicitAccept && specificity < 3 { continue }
            if best == nil || specificity > best!.specificity { best = (specificity, range.quality) }
        }
        return best?.quality ?? 0
    }

    /// The media ranges of an `Accept` value; malformed elements are skipped.
    static func parse(_ accept: String) -> [MediaRange] {
        accept.split(separator: ",").compactMap { element -> MediaRange? in
            let fields = element.split(separator: ";").map { String($0).trimmingBlanks() }
            let type = fields[0].lowercased().split(separator: "/", omittingEmptySubsequences: false)
            guard type.count == 2, !type[0].isEmpty, !type[1].isEmpty, !(type[0] == "*" && type[1] != "*") else { return nil }
            var quality = 1.0
            for parameter in fields.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingBlanks() }
                if pair.count == 2, pair[0].lowercased() == "q" {
                    guard let value = Double(pair[1]), (0...1).contains(value) else { return nil }
                    quality = value
                }
            }
            return MediaRange(type: String(type[0]), subtype: String(type[1]), quality: quality)
        }
    }
}

extension OutputFormat {
    /// What the origin sends when several are acceptable: smallest first.
    static let servedPreference: [OutputFormat] = [.avif, .webp, .jpeg, .png]

    /// The place in `servedPreference`: lower is preferred.
    var preferenceRank: Int { Self.servedPreference.firstIndex(of: self)! }

    /// Only sent when named in `Accept`: clients that cannot decode them still send `*/*` or `image/*`.
    var needsExplicitAccept: Bool { self == .avif || self == .webp }
}
