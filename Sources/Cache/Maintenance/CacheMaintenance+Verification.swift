import Foundation
import GRDB
import WarmSupport

extension CacheMaintenance {
    /// Reads and hashes every file once (one in memory at a time): the one place that checks the files against the
    /// validators their rows recorded. Run it while no store is in flight, or in-flight temp files are listed too.
    public func verify(validator: ImageValidator) throws(CacheError) -> VerificationReport {
        let rows = try cache.read { db in
            try ManifestRow.filter(ManifestRow.Columns.path != nil)
                .order(ManifestRow.Columns.url, ManifestRow.Columns.variant).fetchAll(db)
        }
        var problems: [VerificationReport.Problem] = []
        var namedPaths = Set<String>()
        for row in rows {
            guard let path = row.path else { continue }
            namedPaths.insert(path)
            // Such a row is skipped where the cache is read (lookups, the origin, the export): here it is named.
            let unknown: VerificationReport.Issue? = CacheVariant(name: row.variant) == nil ? .unknownVariant : nil
            if let issue = unknown ?? issue(with: row, at: path, validator: validator) {
                problems.append(VerificationReport.Problem(
                    url: row.url, variant: row.variant, path: layout.absolutePath(relative: path), issue: issue))
            }
        }
        let orphans = try files.allFilePaths().filter { !namedPaths.contains($0) }.map(layout.absolutePath(relative:))
        let temporary = try files.temporaryFileNames().map { layout.tempDirectory + "/" + $0 }
        return VerificationReport(checkedCount: rows.count, problems: problems,
                                  orphanFiles: orphans, temporaryFiles: temporary)
    }

    private func issue(with row: ManifestRow, at path: String, validator: ImageValidator) -> VerificationReport.Issue? {
        guard let info = files.status(relativePath: path) else { return .missing }
        guard info.isRegularFile else { return .notARegularFile }
        let expectedBytes = row.outputBytes ?? 0
        guard info.byteCount == expectedBytes else {
            return .sizeMismatch(expectedBytes: expectedBytes, actualBytes: info.byteCount)
        }
        let bytes: [UInt8]
        do {
            bytes = try files.readFile(relativePath: path).bytes
        } catch {
            return .unreadable(reason: error.description)
        }
        if let recorded = row.sha256 {
            let digest = bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
            guard digest == recorded else { return .digestMismatch(expectedSHA256: recorded, actualSHA256: digest) }
        }
        let actual: ImageDimensions
        do {
            actual = try validator(Data(bytes))
        } catch {
            return .undecodable(reason: "\(error)")
        }
        let expected = ImageDimensions(width: row.outputWidth ?? 0, height: row.outputHeight ?? 0)
        return actual == expected ? nil : .dimensionMismatch(expected: expected, actual: actual)
    }
}

public typealias ImageDimensions = PixelSize

/// Decodes a cached file completely; the decoder lives in another module, so the caller supplies it.
public typealias ImageValidator = @Sendable (Data) throws -> ImageDimensions

/// What `CacheMaintenance.verify` found; the caller, not the cache, decides what is fatal.
public struct VerificationReport: Sendable, Hashable {
    public enum Issue: Sendable, Hashable, CustomStringConvertible {
        case missing
        /// A link, directory or device where a regular file belongs.
        case notARegularFile
        case sizeMismatch(expectedBytes: Int, actualBytes: Int)
        case unreadable(reason: String)
        case undecodable(reason: String)
        case dimensionMismatch(expected: ImageDimensions, actual: ImageDimensions)
        /// The bytes changed behind the manifest: the origin's ETag and the app manifest's no longer describe them.
        case digestMismatch(expectedSHA256: String, actualSHA256: String)
        /// A variant name this version never writes (a newer warm's format, or an edited manifest): not served.
        case unknownVariant

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
            case .digestMismatch(let expected, let actual):
                return "the file's SHA-256 is \(actual), but the manifest recorded \(expected) when it was stored"
            case .unknownVariant:
                let names = OutputFormat.allCases.map(\.fileExtension).joined(separator: ", ")
                return "the variant is not a positive size and one of \(names), so the row is neither served nor exported"
            }
        }
    }

    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var url: String
        public var variant: String
        var path: String
        var issue: Issue
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
