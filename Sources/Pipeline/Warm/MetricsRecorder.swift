import ChildProcesses
import Downsample
import Foundation
import WarmMetrics

/// The measure stage plugged into a run (`--compare`): measures the selected
/// images with all three strategies and appends one JSON Lines record per
/// image, and appends an unmeasured record (retained bytes computed, no
/// peaks) for each other image the run warmed (`record(unmeasured:)`), so
/// the file covers the whole catalog; `finish()` waits for the last
/// measurement and writes the CSV beside the records.
///
/// Images wait in a queue of downloaded bytes, so that warming goes on while
/// measuring lags behind: `submit` returns at once unless `queueLimitBytes`
/// are already waiting (then it waits for room: back-pressure on the fetch
/// workers). `measurers` tasks take images from the queue, one per measuring
/// process (each measurement's runs are forked children). Memory: the queue's bytes.
final class MetricsRecorder: Sendable {
    let path: String
    private let writer: JSONLinesWriter
    private let measurer: StrategyMeasurer
    /// `I/N` of a sharded run, written into every record.
    private let shard: String?
    private let queue: MeasuringQueue
    private let measurers: Task<Void, Never>

    /// Measures at the smallest requested size; `onMeasured` is called after each record is written.
    init(path: String, configuration: WarmConfiguration, queueLimitBytes: Int = 256 << 20,
         onMeasured: @escaping @Sendable () async -> Void = {}) throws(MetricsFileError) {
        self.path = path
        let shard = configuration.shard?.description
        self.shard = shard
        let writer = try JSONLinesWriter(path: path)
        self.writer = writer
        let pool = configuration.measuringPool ?? MeasuringPool(executablePath: ChildProcess.currentExecutablePath(), processes: 1)
        let measurer = StrategyMeasurer(configuration: .init(
            target: DecodeTarget(longestSide: Self.targetLongestSide(configuration)), limits: configuration.limits,
            // The app's decode of one thumbnail: the engine in the run's first format.
            encoder: ThumbnailEncoder(format: configuration.formats[0], quality: configuration.quality),
            repeats: configuration.measureRepeats, pool: pool))
        self.measurer = measurer
        let queue = MeasuringQueue(limitBytes: queueLimitBytes)
        self.queue = queue
        let width = pool.processes
        measurers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        while let item = await queue.take() {
                            var record = await measurer.measure(data: item.data, productId: item.productId, url: item.url)
                            record.shard = shard
                            record.variants = item.variants
                            do {
                                try await writer.append(record)
                            } catch {
                                await queue.fail("\(error)")
                            }
                            await queue.finished(item)
                            await onMeasured()
                        }
                    }
                }
            }
        }
    }

    /// Queues one image for measuring, with the variants the run wrote of it;
    /// throws when the metrics file can no longer be written.
    func submit(_ data: Data, productId: Int?, url: String, variants: [VariantMetrics]?) async throws(MetricsFileError) {
        if let failure = await queue.put(MeasuringQueue.Item(data: data, productId: productId, url: url, variants: variants)) {
            throw .unwritable(path: path, reason: failure)
        }
    }

    /// Appends the record of an image warmed but not measured
    /// (`ImageMetricsRecord.unmeasured`); throws when the metrics file can no longer be written.
    func record(unmeasured: ImageMetricsRecord) async throws(MetricsFileError) {
        if let failure = await queue.failure { throw .unwritable(path: path, reason: failure) }
        var record = unmeasured
        record.shard = shard
        do throws(MetricsFileError) {
            try await writer.append(record)
        } catch {
            await queue.fail("\(error)")
            throw error
        }
    }

    /// The longest side the measured images are decoded for (the run's smallest size).
    static func targetLongestSide(_ configuration: WarmConfiguration) -> Int {
        configuration.sizes.first ?? 300
    }

    /// Waits for every queued image to be measured, closes the JSON Lines file and writes `<name>.csv` beside it.
    func finish() async throws(MetricsFileError) {
        await queue.close()
        await measurers.value
        try await writer.close()
        if let failure = await queue.failure { throw .unwritable(path: path, reason: failure) }
        let records = try JSONLinesReader.read(path: path)
        try CSVWriter.write(records, to: URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("csv").path)
    }
}

/// Images waiting to be measured, bounded by their bytes.
actor MeasuringQueue {
    struct Item: Sendable {
        var data: Data
        var productId: Int?
        var url: String
        var variants: [VariantMetrics]?
    }

    private let limitBytes: Int
    private var items: [Item] = []  // a few thousand at most: removeFirst's copying does not matter
    private var queuedBytes = 0
    private var closed = false
    private(set) var failure: String?
    private var producers: [CheckedContinuation<Void, Never>] = []
    private var consumers: [CheckedContinuation<Item?, Never>] = []

    init(limitBytes: Int) { self.limitBytes = max(1, limitBytes) }

    /// Adds `item`, waiting while the queue is over its limit (an item larger
    /// than the limit goes in once the queue is empty). Returns the failure
    /// that stopped measuring, if any.
    func put(_ item: Item) async -> String? {
        while failure == nil, !items.isEmpty, queuedBytes + item.data.count > limitBytes {
            await withCheckedContinuation { producers.append($0) }
        }
        if let failure { return failure }
        if !consumers.isEmpty {
            queuedBytes += item.data.count
            consumers.removeFirst().resume(returning: item)
        } else {
            items.append(item)
            queuedBytes += item.data.count
        }
        return nil
    }

    /// The next item; nil once the queue is closed and empty.
    func take() async -> Item? {
        if !items.isEmpty { return items.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { consumers.append($0) }
    }

    /// An item taken has been measured: its bytes leave the budget.
    func finished(_ item: Item) {
        queuedBytes -= item.data.count
        let waiting = producers
        producers.removeAll()
        waiting.forEach { $0.resume() }
    }

    func fail(_ reason: String) {
        if failure == nil { failure = reason }
        let waiting = producers
        producers.removeAll()
        waiting.forEach { $0.resume() }
    }

    func close() {
        closed = true
        let waiting = consumers
        consumers.removeAll()
        waiting.forEach { $0.resume(returning: nil) }
    }
}
