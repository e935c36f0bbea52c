import Foundation

/// What this machine offers, read in one place.
public enum Machine {
    /// The cores this process may run on: the default number of decoders, measuring processes and workers.
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}

extension JSONEncoder {
    /// The encoder of every JSON file a person may read (summaries, baselines, check results, `--json` output):
    /// indented, keys sorted, slashes left as they are.
    public static func readable() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
