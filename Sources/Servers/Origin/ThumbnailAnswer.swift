import Hummingbird
import NIOCore

/// One answer to a thumbnail request, made once and sent either by Hummingbird's router or, without leaving the event
/// loop, by `ThumbnailChannelHandler`; both send the same status, headers and body.
struct ThumbnailAnswer: Sendable {
    var status: HTTPResponse.Status
    /// With `Content-Length` (none on a 304).
    var headers: HTTPFields
    var body: ByteBuffer
    /// A request for an image, size or format the cache does not hold (`warm_origin_misses_total`).
    var miss = false

    /// `headers` that already hold `Content-Length` (a hot body's, made when it was read) keep it.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer = ByteBuffer(), miss: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.miss = miss
        if status != .notModified && !headers.contains(.contentLength) {
            self.headers[.contentLength] = String(body.readableBytes)
        }
    }

    /// A HEAD answer keeps the headers, `Content-Length` among them, and sends no body.
    func response(head: Bool) -> Response {
        let sent = head || body.readableBytes == 0 ? ResponseBody() : ResponseBody(byteBuffer: body)
        var response = Response(status: status, headers: headers, body: sent)
        if status == .notModified { response.headers[.contentLength] = nil }  // Response adds one for an empty body
        return response
    }
}
