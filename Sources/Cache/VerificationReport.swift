import Foundation
import WarmSupport

public typealias ImageDimensions = PixelSize

/// Decodes a cached file completely; the decoder lives in another module, so the caller supplies it.
public typealias ImageValidator = @Sendable (Data) throws -> ImageDimensions

/// What `DiskCache.verify` found; the caller, not the cache, decides what is fatal.
public struct VerificationReport: Sendable, Hashable {
    public enum Issue: Sendable, Hashable, CustomStringConvertible {
        case missing
        /// A link, directory or device where a regular file belongs.
        case notARegularFile
        case sizeMismatch(expectedBytes: Int, actualBytes: Int)
        case unreadable(reason: String)
        case undecodable(reason: String)
        case dimensionMismatch(expected: ImageDimensions, actual: ImageDimensions)

        public var description: String {
            switch self {
            case .missing: return "the file is missing"
            case .notARegularFile: return "the path is not a regular file"
            case .sizeMismatch(let expected, let actual):
                return "the file is \(actual) bytes, but the manifest says \(expected)"
            case .unreadable(let reason): return "the file cannot be read: \(reason)"
            case .undecodable(let reason): return "the file does not decode: \(reason)"
            case .dimensionMismatch(let expected, let actual):
                return "the image is \(actual), but the manifest says \(expected)"
            }
        }
    }

    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var url: String
        public var variant: String
        public var path: String
        public var issue: Issue
        public var description: String { "\(url) [\(variant)] \(path): \(issue)" }
    }

    public var checkedCount: Int
    public var problems: [Problem]
    /// Harmless: left by a crash between rename and row update, or by an interrupted eviction.
    public var orphanFiles: [String]
    /// Crash leftovers, or writes in flight.
    public var temporaryFiles: [String]

    public var isClean: Bool { problems.isEmpty && orphanFiles.isEmpty && temporaryFiles.isEmpty }
}
