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

extension KeyedDecodingContainer where Key == AnyCodingKey {
    /// The first of `names` with a usable value, numbers written as strings and the reverse accepted.
    func lenient<T: Decodable & LosslessStringConvertible>(_ names: [String]) -> T? {
        for key in names.map(AnyCodingKey.init) {
            let text = try? decodeIfPresent(String.self, forKey: key)
            let number = try? decodeIfPresent(Double.self, forKey: key)
            let value = (try? decodeIfPresent(T.self, forKey: key))
                ?? text.flatMap { T($0.trimmingCharacters(in: .whitespaces)) }
                ?? number.flatMap { Int(exactly: $0) }.flatMap { T(String($0)) }
            if let value { return value }
        }
        return nil
    }
}
