import Foundation

/// A coding key from any string, so one decoder can try several spellings (`totalCount` / `total_count`).
public struct AnyCodingKey: CodingKey, Hashable {
    public var stringValue: String
    public var intValue: Int?

    public init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    public init?(stringValue: String) { self.init(stringValue) }

    public init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Each reads the first of `names` with a usable value, numbers written as strings and the reverse accepted.
extension KeyedDecodingContainer where Key == AnyCodingKey {
    func lenientInt(_ names: [String]) -> Int? {
        first(names) { key in
            (try? decodeIfPresent(Int.self, forKey: key))
                ?? (try? decodeIfPresent(Double.self, forKey: key)).flatMap { Int(exactly: $0) }
                ?? text(key).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    func lenientDouble(_ names: [String]) -> Double? {
        first(names) { key in
            (try? decodeIfPresent(Double.self, forKey: key)) ?? text(key).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    func lenientString(_ names: [String]) -> String? {
        first(names) { key in text(key) ?? (try? decodeIfPresent(Int.self, forKey: key)).map(String.init) }
    }

    private func first<T>(_ names: [String], _ read: (AnyCodingKey) -> T?) -> T? {
        for name in names {
            if let value = read(AnyCodingKey(name)) { return value }
        }
        return nil
    }

    private func text(_ key: AnyCodingKey) -> String? {
        try? decodeIfPresent(String.self, forKey: key)
    }
}
