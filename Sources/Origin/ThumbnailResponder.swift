import Cache
import ChildProcesses
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import WarmSupport

/// The body is read from the descriptor it was hashed from, not sent with sendfile: Hummingbird's `FileIO` opens
/// by path, which may be renamed over in between; thumbnails are a few KB.
struct ThumbnailResponder: Sendable {
    let reader: CacheReader
    let threadPool: NIOThreadPool
    let configuration: OriginConfiguration
    let metrics: OriginMetrics
    let logger: Logger

    func respond(to request: Request, head: Bool) async -> Response {
        let started = ContinuousClock.now
        let (response, miss) = await answer(request)
        let bodyBytes = head ? 0 : (response.body.contentLength ?? 0)
        metrics.record(status: response.status.code, bodyBytes: bodyBytes, miss: miss,
                       latencySeconds: (ContinuousClock.now - started).inSeconds)
        return head ? response.createHeadResponse() : response
    }

    private func answer(_ request: Request) async -> (Response, miss: Bool) {
        let query: ThumbnailQuery
        do {
            query = try ThumbnailQuery(query: request.uri.query, maxQueryBytes: configuration.maxQueryBytes)
        } catch {
            return (text(.badRequest, "bad request: \(error)"), false)
        }
        let accept = Self.joined(request.headers[values: .accept])
        let reader = self.reader, maxFileBytes = configuration.maxFileBytes
        let lookup = await BlockingWork.run(on: threadPool) {
            ThumbnailLookup.run(query, accept: accept, reader: reader, maxFileBytes: maxFileBytes)
        }
        switch lookup {
        case .found(let file, let negotiated):
            return (found(file, negotiated: negotiated, request: request), false)
        case .miss(let negotiated):
            var response = text(.notFound, "not in the cache: \(query.url) at \(query.longestSide) px"
                + (query.format.map { " as \($0.rawValue)" } ?? ""))
            response.headers[.cacheControl] = "public, max-age=\(configuration.missMaxAgeSeconds)"
            if negotiated { response.headers[.vary] = "Accept" }
            return (response, true)
        case .notAcceptable:
            var response = text(.notAcceptable, "none of the formats the cache holds for \(query.url) is acceptable: \(accept ?? "")")
            response.headers[.vary] = "Accept"
            return (response, false)
        case .failed(let error):
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

/// What the cache holds for one request, found in one hop off the cooperative pool (one manifest read, one file).
enum ThumbnailLookup: Sendable {
    case found(CachedFile, negotiated: Bool)
    /// No such image, size or format (or its file was just evicted).
    case miss(negotiated: Bool)
    /// The image is there, but `Accept` allows none of its formats.
    case notAcceptable
    case failed(CacheError)

    /// Blocks.
    static func run(_ query: ThumbnailQuery, accept: String?, reader: CacheReader, maxFileBytes: Int) -> ThumbnailLookup {
        let negotiated = query.format == nil
        do throws(CacheError) {
            let held = try reader.storedVariants(of: query.url, longestSide: query.longestSide)
                .compactMap { variant in ThumbnailFormat(fileExtension: variant.format).map { (format: $0, variant: variant) } }
            let format: ThumbnailFormat
            if let named = query.format {
                format = named
            } else {
                guard !held.isEmpty else { return .miss(negotiated: true) }
                guard let chosen = FormatNegotiation.choose(accept: accept, held: held.map(\.format)) else { return .notAcceptable }
                format = chosen
            }
            guard let variant = held.first(where: { $0.format == format })?.variant,
                  let file = try reader.file(of: query.url, variant: variant, maxBytes: maxFileBytes) else {
                return .miss(negotiated: negotiated)
            }
            return .found(file, negotiated: negotiated)
        } catch {
            return .failed(error)
        }
    }
}
