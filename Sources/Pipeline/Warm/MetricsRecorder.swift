import Downsample
import Foundation
import WarmMetrics

/// The measure stage plugged into a run (`--compare`): measures the selected
/// images with all three strategies, one at a time while every other decode
/// in the process waits (`MeasurementGate`), and appends one JSON Lines record
/// per image; `finish()` writes the CSV beside it. Memory: one image's three
/// decodes at a time, plus, at `finish()`, the records read back for the CSV.
struct MetricsRecorder: Sendable {
    let path: String
    private let writer: JSONLinesWriter
    private let measurer: StrategyMeasurer
    /// `I/N` of a sharded run, written into every record.
    private let shard: String?

    /// Measures at the smallest requested size.
    init(path: String, configuration: WarmConfiguration) throws(MetricsFileError) {
        StrategyMeasurer.prepareProcess()
        self.path = path
        shard = configuration.shard?.description
        writer = try JSONLinesWriter(path: path)
        measurer = StrategyMeasurer(configuration: .init(
            target: DecodeTarget(longestSide: configuration.sizes.first ?? 300), limits: configuration.limits,
            isolation: configuration.measurementIsolation))
    }

    /// Measures one image and appends its record (failures are records too).
    func measure(_ data: Data, productId: Int?, url: String) async throws(MetricsFileError) {
        var record = await measurer.measure(data: data, productId: productId, url: url)
        record.shard = shard
        try await writer.append(record)
    }

    /// Closes the JSON Lines file and writes `<name>.csv` beside it.
    func finish() async throws(MetricsFileError) {
        try await writer.close()
        let records = try JSONLinesReader.read(path: path)
        try CSVWriter.write(records, to: URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("csv").path)
    }
}
