import Foundation

/// `--max-failed`: how many images may fail before a run fails (exit 2), as a count (`5`) or a share of the images
/// scheduled (`1%`, rounded down). Pages are not covered: a list not read whole is a failure of its own (exit 6).
public enum FailureBudget: Sendable, Hashable, CustomStringConvertible {
    case count(Int)
    case percent(Double)

    /// 1%: a few products whose image URL is broken (the catalog's data, not the job) page nobody every night, while an
    /// outage of the image host or the network, which fails far more than 1%, still does.
    public static let `default` = FailureBudget.percent(1)

    /// `5` or `1%` (0-100, fractions allowed); nil for anything else.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%") {
            guard let share = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)), share.isFinite,
                  (0...100).contains(share) else { return nil }
            self = .percent(share)
        } else {
            guard let count = Int(trimmed), count >= 0 else { return nil }
            self = .count(count)
        }
    }

    /// The images that may fail in a run that scheduled `scheduled`.
    func images(scheduled: Int) -> Int {
        switch self {
        case .count(let count): count
        case .percent(let share): Int((Double(scheduled) * share / 100).rounded(.down))
        }
    }

    public var description: String {
        switch self {
        case .count(let count): "\(count)"
        case .percent(let share): (share == share.rounded() ? "\(Int(share))" : "\(share)") + "%"
        }
    }
}
