import ArgumentParser

/// A byte count given as `500000000`, `500MB`, `1.5GiB`, `64k`...
struct ByteCount: ExpressibleByArgument, Sendable {
    var bytes: Int

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("gib", 1_073_741_824), ("mib", 1_048_576), ("kib", 1024),
                                         ("gb", 1e9), ("mb", 1e6), ("kb", 1e3), ("g", 1e9), ("m", 1e6), ("k", 1e3), ("b", 1)]
        var multiplier = 1.0, number = Substring(text)
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            multiplier = factor
            number = text.dropLast(suffix.count)
            break
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
        bytes = Int(value * multiplier)
    }
}

/// A duration given as seconds (`3600`) or with a unit: `90s`, `30m`, `12h`, `7d`.
struct DurationArgument: ExpressibleByArgument, Sendable {
    var seconds: Double

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let last = text.last, let factor = units[last], let value = Double(text.dropLast()), value >= 0 {
            seconds = value * factor
        } else if let value = Double(text), value >= 0 {
            seconds = value
        } else {
            return nil
        }
    }
}
