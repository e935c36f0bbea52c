import Cache
import WarmSupport
import Hummingbird
import Logging
import NIOCore

/// `GET /v1/manifest`: the app manifest of the whole cache (the tree's manifest, which `warm cache merge` fills from
/// every shard), the same lines as `warm cache export`, gzipped, with an ETag; 304 on `If-None-Match`. Made once per
/// manifest version on the origin's threads (`OriginManifestBody`).
extension Origin {
    func appManifest(_ request: Request, logger: Logger) async -> Response {
        let snapshot = index.snapshot
        guard snapshot.status == .ready, let version = snapshot.version, let reader = index.reader else {
            return text(.serviceUnavailable, "no manifest yet: no run has written this cache").response(head: false)
        }
        guard Self.acceptsGzip(request.headers[values: .acceptEncoding]) else {
            return text(.notAcceptable, "the app manifest is sent gzip-compressed only; Accept-Encoding excludes gzip")
                .response(head: false)
        }
        let made: Result<OriginManifestBody, CacheError>
        if let cached = index.manifestBody(version: version) {
            made = .success(cached)
        } else {
            made = await BlockingWork.run(on: threadPool) {
                Result { () throws(CacheError) in try OriginManifestBody.make(from: reader, version: version) }
            }
        }
        switch made {
        case .failure(let error):
            logger.error("app manifest failed", metadata: ["error": "\(error)"])
            return text(.internalServerError, "the app manifest could not be made").response(head: false)
        case .success(let body):
            index.rememberManifest(body)
            var headers: HTTPFields = [.eTag: body.etag, .cacheControl: "public, no-cache", .vary: "Accept-Encoding"]
            if ConditionalRequest.isNotModified(ifNoneMatch: Self.joined(request.headers[values: .ifNoneMatch]),
                                                ifModifiedSince: nil, etag: body.etag, modifiedAtSeconds: 0) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/x-ndjson"
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body.gzipped))
        }
    }

    /// No `Accept-Encoding` accepts any; otherwise gzip (or `*`) must be listed with a quality above 0.
    static func acceptsGzip(_ values: [String]) -> Bool {
        guard !values.isEmpty else { return true }
        return values.joined(separator: ",").split(separator: ",").contains { element in
            let parts = element.split(separator: ";").map { String($0).trimmingBlanks().lowercased() }
            guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }
}
