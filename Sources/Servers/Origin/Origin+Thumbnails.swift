import Cache
import WarmSupport
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A thumbnail request: the index picks the file, the hot set holds its checked body and its headers made once, so
/// the answer is made in memory (`decide`) and sent from the event loop by `ThumbnailChannelHandler`. Otherwise the
/// request reaches Hummingbird's route, and the file is read on the origin's threads through one descriptor checked
/// against the validators (`load`), then kept in the hot set.
/// Not sendfile: the descriptor read is the one checked, and a hot body is sent from memory with no system call.
extension Origin {
    /// What a request needs: an answer made from memory, or a file read from disk first.
    enum ThumbnailDecision {
        case answer(ThumbnailAnswer)
        case read(ServedFile, negotiated: Bool, query: ThumbnailQuery)
    }

    static let thumbnailPath = "/v1/thumbnail"

    /// Runs no system call and takes no lock for long: safe on the event loop.
    func decide(query rawQuery: Substring?, headers: ThumbnailRequestHeaders) -> ThumbnailDecision {
        let filesByURL = index.snapshot.filesByURL
        var files: [ServedFile]?  // the files of a url that is already a key: one lookup, not two
        let query: ThumbnailQuery
        do {
            query = try ThumbnailQuery(query: rawQuery, maxQueryBytes: configuration.maxQueryBytes, isCanonicalKey: { key in
                files = filesByURL[key]
                return files != nil
            })
        } catch {
            return .answer(text(.badRequest, "bad request: \(error)"))
        }
        let negotiated = query.format == nil
        let held = (files ?? filesByURL[query.url.text] ?? [])
            .filter { $0.variant.longestSide == query.longestSide }
            .map { file in (format: file.variant.format, file: file) }
        var format = query.format
        if negotiated && !held.isEmpty {
            let accept = headers.accept
            format = FormatNegotiation.choose(accept: accept, held: held.map(\.format))
            guard format != nil else {
                var answer = text(.notAcceptable, "none of the formats the cache holds for \(query.url) is acceptable: \(accept ?? "")")
                answer.headers.add(name: "Vary", value: "Accept")
                return .answer(answer)
            }
        }
        guard let file = held.first(where: { $0.format == format })?.file else { return .answer(notFound(query)) }
        if let body = index.hotBody(for: file) { return .answer(found(body, negotiated: negotiated, headers: headers)) }
        return .read(file, negotiated: negotiated, query: query)
    }

    /// The route under `ThumbnailChannelHandler`: requests it passed up (a body to read from disk, or one behind a
    /// request still answered here on a pipelined connection).
    func respond(to request: Request, head: Bool, logger: Logger) async -> Response {
        let started = ContinuousClock.now
        let answer: ThumbnailAnswer
        let headers = ThumbnailRequestHeaders(request.headers)
        switch decide(query: request.uri.query.map { Substring($0) }, headers: headers) {
        case .answer(let made):
            answer = made
        case .read(let file, let negotiated, let query):
            answer = await read(file, negotiated: negotiated, query: query, headers: headers, logger: logger)
        }
        record(answer, head: head, started: started)
        return answer.response(head: head)
    }

    func record(_ answer: ThumbnailAnswer, head: Bool, started: ContinuousClock.Instant) {
        metrics.record(status: Int(answer.status.code), bodyBytes: head ? 0 : answer.body.readableBytes, miss: answer.miss,
                       latencySeconds: (ContinuousClock.now - started).inSeconds)
    }

    private func read(_ file: ServedFile, negotiated: Bool, query: ThumbnailQuery, headers: ThumbnailRequestHeaders,
                      logger: Logger) async -> ThumbnailAnswer {
        let loaded = await BlockingWork.run(on: threadPool) {
            Result { () throws(CacheError) -> OriginIndex.Body? in try self.load(file) }
        }
        switch loaded {
        case .success(let body?):
            return found(body, negotiated: negotiated, headers: headers)
        case .success(nil):
            return notFound(query)  // the file was just evicted
        case .failure(let error):
            logger.error("cache read failed", metadata: ["url": "\(query.url)", "error": "\(error)"])
            return text(.internalServerError, "the cache could not be read")
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
        let body = OriginIndex.Body(validators: validators, etag: etag, modifiedAtSeconds: Int(read.info.st_mtim.tv_sec),
                                    contentType: file.variant.format.mediaType,
                                    cacheControl: configuration.cacheControl, buffer: ByteBuffer(bytes: read.bytes))
        if validators != nil, validators == file.validators { index.remember(body, for: file) }
        return body
    }

    /// 200 with the body's headers, or 304 with its validators when the request's match.
    private func found(_ body: OriginIndex.Body, negotiated: Bool, headers request: ThumbnailRequestHeaders) -> ThumbnailAnswer {
        var headers = body.headers
        if negotiated { headers.add(name: "Vary", value: "Accept") }
        if ConditionalRequest.isNotModified(ifNoneMatch: request.ifNoneMatch,
                                            ifModifiedSince: request.ifModifiedSince,
                                            etag: body.etag, modifiedAtSeconds: body.modifiedAtSeconds) {
            headers.remove(name: "Content-Type")
            headers.remove(name: "Content-Length")
            return ThumbnailAnswer(status: .notModified, headers: headers)
        }
        return ThumbnailAnswer(status: .ok, headers: headers, body: body.buffer)
    }

    private func notFound(_ query: ThumbnailQuery) -> ThumbnailAnswer {
        var answer = text(.notFound, "not in the cache: \(query.url) at \(query.longestSide) px"
            + (query.format.map { " as \($0.rawValue)" } ?? ""))
        answer.headers.replaceOrAdd(name: "Cache-Control", value: "public, max-age=\(configuration.missMaxAgeSeconds)")
        if query.format == nil { answer.headers.add(name: "Vary", value: "Accept") }
        answer.miss = true
        return answer
    }

    func text(_ status: HTTPResponseStatus, _ message: String) -> ThumbnailAnswer {
        ThumbnailAnswer(status: status, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
                        body: ByteBuffer(string: message + "\n"))
    }

    /// Several header lines of one field are one comma-separated list.
    static func joined(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
