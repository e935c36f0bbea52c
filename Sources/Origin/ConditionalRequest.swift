import WarmSupport
/// The preconditions of a GET or HEAD (RFC 9110 section 13): whether to
/// answer 304 Not Modified instead of the body.
enum ConditionalRequest {
    /// `If-None-Match` (weak comparison, a list, or `*`) decides when present;
    /// only without it does `If-Modified-Since` count (304 when the file is not
    /// newer than the date, to the second).
    static func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?, etag: String,
                              modifiedAtSeconds: Int) -> Bool {
        if let ifNoneMatch {
            return matches(ifNoneMatch, etag: etag)
        }
        if let ifModifiedSince, let since = HTTPDateText.parse(ifModifiedSince) {
            return modifiedAtSeconds <= since
        }
        return false
    }

    /// Weak comparison: `W/"x"` matches `"x"`; `*` matches any current representation.
    static func matches(_ header: String, etag: String) -> Bool {
        let wanted = opaque(etag)
        for element in header.split(separator: ",") {
            let tag = String(element).trimmingBlanks()
            if tag == "*" || opaque(tag) == wanted { return true }
        }
        return false
    }

    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}
