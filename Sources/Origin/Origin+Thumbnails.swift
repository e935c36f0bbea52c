import Cache
import ChildProcesses
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import WarmSupport

/// The body is read from the descriptor it was hashed from, not sent with sendfile: Hummingbird's `FileIO` opens
/// by path, which may be renamed over in between; thumbnails are a few KB.
extension Origin {
    func respond(to request: Request, head: Bool, logger: Logger) async -> Response {
        let started = ContinuousClock.now
        let (response, miss) = await answer(request, logger: logger)
        let bodyBytes = head ? 0 : (response.body.contentLength ?? 0)
        metrics.record(status: response.status.code, bodyBytes: bodyBytes, miss: miss,
                       latencySeconds: (ContinuousClock.now - started).inSeconds)
        return head ? response.createHeadResponse() : response
    }

    private func answer(_ request: Request, logger: Logger) async -> (Response, miss: Bool) {
        let query: ThumbnailQuery
        do {
            query = try ThumbnailQuery(query: request.uri.query, maxQueryBytes: configuration.maxQueryBytes)
        } catch {
            return (text(.badRequest, "bad request: \(error)"), false)
        }
        return await BlockingWork.run(on: threadPool) { self.answer(query, request: request, logger: logger) }
    }

    /// Blocks: one manifest read, one file.
    private func answer(_ query: ThumbnailQuery, request: Request, logger: Logger) -> (Response, miss: Bool) {
        let accept = Self.joined(request.headers[values: .accept])
        let negotiated = query.format == nil
        do throws(CacheError) {
            let held = try reader.storedVariants(of: query.url, longestSide: query.longestSide)
                .compactMap { variant in ThumbnailFormat(fileExtension: variant.format).map { (format: $0, variant: variant) } }
            var format = query.format
            if negotiated && !held.isEmpty {
                format = FormatNegotiation.choose(accept: accept, held: held.map(\.format))
                guard format != nil else {
                    var response = text(.notAcceptable,
                                        "none of the formats the cache holds for \(query.url) is acceptable: \(accept ?? "")")
                    response.headers[.vary] = "Accept"
                    return (response, false)
                }
            }
            // No such image, size or format (or its file was just evicted).
            guard let variant = held.first(where: { $0.format == format })?.variant,
                  let file = try reader.file(of: query.url, variant: variant, maxBytes: configuration.maxFileBytes) else {
                var response = text(.notFound, "not in the cache: \(query.url) at \(query.longestSide) px"
                    + (query.format.map { " as \($0.rawValue)" } ?? ""))
                response.headers[.cacheControl] = "public, max-age=\(configuration.missMaxAgeSeconds)"
                if negotiated { response.headers[.vary] = "Accept" }
                return (response, true)
            }
            return (found(file, negotiated: negotiated, request: request), false)
        } catch {
            logger.error("cache read failed", metadata: ["url": "\(query.url)", "error": "\(error)"])
            return (text(.internalServerError, "the cache could not be read"), false)
        }
    }

    private func found(_ file: CachedFile, negotiated: Bool, request: Request) -> Response {
        let etag = file.etag
        var headers: HTTPFields = [
            .eTag: etag,
            .lastModified: HTTPDateText.format(secondsSince1970: file.modifiedAtSeconds),
            .cacheControl: configuration.cacheControl,
        ]
        if negotiated { headers[.vary] = "Accept" }
        if ConditionalRequest.isNotModified(ifNoneMatch: Self.joined(request.headers[values: .ifNoneMatch]),
                                            ifModifiedSince: request.headers[.ifModifiedSince],
                                            etag: etag, modifiedAtSeconds: file.modifiedAtSeconds) {
            var response = Response(status: .notModified, headers: headers)
            response.headers[.contentLength] = nil
            return response
        }
        headers[.contentType] = ThumbnailFormat(fileExtension: file.variant.format)?.mediaType ?? "application/octet-stream"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    private func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// Several header lines of one field are one comma-separated list.
    private static func joined(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
