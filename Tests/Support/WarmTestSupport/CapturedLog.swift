import Logging
import Synchronization

/// A logger whose messages (and their metadata) are kept for the test to read: what a run chose, counted instead of
/// timed (a retry's wait, a progress line).
public final class CapturedLog: Sendable {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])
    private let level: Logger.Level

    /// `level`: the lowest level kept.
    public init(level: Logger.Level = .info) {
        self.level = level
    }

    public var entries: [Entry] { storage.withLock { $0 } }
    public var lines: [String] { entries.map(\.message) }

    public var logger: Logger {
        Logger(label: "test") { [self] _ in Handler(log: self, logLevel: level) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level

        init(log: CapturedLog, logLevel: Logger.Level) {
            self.log = log
            self.logLevel = logLevel
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            log.storage.withLock { $0.append(Entry(level: event.level, message: event.message.description, metadata: fields)) }
        }
    }
}
