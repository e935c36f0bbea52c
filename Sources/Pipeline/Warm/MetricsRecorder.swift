import WarmSupport
import Downsample
import Foundation
import WarmMetrics

/// `--compare`: measures selected images, records the others unmeasured, so the file covers the catalog. A bounded
/// queue lets warming go on while measuring lags; full, `submit` waits (back-pressure on fetches). Memory: the queue.
final class MetricsRecorder: Sendable {
    let path: String
    private let writer: JSONLinesWriter
    private let shard: String?
    private let queue: MeasuringQueue
    private let measurers: Task<Void, Never>

    init(path: String, configuration: WarmConfiguration, pool: MeasuringPool?,
         onMeasured: @escaping @Sendable () async -> Void = {}) throws(MetricsFileError) {
        self.path = path
        let shard = configuration.shard?.description
        self.shard = shard
        let writer = try JSONLinesWriter(path: path)
        self.writer = writer
        let pool = pool ?? MeasuringPool(executablePath: ChildProcess.currentExecutablePath(), processes: 1)
        // The app's decode of one image as it shows it: the engine in the run's first format, at the smallest `--size`
        // for a list thumbnail, at `--detail-size` for a carousel image.
        let measurer = { (longestSide: Int) in
            StrategyMeasurer(configuration: .init(
                target: DecodeTarget(longestSide: longestSide), limits: configuration.limits,
                encoder: ThumbnailEncoder(format: configuration.thumbnails.formats[0], settings: configuration.thumbnails.encoder),
                repeats: configuration.measuring.repeats, pool: pool))
        }
        let measurers = [nil: measurer(configuration.measuredLongestSide),
                         ImageMetricsRecord.carouselRole: measurer(configuration.details.longestSide)]
        let queue = MeasuringQueue(limitBytes: 256 << 20)
        self.queue = queue
        let width = pool.processes
        self.measurers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        while let item = await queue.take() {
                            var record = await measurers[item.role]!.measure(data: item.data, productId: item.productId,
                                                                             url: item.url, variants: item.variants)
                            (record.shard, record.role) = (shard, item.role)
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

    /// What the warm did with one image: measured when `measure` (the image is in the sample and was downloaded),
    /// else recorded with the sizes the warm knows (none known: no record). Throws when the metrics file can no longer
    /// be written.
    func record(_ image: WarmedImage, measure: Bool) async throws(MetricsFileError) {
        if measure {
            guard let source = image.source else { return }
            try await submit(MeasuringQueue.Item(data: source, productId: image.productId, url: image.url, role: image.role,
                                                 variants: image.variantMetrics))
        } else if let unmeasured = image.unmeasuredRecord() {
            try await record(unmeasured: unmeasured)
        }
    }

    /// Throws when the metrics file can no longer be written.
    private func submit(_ item: MeasuringQueue.Item) async throws(MetricsFileError) {
        if let failure = await queue.put(item) {
            throw .unwritable(path: path, reason: failure)
        }
    }

    /// Throws when the metrics file can no longer be written.
    private func record(unmeasured: ImageMetricsRecord) async throws(MetricsFileError) {
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

    /// Waits for every queued measurement, then writes `<name>.csv` beside the records (read and written on NIO's
    /// thread pool).
    func finish() async throws(MetricsFileError) {
        await queue.close()
        await measurers.value
        try await writer.close()
        if let failure = await queue.failure { throw .unwritable(path: path, reason: failure) }
        let path = path, csv = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("csv").path
        try await BlockingWork.run {
            Result { () throws(MetricsFileError) in try CSVWriter.write(JSONLinesReader.read(path: path), to: csv) }
        }.get()
    }
}

/// Images waiting to be measured, bounded by their bytes.
actor MeasuringQueue {
    struct Item: Sendable {
        var data: Data
        var productId: Int?
        var url: String
        /// `ImageMetricsRecord.role`: which measurer takes it.
        var role: String?
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

    /// Waits while over the limit (an item larger than the limit goes in once the queue is empty). Returns the
    /// failure that stopped measuring, if any.
    func put(_ item: Item) async -> String? {
        while failure == nil, !items.isEmpty, queuedBytes + item.data.count > limitBytes {
            await withCheckedContinuation { producers.append($0) }
        }
        if let failure { return failure }
        queuedBytes += item.data.count
        if consumers.isEmpty {
            items.append(item)
        } else {
            consumers.removeFirst().resume(returning: item)
        }
        return nil
    }

    /// nil once the queue is closed and empty.
    func take() async -> Item? {
        if !items.isEmpty { return items.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { consumers.append($0) }
    }

    /// An item taken has been measured: its bytes leave the budget.
    func finished(_ item: Item) {
        queuedBytes -= item.data.count
        // A resumed task runs later, on this actor: no reentrancy while the list is emptied.
        producers.forEach { $0.resume() }
        producers.removeAll()
    }

    func fail(_ reason: String) {
        if failure == nil { failure = reason }
        producers.forEach { $0.resume() }
        producers.removeAll()
    }

    func close() {
        closed = true
        consumers.forEach { $0.resume(returning: nil) }
        consumers.removeAll()
    }
}
