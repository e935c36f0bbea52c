import Downsample
import Foundation

/// Measures local image files one by one and writes their records as JSON Lines as it goes: the offline way
/// to get metrics without crawling (`warm report --measure`). The file path
/// stands in for the URL.
public enum FileMeasurement {
    /// - Parameters:
    ///   - files: image files, in the order the report treats as catalog order.
    ///   - output: JSON Lines file to write (replaced).
    ///   - progress: called after each image.
    /// - Returns: the records, in `files` order.
    public static func measure(files: [String], configuration: StrategyMeasurer.Configuration, writingTo output: String,
                               progress: @Sendable (ImageMetricsRecord) -> Void = { _ in }) async throws(MetricsFileError) -> [ImageMetricsRecord] {
        let writer = try JSONLinesWriter(path: output)
        let measurer = StrategyMeasurer(configuration: configuration)
        var records: [ImageMetricsRecord] = []
        for file in files {
            let record: ImageMetricsRecord
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                record = await measurer.measure(data: data, productId: nil, url: file)
            } catch {
                record = ImageMetricsRecord(productId: nil, url: file, format: nil, sourceBytes: 0, width: nil, height: nil,
                                            orientation: nil, targetLongestSide: configuration.target.longestSide,
                                            peakMethod: .forkedProcess,
                                            error: "the file cannot be read: \(error.localizedDescription)", errorReason: "unreadable-file")
            }
            try await writer.append(record)
            records.append(record)
            progress(record)
        }
        try await writer.close()
        return records
    }
}
