import CompressNIO
import Foundation
import NIOCore

/// The checks a sitemap's bytes pass before an XML parser sees them: gunzip under a cap, UTF-8, no DTD.
///
/// The DTD is refused by scanning the bytes rather than trusted to the parser: FoundationXML on Linux parses with
/// libxml2's `XML_PARSE_NOENT` (entities substituted), and its delegate hears of no internal entity declaration. Since
/// the bytes are checked to be UTF-8 and a declared encoding must be UTF-8, the scan sees what libxml2 will read.
enum SitemapBody {
    /// The document to parse: `body` itself, or inflated when it starts with gzip's magic bytes (1f 8b), whatever the
    /// URL's name or the Content-Type say. Inflating stops past `maxDocumentBytes`, so a bomb costs at most that.
    static func document(from body: Data, url: URL, limits: SitemapLimits) throws(SitemapError) -> Data {
        let gzipped = body.starts(with: [0x1F, 0x8B])
        let document = gzipped ? try inflate(body, url: url, limitBytes: limits.maxDocumentBytes) : body
        guard document.count <= limits.maxDocumentBytes else {
            throw .tooLarge(sitemap: url, limitBytes: limits.maxDocumentBytes, gzipped: gzipped)
        }
        guard String(validating: document, as: UTF8.self) != nil else { throw .notUTF8(sitemap: url) }
        if let encoding = declaredEncoding(document), !["utf-8", "utf8"].contains(encoding.lowercased()) {
            throw .unsupportedEncoding(sitemap: url, encoding: encoding)
        }
        if let line = doctypeLine(document) { throw .doctype(sitemap: url, line: line) }
        return document
    }

    private static func inflate(_ body: Data, url: URL, limitBytes: Int) throws(SitemapError) -> Data {
        var compressed = ByteBuffer(bytes: body)
        do {
            // One byte over the limit tells "exactly at the limit" from "over it".
            var inflated = try compressed.decompress(with: .gzip(), maxSize: limitBytes + 1)
            // zlib does not say when the input ended before the stream did (a download cut short): the trailer's
            // length (ISIZE, RFC 1952) must match what came out. A file of several gzip members fails this too.
            let declared = body.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard body.count >= 18, declared == UInt32(truncatingIfNeeded: inflated.readableBytes) else {
                throw SitemapError.corruptGzip(sitemap: url)
            }
            return Data(inflated.readBytes(length: inflated.readableBytes) ?? [])
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw .tooLarge(sitemap: url, limitBytes: limitBytes, gzipped: true)
        } catch {
            throw .corruptGzip(sitemap: url)
        }
    }

    /// The line of the first `<!DOCTYPE` or `<!ENTITY`, in any case (libxml2 wants upper case; refusing more is free).
    static func doctypeLine(_ document: Data) -> Int? {
        let markers: [[UInt8]] = [Array("DOCTYPE".utf8), Array("ENTITY".utf8)]
        return document.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            for index in bytes.indices.dropLast() where bytes[index] == 0x3C && bytes[index + 1] == 0x21 { // "<!"
                let name = bytes[(index + 2)...].prefix(7).map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
                if markers.contains(where: { name.starts(with: $0) }) {
                    return 1 + bytes[..<index].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                }
            }
            return nil
        }
    }

    /// The `encoding` of the XML declaration (`<?xml version="1.0" encoding="UTF-8"?>`), if there is one.
    static func declaredEncoding(_ document: Data) -> String? {
        let head = String(decoding: document.prefix(256), as: UTF8.self)
        guard let start = head.range(of: "<?xml"), head[..<start.lowerBound].allSatisfy({ $0 == "\u{FEFF}" || $0.isWhitespace }),
              let end = head.range(of: "?>", range: start.upperBound..<head.endIndex) else { return nil }
        let declaration = head[start.upperBound..<end.lowerBound]
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop(while: { $0 == " " || $0 == "=" || $0.isWhitespace })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix(while: { $0 != quote }))
    }
}
