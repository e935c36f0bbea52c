import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads one sitemap document with Foundation's `XMLParser` (libxml2 on Linux, SAX: one pass, no tree in memory):
/// elements are matched by namespace URI and local name, so any prefix works (`image:`, `img:`, a default
/// namespace). The sitemaps.org namespace, Google's two older ones and no namespace are accepted for the sitemap's
/// own elements, because generators write all four; images need Google's image namespace. Used once, by
/// `SitemapDocument.parse`, after `SitemapBody` has refused any DTD.
final class SitemapXMLReader: NSObject, XMLParserDelegate {
    static let sitemapNamespaces: Set<String> = [
        "http://www.sitemaps.org/schemas/sitemap/0.9", "http://www.google.com/schemas/sitemap/0.9",
        "http://www.google.com/schemas/sitemap/0.84", "",
    ]
    static let imageNamespace = "http://www.google.com/schemas/sitemap-image/1.1"

    private enum Element { case urlset, index, url, sitemap, loc, image, imageLoc, other }

    /// A `<loc>`'s text and the line of its start tag.
    private struct Loc {
        var text = ""
        var line: Int
        var tooLong = false
    }

    private let url: URL
    private let limits: SitemapLimits
    private var stack: [Element] = []
    private var rootName: String?
    private var rootElement: Element?
    private var rootClosed = false
    private var pages: [SitemapPage] = []
    private var sitemaps: [URL] = []
    private var problems = ListingProblems()
    private var entries = 0
    /// The `<loc>` being read, then the entry's.
    private var reading: Loc?
    private var entryLoc: Loc?
    private var imageLoc: Loc?
    /// The entry's usable images and the lines of their `<image:loc>`s.
    private var entryImages: [(url: URL, line: Int)] = []
    private var failure: SitemapError?
    private var firstError: (line: Int, reason: String)?

    init(url: URL, limits: SitemapLimits) {
        self.url = url
        self.limits = limits
    }

    func read(_ document: Data) throws(SitemapError) -> SitemapDocument {
        let parser = XMLParser(data: document)
        parser.delegate = self
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if let failure { throw failure }
        if !parsed || firstError != nil {
            let error = firstError ?? (parser.lineNumber, "the parser stopped (\(String(describing: parser.parserError)))")
            throw .malformed(sitemap: url, line: error.line, reason: error.reason)
        }
        guard let rootName else { throw .notASitemap(sitemap: url, root: nil) }
        guard rootClosed else {
            throw .malformed(sitemap: url, line: parser.lineNumber, reason: "the document ends before </\(rootName)>")
        }
        return SitemapDocument(url: url, content: rootElement == .index ? .index(sitemaps) : .urlset(pages), problems: problems)
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String]) {
        let inSitemap = Self.sitemapNamespaces.contains(namespaceURI ?? "")
        let inImage = namespaceURI == Self.imageNamespace
        let element: Element
        switch (stack.last, elementName) {
        case (nil, "urlset") where inSitemap: element = .urlset
        case (nil, "sitemapindex") where inSitemap: element = .index
        case (nil, _):
            return stop(parser, .notASitemap(sitemap: url, root: qName ?? elementName))
        case (.urlset, "url") where inSitemap, (.index, "sitemap") where inSitemap:
            entries += 1
            guard entries <= limits.maxEntriesPerDocument else {
                return stop(parser, .tooManyEntries(sitemap: url, limit: limits.maxEntriesPerDocument))
            }
            (entryLoc, entryImages) = (nil, [])
            element = stack.last == .urlset ? .url : .sitemap
        case (.url, "loc") where inSitemap, (.sitemap, "loc") where inSitemap: element = .loc
        case (.url, "image") where inImage: (element, imageLoc) = (.image, nil)
        case (.image, "loc") where inImage: element = .imageLoc
        default: element = .other
        }
        if stack.isEmpty { (rootName, rootElement) = (qName ?? elementName, element) }
        if element == .loc || element == .imageLoc { reading = Loc(line: parser.lineNumber) }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard reading != nil else { return }
        append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard reading != nil else { return }
        append(String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        switch element {
        case .loc: if entryLoc == nil { entryLoc = reading }
        case .imageLoc: if imageLoc == nil { imageLoc = reading }
        case .image:
            if let image = checked(imageLoc, element: qName ?? "image:image", line: parser.lineNumber) {
                entryImages.append((image, imageLoc?.line ?? parser.lineNumber))
            }
        case .url: endPage(line: parser.lineNumber)
        case .sitemap:
            if let loc = checked(entryLoc, element: "sitemap", line: parser.lineNumber) { sitemaps.append(loc) }
        case .urlset, .index: rootClosed = true
        case .other: break
        }
        if element == .loc || element == .imageLoc { reading = nil }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard firstError == nil else { return }
        // FoundationXML passes libxml2's error number alone (no message; its own ErrorCode names do not match).
        let code = (parseError as NSError).code
        firstError = (parser.lineNumber, Self.libxml2Errors[code].map { "\($0) (libxml2 error \(code))" } ?? "libxml2 error \(code)")
    }

    /// Phrases for libxml2's commonest well-formedness errors (xmlParserErrors in libxml/xmlerror.h).
    private static let libxml2Errors: [Int: String] = [
        4: "the document is empty",
        5: "the document does not end after its root element (cut short, or more after it)",
        9: "a character XML does not allow",
        23: "an & that does not start an entity (a URL's & is written &amp;)",
        26: "an entity that is not declared (without a DTD only &amp; &lt; &gt; &quot; &apos; exist)",
        73: "a tag without its closing >",
        76: "an end tag that does not match its start tag",
        77: "the document ends inside an element",
    ]

    private func endPage(line: Int) {
        guard let page = checked(entryLoc, element: "url", line: line) else { return }
        let images = entryImages.enumerated().map { position, image in
            ListedImage(url: image.url, productID: page.absoluteString, position: position,
                        source: "\(url.absoluteString) line \(image.line)")
        }
        pages.append(SitemapPage(url: page, line: entryLoc?.line ?? line, images: images))
    }

    /// The loc's URL, or nil after counting why not.
    private func checked(_ loc: Loc?, element: String, line: Int) -> URL? {
        guard let loc else {
            problem(.missingLoc(element: element), line: line)
            return nil
        }
        let text = loc.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if loc.tooLong {
            problem(.locTooLong(limitBytes: limits.maxLocBytes), text: text, line: loc.line)
            return nil
        }
        guard let url = URL(listedHTTP: text) else {
            problem(.notHTTPURL, text: text, line: loc.line)
            return nil
        }
        return url
    }

    private func append(_ string: String) {
        guard var loc = reading, !loc.tooLong else { return }
        loc.text += string
        loc.tooLong = loc.text.utf8.count > limits.maxLocBytes
        reading = loc
    }

    private func problem(_ reason: ListingProblem.Reason, text: String = "", line: Int) {
        problems.append(ListingProblem(place: "\(url.absoluteString) line \(line)", text: text, reason: reason))
    }

    private func stop(_ parser: XMLParser, _ error: SitemapError) {
        failure = failure ?? error
        parser.abortParsing()
    }
}
