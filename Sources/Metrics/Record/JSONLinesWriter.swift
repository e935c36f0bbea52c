import Foundation

/// Appends records, flushed one by one (a crashed run keeps every finished row); an actor because
/// the pipeline's tasks share one file.
public actor JSONLinesWriter {
    private let handle: FileHandle
    public nonisolated let path: String

    public init(path: String) throws(MetricsFileError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }

    public func append(_ record: ImageMetricsRecord) throws(MetricsFileError) {
        do {
            try handle.write(contentsOf: Self.line(for: record))
        } catch {
            throw .unwritable(path: path, reason: error.localizedDescription)
        }
    }

    /// Closes the file; call once when the run ends.
    public func close() throws(MetricsFileError) {
        do { try handle.close() } catch { throw .unwritable(path: path, reason: error.localizedDescription) }
    }

    public static func line(for record: ImageMetricsRecord) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A record holds only strings, integers and finite doubles: encoding cannot fail.
        var data = (try? encoder.encode(record)) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
