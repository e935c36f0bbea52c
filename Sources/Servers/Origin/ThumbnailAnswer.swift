import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// One answer to a thumbnail request, made once and sent either by Hummingbird's router or, without leaving the event
/// loop, by `ThumbnailChannelHandler`; both send the same status, headers and body. In NIO's types, which the handler
/// writes as they are; only the router's answers (the rarer path) are converted to Hummingbird's.
struct ThumbnailAnswer: Sendable {
    var status: HTTPResponseStatus
    /// With `Content-Length` (none on a 304).
    var headers: HTTPHeaders
    var body: ByteBuffer
    /// A request for an image, size or format the cache does not hold (`warm_origin_misses_total`).
    var miss = false

    /// `headers` that already hold `Content-Length` (a hot body's, made when it was read) keep it.
    init(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer = ByteBuffer(), miss: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.miss = miss
        if status != .notModified && !headers.contains(name: "Content-Length") {
            self.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
    }

    /// A HEAD answer keeps the headers, `Content-Length` among them, and sends no body.
    func response(head: Bool) -> Response {
        let sent = head || body.readableBytes == 0 ? ResponseBody() : ResponseBody(byteBuffer: body)
        var response = Response(status: HTTPResponse.Status(code: Int(status.code)), headers: HTTPFields(headers, splitCookie: false),
                                body: sent)
        if status == .notModified { response.headers[.contentLength] = nil }  // Response adds one for an empty body
        return response
    }
}

/// The request headers a thumbnail answer depends on, read from either side of the conversion to the HTTP types.
struct ThumbnailRequestHeaders: Sendable {
    var accept: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?

    init(_ fields: HTTPFields) {
        accept = Origin.joined(fields[values: .accept])
        ifNoneMatch = Origin.joined(fields[values: .ifNoneMatch])
        ifModifiedSince = fields[.ifModifiedSince]
    }

    init(_ headers: HTTPHeaders) {
        accept = Origin.joined(headers["Accept"])
        ifNoneMatch = Origin.joined(headers["If-None-Match"])
        ifModifiedSince = headers.first(name: "If-Modified-Since")
    }
}
