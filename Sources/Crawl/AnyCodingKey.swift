/// A coding key made from any string, so one decoder can try several
/// spellings of a field (`totalCount` / `total_count`).
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension KeyedDecodingContainer where Key == AnyCodingKey {
    /// The first of `names` present with a usable value, accepting numbers
    /// written as strings and the reverse; nil when none is.
    func lenientInt(_ names: String...) -> Int? {
        for name in names {
            let key = AnyCodingKey(name)
            if let value = try? decodeIfPresent(Int.self, forKey: key) { return value }
            if let value = try? decodeIfPresent(Double.self, forKey: key), value == value.rounded(),
               let exact = Int(exactly: value) { return exact }
            if let text = try? decodeIfPresent(String.self, forKey: key),
               let value = Int(text.trimmingCharacters(in: .whitespaces)) { return value }
        }
        return nil
    }

    func lenientDouble(_ names: String...) -> Double? {
        for name in names {
            let key = AnyCodingKey(name)
            if let value = try? decodeIfPresent(Double.self, forKey: key) { return value }
            if let text = try? decodeIfPresent(String.self, forKey: key),
               let value = Double(text.trimmingCharacters(in: .whitespaces)) { return value }
        }
        return nil
    }

    func lenientString(_ names: String...) -> String? {
        for name in names {
            let key = AnyCodingKey(name)
            if let value = try? decodeIfPresent(String.self, forKey: key) { return value }
            if let value = try? decodeIfPresent(Int.self, forKey: key) { return String(value) }
        }
        return nil
    }

    func lenientBool(_ names: String...) -> Bool? {
        for name in names {
            let key = AnyCodingKey(name)
            if let value = try? decodeIfPresent(Bool.self, forKey: key) { return value }
            if let value = try? decodeIfPresent(Int.self, forKey: key) { return value != 0 }
            if let text = try? decodeIfPresent(String.self, forKey: key) {
                switch text.lowercased() {
                case "true": return true
                case "false": return false
                default: continue
                }
            }
        }
        return nil
    }
}
