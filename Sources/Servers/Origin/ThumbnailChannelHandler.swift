import Foundation
import Hummingbird
import NIOCore
import NIOHTTPTypes
import WarmSupport

/// Answers `GET` and `HEAD /v1/thumbnail` on the event loop, below Hummingbird's router, when `Origin.decide` makes
/// the answer in memory (a hot body, a 304, a 404, a 400): what a static server does, without the task, request
/// context, router and response writer Hummingbird spends on each request (bench/findings.md, section 20). A request
/// that needs a file read, any other request, and every request behind one still answered up there (a pipelined
/// connection gets its answers in order) go up to Hummingbird unchanged. One per connection, on its event loop.
///
/// It also closes a connection idle for the origin's idle timeout (`IdleStateHandler` before it fires the event),
/// because Hummingbird's own idle timer sees only the requests passed up and would close a busy connection.
final class ThumbnailChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let origin: Origin
    /// Requests passed up whose answer's end has not been written yet.
    private var requestsUpstream = 0
    /// The answer to the request being read, sent when its end arrives.
    private var pending: (answer: ThumbnailAnswer, head: Bool, started: ContinuousClock.Instant)?
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
               case .answer(let answer) = origin.decide(query: thumbnail.query, headers: request.headerFields) {
                pending = (answer, thumbnail.head, started)
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
    /// asks to close the connection (Hummingbird closes it after the answer).
    private func thumbnailRequest(_ request: HTTPRequest) -> (query: Substring?, head: Bool)? {
        guard request.method == .get || request.method == .head, let path = request.path,
              path.utf8.starts(with: Origin.thumbnailPath.utf8),
              !(request.headerFields[.connection]?.lowercased().contains("close") ?? false) else { return nil }
        let rest = path.dropFirst(Origin.thumbnailPath.count)
        guard rest.isEmpty || rest.first == "?" else { return nil }
        return (rest.isEmpty ? nil : rest.dropFirst(), request.method == .head)
    }

    private func send(_ pending: (answer: ThumbnailAnswer, head: Bool, started: ContinuousClock.Instant),
                      context: ChannelHandlerContext) {
        let answer = pending.answer
        var headers = answer.headers
        headers[.date] = dateText()
        headers[.server] = Origin.serverName
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if !pending.head && answer.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
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
