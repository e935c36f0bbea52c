import Foundation

/// Reads records in file then line order; a line that is not a record (blank lines aside) is an
/// error naming the file and line.
public enum JSONLinesReader {
    public static func read(paths: [String]) throws(MetricsFileError) -> [ImageMetricsRecord] {
        var records: [ImageMetricsRecord] = []
        for path in paths { records += try read(path: path) }
        return records
    }

    public static func read(path: String) throws(MetricsFileError) -> [ImageMetricsRecord] {
        let data = try MetricsFileError.read(path)
        let decoder = JSONDecoder()
        var records: [ImageMetricsRecord] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { continue }
            do {
                records.append(try decoder.decode(ImageMetricsRecord.self, from: Data(line)))
            } catch {
                throw .badLine(path: path, line: lineNumber, reason: Self.reason(error))
            }
        }
        return records
    }

    /// DecodingError's description is a debug dump; say which key was wrong.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _):
            return "the key \"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "the value at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case DecodingError.dataCorrupted(let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return at.isEmpty ? "it is not valid JSON" : "the value at \"\(at)\" is invalid: \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
