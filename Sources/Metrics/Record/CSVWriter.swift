import Downsample
import Foundation

/// `ImageMetricsRecord`s as CSV for spreadsheets, one row per image (RFC 4180
/// quoting): header fields, then `<strategy>_retainedBytes`, ...; nil is an empty cell.
public enum CSVWriter {
    static let strategyFields = ["retainedBytes", "peakBytes", "cpuSeconds", "wallSeconds",
                                 "outputWidth", "outputHeight", "ssim", "psnr"]

    static var header: [String] {
        ["productId", "url", "shard", "format", "sourceBytes", "width", "height", "orientation",
         "targetLongestSide", "role", "peakMethod", "measured", "error", "errorReason"]
            + StrategyKind.allCases.flatMap { kind in strategyFields.map { "\(kind.rawValue)_\($0)" } }
    }

    static func row(for r: ImageMetricsRecord) -> [String] {
        func text<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "" }
        var cells = [text(r.productId), r.url, text(r.shard), text(r.format?.rawValue), "\(r.sourceBytes)",
                     text(r.width), text(r.height), text(r.orientation), "\(r.targetLongestSide)",
                     text(r.role), text(r.peakMethod?.rawValue), "\(r.measured)", text(r.error), text(r.errorReason)]
        for kind in StrategyKind.allCases {
            let s = r.strategies[kind]
            cells += [text(s?.retainedBytes), text(s?.peakBytes), text(s?.cpuSeconds), text(s?.wallSeconds),
                      text(s?.outputWidth), text(s?.outputHeight), text(s?.ssim), text(s?.psnr)]
        }
        return cells
    }

    static func csv(_ records: [ImageMetricsRecord]) -> String {
        ([header] + records.map(row(for:))).map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    public static func write(_ records: [ImageMetricsRecord], to path: String) throws(MetricsFileError) {
        try MetricsFileError.write(Data(csv(records).utf8), to: path)
    }

    static func quoted(_ cell: String) -> String {
        guard cell.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
