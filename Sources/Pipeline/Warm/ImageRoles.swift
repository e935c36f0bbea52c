/// Where the app shows an image, so which sizes it is cached at: the list's cell (`--size`), the detail's carousel
/// (`--detail-size`), or both (a cover photo that opens its product's carousel).
struct ImageRoles: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    static let thumbnail = ImageRoles(rawValue: 1)
    static let carousel = ImageRoles(rawValue: 2)
}
