/// The two spellings of the list page's own fields: the current camelCase
/// (`pageNo`, `totalCount`...) and the older snake_case (`page_no`,
/// `total_count`...). The product list key is `pages` in both.
public enum PageShape: String, Sendable, Hashable, Codable, CaseIterable {
    case camelCase
    case snakeCase

    /// The key of a page field in this shape, from its camelCase name.
    public func key(_ camelCaseName: String) -> String {
        switch self {
        case .camelCase:
            return camelCaseName
        case .snakeCase:
            var result = ""
            for character in camelCaseName {
                if character.isUppercase {
                    result += "_" + character.lowercased()
                } else {
                    result.append(character)
                }
            }
            return result
        }
    }
}
