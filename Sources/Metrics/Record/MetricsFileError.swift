import Foundation
import WarmSupport

/// Why a metrics or baseline file could not be read or written.
public enum MetricsFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case badLine(path: String, line: Int, reason: String)
    case unwritable(path: String, reason: String)
    case badBaseline(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "the metrics file \(path) cannot be read: \(reason)"
        case .badLine(let path, let line, let reason):
            return "line \(line) of \(path) is not a metrics record: \(reason)"
        case .unwritable(let path, let reason):
            return "\(path) cannot be written: \(reason)"
        case .badBaseline(let path, let reason):
            return "the baseline \(path) cannot be used: \(reason)"
        }
    }
}

extension MetricsFileError {
    static func read(_ path: String) throws(MetricsFileError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
    }

    /// Writes `data` to `path` through `AtomicFile` (readers never see half a file, a failure leaves the old one),
    /// creating the parent directory when missing. Blocking.
    static func write(_ data: Data, to path: String) throws(MetricsFileError) {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(data, to: path)
        } catch let error as AtomicFileError {
            throw .unwritable(path: path, reason: error.description)
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }
}
