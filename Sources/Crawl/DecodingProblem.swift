/// A `DecodingError` as a phrase a person can act on ("the key \"total_count\" is missing at the top level").
enum DecodingProblem {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .keyNotFound(let key, let context):
            return "the key \"\(key.stringValue)\" is missing \(location(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "\(location(context.codingPath, capitalised: true)) is not \(article(type)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(location(context.codingPath, capitalised: true)) is null where \(article(type)) is needed"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0))" } ?? ""
            let place = context.codingPath.isEmpty ? "" : " \(location(context.codingPath))"
            return "the body is not valid JSON\(place): \(context.debugDescription)\(underlying)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func location(_ path: [any CodingKey], capitalised: Bool = false) -> String {
        guard !path.isEmpty else { return capitalised ? "The top level" : "at the top level" }
        let text = path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        return capitalised ? "The value at \(text)" : "at \(text)"
    }

    private static func article(_ type: Any.Type) -> String {
        switch String(describing: type) {
        case "Int", "Double": return "a number"
        case "String": return "a string"
        case "Bool": return "a boolean"
        case let name where name.hasPrefix("Array"): return "a list"
        default: return "an object"
        }
    }
}
