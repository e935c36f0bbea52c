import WarmSupport

/// The preconditions of a GET or HEAD (RFC 9110 section 13), for the origin and the catalog server.
public enum ConditionalRequest {
    /// Whether to answer 304: `If-None-Match` (weak comparison, a list, or `*`) decides when present;
    /// only without it does `If-Modified-Since` count (304 when not modified since, to the second).
    public static func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?, etag: String,
                                     modifiedAtSeconds: Int?) -> Bool {
        if let ifNoneMatch {
            let wanted = opaque(etag)
            return ifNoneMatch.split(separator: ",").contains { element in
                let tag = String(element).trimmingBlanks()
                return tag == "*" || opaque(tag) == wanted
            }
        }
        guard let ifModifiedSince, let since = HTTPDateText.parse(ifModifiedSince), let modifiedAtSeconds else {
            return false
        }
        return modifiedAtSeconds <= since
    }

    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}
