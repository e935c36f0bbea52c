import Foundation

/// Why a URL list cannot be used at all: it is not text, or it is larger than its limits. A list that fails whole
/// is exit 6 for the caller, with nothing warmed or pruned; one bad line is only a `ListingProblem`.
public enum URLListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read (`reason` as the system said it).
    case unreadable(list: String, reason: String)
    case tooLarge(list: String, limitBytes: Int)
    case nulByte(list: String, line: Int)
    case notUTF8(list: String, line: Int)
    case lineTooLong(list: String, line: Int, limitBytes: Int)
    case tooManyEntries(list: String, line: Int, limit: Int)

    /// A short stable code for reports and metrics.
    var reasonCode: String {
        switch self {
        case .unreadable: return "list-unreadable"
        case .tooLarge: return "list-too-large"
        case .nulByte, .notUTF8: return "list-not-text"
        case .lineTooLong: return "list-line-too-long"
        case .tooManyEntries: return "list-too-many-entries"
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let list, let reason):
            return "The URL list \(list) could not be read: \(reason); nothing of it was used."
        case .tooLarge(let list, let limit):
            return "The URL list \(list) is larger than \(limit) bytes; nothing of it was used."
        case .nulByte(let list, let line):
            return "The URL list \(list) is not text: line \(line) holds a NUL byte; nothing of it was used."
        case .notUTF8(let list, let line):
            return "The URL list \(list) is not UTF-8 text: line \(line) holds bytes that are not UTF-8; nothing of it was used."
        case .lineTooLong(let list, let line, let limit):
            return "Line \(line) of the URL list \(list) is longer than \(limit) bytes; nothing of the list was used."
        case .tooManyEntries(let list, let line, let limit):
            return "The URL list \(list) names more than \(limit) distinct URLs (line \(line) is one too many); nothing of it was used."
        }
    }
}
