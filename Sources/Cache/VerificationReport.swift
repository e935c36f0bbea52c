import Foundation
import WarmSupport

/// Width and height of a decoded image, in pixels.
public typealias ImageDimensions = PixelSize

/// Decodes a cached file completely and returns its size, or throws why it
/// does not decode. The decoder lives in another module, so the caller supplies it.
public typealias ImageValidator = @Sendable (Data) throws -> ImageDimensions

/// What `DiskCache.verify(validator:)` found. The cache does not decide what
/// is fatal: the caller maps this to an exit status.
public struct VerificationReport: Sendable, Hashable {
    /// What is wrong with one entry's file.
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

    /// One entry whose file is not what its row says.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var url: String
        public var variant: String
        /// Absolute path of the file.
        public var path: String
        public var issue: Issue
        public var description: String { "\(url) [\(variant)] \(path): \(issue)" }
    }

    /// Rows with a file that were checked.
    public var checkedCount: Int
    public var problems: [Problem]
    /// Absolute paths under `v1/` that no row names (harmless; left by a crash
    /// between rename and row update, or by an interrupted eviction).
    public var orphanFiles: [String]
    /// Absolute paths in `tmp/` (leftovers of a crash, or writes in flight).
    public var temporaryFiles: [String]

    /// True when every file matches its row and nothing stray was found.
    public var isClean: Bool { problems.isEmpty && orphanFiles.isEmpty && temporaryFiles.isEmpty }
}
