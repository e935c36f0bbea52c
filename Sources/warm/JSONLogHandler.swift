import Foundation
import Logging

/// One JSON object a line on standard error, for log pipelines (Loki, Elasticsearch, Cloud Logging):
/// `timestamp` (RFC 3339, UTC, milliseconds), `level`, `label` (the logger's), `source` (the module that logged),
/// `message` and `metadata` (always an object). Hand-written because swift-log ships only the text handler;
/// one `write` a line, so lines from several threads never interleave.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        Console.error(Self.line(level: event.level, label: label, source: event.source, message: "\(event.message)",
                                metadata: merged, at: Date()))
    }

    /// The JSON text of one event (keys sorted, so lines diff well).
    static func line(level: Logger.Level, label: String, source: String, message: String, metadata: Logger.Metadata,
                     at date: Date) -> String {
        let object: [String: Any] = [
            "timestamp": date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            "level": level.rawValue, "label": label, "source": source, "message": message,
            "metadata": metadata.mapValues(Self.json),
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return #"{"level":"error","message":"a log event could not be written as JSON"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .dictionary(let dictionary): dictionary.mapValues(json)
        case .array(let array): array.map(json)
        }
    }
}
