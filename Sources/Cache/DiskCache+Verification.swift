import Foundation
import GRDB

extension DiskCache {
    /// Reads every file once (one in memory at a time); run it while no store is in flight, or in-flight temp files
    /// are listed too.
    public func verify(validator: ImageValidator) throws(CacheError) -> VerificationReport {
        let rows = try read { db in
            try ManifestRow.filter(ManifestRow.Columns.path != nil)
                .order(ManifestRow.Columns.url, ManifestRow.Columns.variant).fetchAll(db)
        }
        var problems: [VerificationReport.Problem] = []
        var namedPaths = Set<String>()
        for row in rows {
            guard let path = row.path else { continue }
            namedPaths.insert(path)
            if let issue = issue(with: row, at: path, validator: validator) {
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
