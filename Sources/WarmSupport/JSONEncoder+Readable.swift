import Foundation

extension JSONEncoder {
    /// The encoder of every JSON file a person may read (summaries, baselines, check results, `--json` output):
    /// indented, keys sorted, slashes left as they are.
    public static func readable() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
