import Foundation

/// A plain list of image URLs (`--urls FILE`), one a line, each optionally followed by whitespace and a product id:
///
///     # comments and blank lines are ignored; CRLF is accepted
///     https://cdn.shop.test/a.jpg 1042
///     https://cdn.shop.test/b.jpg 1042
///     https://cdn.shop.test/c.jpg
///
/// Policy, from issue 47 ("a source that cannot be read whole is exit 6"; "a clear error naming the page or line"):
/// a line that is not an absolute http(s) URL, or that has more than two fields, is a counted `ListingProblem`
/// naming its line, and the rest of the list is still used: one typo should not cost a night's warming. The caller
/// prunes nothing after a list with problems (the typo may be an image still listed), as after a failed page of the
/// API. A file that is not a URL list at all (NUL bytes, not UTF-8) or is over a limit fails whole
/// (`URLListError`): it is more likely the wrong file than a list with a typo.
///
/// A URL named again is kept again only for a product id not yet named with it (the run warms the URL once and
/// records every product naming it); any other repeat is counted in `duplicates` (URLs compared as written; the
/// cache canonicalises later). Cost: the list is parsed from memory, about twice its size while parsing, and the result
/// holds one `ListedImage` (about 200 bytes) per URL.
public struct URLList: Sendable, Hashable {
    /// Limits that refuse a file which is not a URL list before it costs much memory.
    public struct Limits: Sendable, Hashable {
        /// Distinct URLs.
        var maxEntries: Int
        /// Without its line ending.
        var maxLineBytes: Int
        /// The whole file; a reader should stop reading at `maxBytes + 1`.
        var maxBytes: Int

        public init(maxEntries: Int = 1_000_000, maxLineBytes: Int = 8 * 1024, maxBytes: Int = 256 * 1024 * 1024) {
            self.maxEntries = maxEntries
            self.maxLineBytes = maxLineBytes
            self.maxBytes = maxBytes
        }
    }

    /// The file's name in messages ("urls.txt", "standard input").
    public var name: String
    /// In the list's order: each URL once, plus its later lines that name another product.
    public var images: [ListedImage] = []
    /// Lines naming a URL an earlier line named.
    var duplicates = 0
    var problems = ListingProblems()
    /// Every line, blank and comment lines included.
    var lines = 0

    init(name: String) {
        self.name = name
    }

    /// Parses a whole list held in memory.
    static func parse(_ data: Data, name: String, limits: Limits = Limits()) throws(URLListError) -> URLList {
        guard data.count <= limits.maxBytes else { throw .tooLarge(list: name, limitBytes: limits.maxBytes) }
        var list = URLList(name: name)
        var seen: [String: Set<String>] = [:]
        var positions: [String: Int] = [:]
        let bytes = [UInt8](data)
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0 // a UTF-8 byte order mark
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            list.lines += 1
            var line = bytes[start..<end]
            if line.last == 0x0D { line = line.dropLast() }
            try list.read(line, number: list.lines, limits: limits, seen: &seen, positions: &positions)
            start = end + 1
        }
        return list
    }

    /// `seen`: each URL named so far, with the product ids named with it.
    private mutating func read(_ bytes: ArraySlice<UInt8>, number: Int, limits: Limits, seen: inout [String: Set<String>],
                               positions: inout [String: Int]) throws(URLListError) {
        guard bytes.count <= limits.maxLineBytes else {
            throw .lineTooLong(list: name, line: number, limitBytes: limits.maxLineBytes)
        }
        guard !bytes.contains(0) else { throw .nulByte(list: name, line: number) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(list: name, line: number) }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return }
        let place = "\(name) line \(number)"
        let fields = trimmed.split(whereSeparator: \.isWhitespace)
        guard fields.count <= 2 else { return problems.append(ListingProblem(place: place, text: trimmed, reason: .extraFields)) }
        guard let url = URL(listedHTTP: fields[0]) else {
            return problems.append(ListingProblem(place: place, text: trimmed, reason: .notHTTPURL))
        }
        let productID = fields.count == 2 ? String(fields[1]) : nil
        if let ids = seen[url.absoluteString] {
            guard let productID, !ids.contains(productID) else { return duplicates += 1 }
            seen[url.absoluteString, default: []].insert(productID)
        } else {
            guard seen.count < limits.maxEntries else { throw .tooManyEntries(list: name, line: number, limit: limits.maxEntries) }
            seen[url.absoluteString] = productID.map { [$0] } ?? []
        }
        let position = productID.map { id in
            defer { positions[id, default: 0] += 1 }
            return positions[id, default: 0]
        }
        images.append(ListedImage(url: url, productID: productID, position: position, source: place))
    }
}
