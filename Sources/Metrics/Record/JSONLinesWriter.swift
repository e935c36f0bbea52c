import WarmSupport
import Foundation
import Synchronization

/// Appends records, written one by one (a crashed run keeps every finished row). The writes run on NIO's thread pool
/// (`BlockingWork`), never on the cooperative pool; one lock keeps the pipeline's tasks to one write at a time.
public final class JSONLinesWriter: Sendable {
    let path: String
    /// nil once closed.
    private let handle: Mutex<FileHandle?>

    /// Creates (or empties) the file and its directory: one `open`, made before the run's tasks start.
    public init(path: String) throws(MetricsFileError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
            handle = Mutex(try FileHandle(forWritingTo: url))
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }

    public func append(_ record: ImageMetricsRecord) async throws(MetricsFileError) {
        let line: Data
        do {
            line = try JSONLines.line(record)
        } catch {
            throw .unwritable(path: path, reason: "a record cannot be encoded: \(error)")
        }
        let failure = await BlockingWork.run { [self] in
            handle.withLock { handle -> String? in
                guard let handle else { return "the file is already closed" }
                do { try handle.write(contentsOf: line) } catch { return error.localizedDescription }
                return nil
            }
        }
        if let failure { throw .unwritable(path: path, reason: failure) }
    }

    /// Closes the file; call once when the run ends.
    public func close() async throws(MetricsFileError) {
        let failure = await BlockingWork.run { [self] in
            handle.withLock { handle -> String? in
                defer { handle = nil }
                do { try handle?.close() } catch { return error.localizedDescription }
                return nil
            }
        }
        if let failure { throw .unwritable(path: path, reason: failure) }
    }
}
