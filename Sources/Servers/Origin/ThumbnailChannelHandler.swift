import Foundation
import NIOCore
import NIOHTTP1
import WarmSupport

/// Answers `GET` and `HEAD /v1/thumbnail` on the event loop, below Hummingbird's router, when `Origin.decide` makes
/// the answer in memory (a hot body, a 304, a 404, a 400): what a static server does, without the task, request
/// context, router and response writer Hummingbird spends on each request (bench/findings.md, section 20). It sits
/// right after NIO's HTTP/1 decoder (`OriginHTTP1Channel`), so it reads NIO's request head and writes NIO's response
/// head with the hot body's headers made once, with no conversion to the HTTP types (section 23). A request that
/// needs a file read, any other request, and every request behind one still answered up there (a pipelined
/// connection gets its answers in order) go up to Hummingbird unchanged. One per connection, on its event loop.
///
/// It also closes a connection idle for the origin's idle timeout (`IdleStateHandler` before it fires the event),
/// because Hummingbird's own idle timer sees only the requests passed up and would close a busy connection.
final class ThumbnailChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let origin: Origin
    /// Requests passed up whose answer's end has not been written yet.
    private var requestsUpstream = 0
    /// The answer to the request being read, sent when its end arrives.
    private var pending: Pending?
    private struct Pending {
        var answer: ThumbnailAnswer
        var head: Bool
        var started: ContinuousClock.Instant
    }
    private var needsFlush = false
    private var date = (second: 0, text: "")

    init(origin: Origin) {
        self.origin = origin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if requestsUpstream == 0, let thumbnail = thumbnailRequest(request),
               case .answer(let answer) = origin.decide(query: thumbnail.query, headers: ThumbnailRequestHeaders(request.headers)) {
                pending = Pending(answer: answer, head: thumbnail.head, started: started)
                return
            }
            requestsUpstream += 1
        case .body:
            if pending != nil { return }
        case .end:
            if let pending {
                self.pending = nil
                send(pending, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// The query of a thumbnail GET or HEAD this handler may answer; nil for anything else, and for a request that
    /// does not keep the connection open (`Connection: close`, HTTP/1.0 without keep-alive: Hummingbird closes it).
    private func thumbnailRequest(_ request: HTTPRequestHead) -> (query: Substring?, head: Bool)? {
        guard request.method == .GET || request.method == .HEAD, request.isKeepAlive,
              request.uri.utf8.starts(with: Origin.thumbnailPath.utf8) else { return nil }
        let rest = request.uri.utf8.dropFirst(Origin.thumbnailPath.utf8.count)
        guard rest.isEmpty || rest.first == UInt8(ascii: "?") else { return nil }
        return (rest.isEmpty ? nil : Substring(rest.dropFirst()), request.method == .HEAD)
    }

    private func send(_ pending: Pending, context: ChannelHandlerContext) {
        let answer = pending.answer
        var headers = answer.headers
        headers.add(name: "Date", value: dateText())
        headers.add(name: "Server", value: Origin.serverName)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
                      promise: nil)
        if !pending.head && answer.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        needsFlush = true
        origin.record(answer, head: pending.head, started: pending.started)
    }

    /// One flush for the answers to everything read at once (a pipelined batch).
    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestsUpstream -= 1 }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        if requestsUpstream == 0 && pending == nil { context.close(promise: nil) }
    }

    /// `Date`, formatted once a second per connection.
    private func dateText() -> String {
        let now = time(nil)
        if now != date.second {
            date = (now, HTTPDateText.format(secondsSince1970: now))
        }
        return date.text
    }
}
