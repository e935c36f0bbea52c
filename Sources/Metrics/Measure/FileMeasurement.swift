import WarmSupport
import Downsample
import Foundation

/// `warm report --measure`: local files one by one, the path standing in for the URL.
public enum FileMeasurement {
    public static func measure(files: [String], configuration: StrategyMeasurer.Configuration, writingTo output: String,
                               progress: @Sendable (ImageMetricsRecord) -> Void = { _ in }) async throws(MetricsFileError) -> [ImageMetricsRecord] {
        let writer = try JSONLinesWriter(path: output)
        let measurer = StrategyMeasurer(configuration: configuration)
        var records: [ImageMetricsRecord] = []
        for file in files {
            let record: ImageMetricsRecord
            let read = await BlockingWork.run { Result { try Data(contentsOf: URL(fileURLWithPath: file)) } }
            switch read {
            case .success(let data):
                record = await measurer.measure(data: data, productId: nil, url: file)
            case .failure(let error):
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
