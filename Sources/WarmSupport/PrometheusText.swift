/// Prometheus text exposition (format 0.0.4), the one writer of it: the run's textfile and the figures on
/// `warm cache serve`'s /metrics (`PrometheusTextfile`) and the origin's counters (`OriginMetrics`). By hand, not
/// swift-prometheus: the run's file is written once from a JSON summary, several summaries interleaved per family and
/// told apart by a label, which is rendering, not a metrics registry; and the origin's few counters already live under
/// one lock. Values come as text, so each caller keeps its exact number format.
public struct PrometheusText: Sendable {
    private var lines: [String] = []

    public init() {}

    /// `# HELP` and `# TYPE` of a family; its samples follow.
    public mutating func family(_ name: String, type: String, help: String) {
        lines.append("# HELP \(name) \(help)")
        lines.append("# TYPE \(name) \(type)")
    }

    /// `name value`.
    public mutating func sample(_ name: String, _ value: String) {
        sample(name, [], value)
    }

    /// `name{label="value",...} value`, labels in the order given, their values escaped.
    public mutating func sample(_ name: String, _ labels: [(name: String, value: String)], _ value: String) {
        let labelText = labels.isEmpty ? "" : "{" + labels.map { "\($0.name)=\"\(Self.escape($0.value))\"" }
            .joined(separator: ",") + "}"
        lines.append(name + labelText + " " + value)
    }

    /// The exposition, a newline after every line.
    public var text: String { lines.joined(separator: "\n") + "\n" }

    /// A label value as the format wants it: backslash, double quote and newline escaped.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
