import Foundation

/// The one JSON Lines encoding (`metrics.jsonl`, the app manifest): keys sorted, slashes unescaped, a newline after
/// each value, so files diff line by line and read the same on every machine.
public enum JSONLines {
    /// `value` as one line, newline included. Throws only what `value`'s `encode(to:)` throws (a non-finite double).
    public static func line(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
