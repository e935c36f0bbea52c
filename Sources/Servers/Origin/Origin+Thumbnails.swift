import Cache
import WarmSupport
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// A thumbnail request: the index picks the file, the hot set sends its checked body with no system call; otherwise
/// the file is read on the origin's threads through one descriptor checked against the validators (`load`).
/// Not sendfile: Hummingbird's response body writes buffers, and its file path opens by name, which may be renamed
/// over between the check and the send.
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
        let filesByURL = index.snapshot.filesByURL
        let query: ThumbnailQuery
        do {
            query = try ThumbnailQuery(query: request.uri.query, maxQueryBytes: configuration.maxQueryBytes,
                                       isCanonicalKey: { filesByURL[$0] != nil })
        } catch {
            return (text(.badRequest, "bad request: \(error)"), false)
        }
        let negotiated = query.format == nil
        let held = (filesByURL[query.url.text] ?? [])
            .filter { $0.variant.longestSide == query.longestSide }
            .compactMap { file in ThumbnailFormat(fileExtension: file.variant.format).map { (format: $0, file: file) } }
        var format = query.format
        if negotiated && !held.isEmpty {
            let accept = Self.joined(request.headers[values: .accept])
            format = FormatNegotiation.choose(accept: accept, held: held.map(\.format))
            guard format != nil else {
                var response = text(.notAcceptable, "none of the formats the cache holds for \(query.url) is acceptable: \(accept ?? "")")
                response.headers[.vary] = "Accept"
                return (response, false)
            }
        }
        guard let file = held.first(where: { $0.format == format })?.file else { return (notFound(query), true) }
        if let body = index.hotBody(for: file) { return (found(body, file: file, negotiated: negotiated, request: request), false) }
        let loaded = await BlockingWork.run(on: threadPool) {
            Result { () throws(CacheError) -> OriginIndex.Body? in try self.load(file) }
        }
        switch loaded {
        case .success(let body?):
            return (found(body, file: file, negotiated: negotiated, request: request), false)
        case .success(nil):
            return (notFound(query), true)  // the file was just evicted
        case .failure(let error):
            logger.error("cache read failed", metadata: ["url": "\(query.url)", "error": "\(error)"])
            return (text(.internalServerError, "the cache could not be read"), false)
        }
    }

    /// Blocks: reads the file through one descriptor. Its `fstat` matching the index's validators (or, when the index
    /// is behind, the row's now) proves the bytes are the ones those validators describe; otherwise (a row from before
    /// v4, or a file renamed in before its row) the bytes read are hashed here, so the ETag is always of the body.
    func load(_ file: ServedFile) throws(CacheError) -> OriginIndex.Body? {
        guard let reader = index.reader, let read = try reader.read(file, maxBytes: configuration.maxFileBytes) else {
            return nil
        }
        var validators = file.validators.flatMap { $0.describe(read.info) ? $0 : nil }
        if validators == nil, let current = try reader.servedFile(url: file.url, variant: file.variant)?.validators,
           current.describe(read.info) {
            validators = current
        }
        let etag = validators?.etag ?? FileValidators.etag(sha256Hex: read.bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) })
        let modified = Int(read.info.st_mtim.tv_sec)
        let body = OriginIndex.Body(validators: validators, etag: etag, modifiedAtSeconds: modified,
                                    lastModified: HTTPDateText.format(secondsSince1970: modified),
                                    buffer: ByteBuffer(bytes: read.bytes))
        if validators != nil, validators == file.validators { index.remember(body, for: file) }
        return body
    }

    private func found(_ body: OriginIndex.Body, file: ServedFile, negotiated: Bool, request: Request) -> Response {
        var headers: HTTPFields = [
            .eTag: body.etag,
            .lastModified: body.lastModified,
            .cacheControl: configuration.cacheControl,
        ]
        if negotiated { headers[.vary] = "Accept" }
        if ConditionalRequest.isNotModified(ifNoneMatch: Self.joined(request.headers[values: .ifNoneMatch]),
                                            ifModifiedSince: request.headers[.ifModifiedSince],
                                            etag: body.etag, modifiedAtSeconds: body.modifiedAtSeconds) {
            var response = Response(status: .notModified, headers: headers)
            response.headers[.contentLength] = nil
            return response
        }
        headers[.contentType] = ThumbnailFormat(fileExtension: file.variant.format)?.mediaType ?? "application/octet-stream"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body.buffer))
    }

    private func notFound(_ query: ThumbnailQuery) -> Response {
        var response = text(.notFound, "not in the cache: \(query.url) at \(query.longestSide) px"
            + (query.format.map { " as \($0.rawValue)" } ?? ""))
        response.headers[.cacheControl] = "public, max-age=\(configuration.missMaxAgeSeconds)"
        if query.format == nil { response.headers[.vary] = "Accept" }
        return response
    }

    func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// Several header lines of one field are one comma-separated list.
    static func joined(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
