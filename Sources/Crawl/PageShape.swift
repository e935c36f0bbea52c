/// The two spellings of the list page's own fields (`pageNo`, older `page_no`); the list is `pages` in both.
public enum PageShape: String, Sendable, Hashable, Codable, CaseIterable {
    case camelCase
    case snakeCase

    public func key(_ camelCaseName: String) -> String {
        guard self == .snakeCase else { return camelCaseName }
        return camelCaseName.map { $0.isUppercase ? "_" + $0.lowercased() : String($0) }.joined()
    }
}
