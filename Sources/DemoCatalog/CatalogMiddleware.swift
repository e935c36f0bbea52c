import Foundation
import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the connection, so that a fault can close it.
struct CatalogRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

/// Serves the hooks' fault, else the plan's, in place of the real answer; tells the hooks of every response. A body
/// cut short is a streamed body that throws (Hummingbird then closes the connection); a reset is `Channel.close()`.
struct CatalogMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext

    let hooks: (any CatalogHooks)?
    let faults: FaultInjector?
    let store: CatalogStore

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        var fault = await hooks?.fault(path: path, query: query)
        if fault == nil { fault = await faults?.take(path: path, query: query) }
        let response: Response
        do {
            if let fault {
                response = try await serve(fault, path: path, query: query, request: request, context: context, next: next)
            } else {
                response = try await next(request, context)
            }
        } catch {
            // Status 0: a reset, no status was sent.
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 0
            await hooks?.answered(path: path, query: query, status: status, bodyBytes: 0, fault: fault != nil)
            throw error
        }
        await hooks?.answered(path: path, query: query, status: Int(response.status.code),
                              bodyBytes: response.body.contentLength ?? 0, fault: fault != nil)
        return response
    }

    private func serve(_ fault: CatalogFault, path: String, query: [String: String], request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        switch fault {
        case .status(let code, let retryAfter):
            var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: .init(code: code), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: "Injected fault: HTTP \(code)\n")))
        case .body(let text, let contentType):
            return Self.ok(text, contentType: contentType)
        case .delay(let seconds, let then):
            try await Task.sleep(for: .seconds(seconds))
            guard let then else { return try await next(request, context) }
            return try await serve(then, path: path, query: query, request: request, context: context, next: next)
        case .html:
            return Self.ok("<!DOCTYPE html>\n<html><head><title>503 Service Temporarily Unavailable</title></head>"
                           + "<body><h1>Service Temporarily Unavailable</h1></body></html>\n",
                           contentType: "text/html; charset=utf-8")
        case .garbage:
            return Self.ok(#"{"pageNo": 2, "itemsPerPage": 20, "totalCount": 1336, "pages": [{"id": 17, "name": "Vint"#,
                           contentType: "application/json")
        case .reset:
            try? await context.channel.close()
            throw FaultServed.connectionClosed
        case .redirectLoop:
            return Self.redirectLoop(path: path, query: query)
        case .endlessBody, .slowBody, .shortBody, .stalledBody:
            let (body, contentType) = try await realBody(path: path, query: query)
            var headers: HTTPFields = [.contentType: contentType]
            if fault != .endlessBody { headers[.contentLength] = String(body.readableBytes) }
            return Response(status: .ok, headers: headers, body: Self.streamed(fault, body, channel: context.channel))
        case .shift(let count):
            let response = try await next(request, context)
            await store.insertNewest(count: count)
            return response
        case .repeatPage:
            guard let pageNo = query["page_no"].flatMap({ Int($0) }), pageNo > 1 else { return try await next(request, context) }
            let (body, contentType) = try await realBody(path: path, query: query, productsOfPage: pageNo - 1)
            return Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: body))
        }
    }

    private static func ok(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func redirectLoop(path: String, query: [String: String]) -> Response {
        var items = query
        items["hop"] = String((items["hop"].flatMap { Int($0) } ?? 0) + 1)
        let text = items.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return Response(status: .found, headers: [.location: path + "?" + text, .contentLength: "0"])
    }

    /// Endless: at most 64 KiB a millisecond, so that a few endless bodies do not take every core from other
    /// requests. Slow: 8 pieces over a second. Short, stalled: half the body under its full Content-Length; then
    /// (after 10 minutes for a stall, or when the client leaves) the connection closes.
    private static func streamed(_ fault: CatalogFault, _ body: ByteBuffer, channel: any Channel) -> ResponseBody {
        ResponseBody { writer in
            switch fault {
            case .endlessBody:
                var chunk = ByteBuffer()
                while chunk.readableBytes < 64 * 1024 {
                    if body.readableBytes > 0 {
                        chunk.writeImmutableBuffer(body)
                    } else {
                        chunk.writeRepeatingByte(0x41, count: 64 * 1024)
                    }
                }
                while true {
                    try await writer.write(chunk)
                    try await Task.sleep(for: .milliseconds(1))
                }
            case .slowBody:
                var rest = body
                let size = max(1, (body.readableBytes + 7) / 8)
                while let piece = rest.readSlice(length: min(size, rest.readableBytes)), piece.readableBytes > 0 {
                    try await Task.sleep(for: .seconds(1.0 / 8))
                    try await writer.write(piece)
                }
                try await writer.finish(nil)
            default:
                try await writer.write(body.getSlice(at: body.readerIndex, length: body.readableBytes / 2) ?? ByteBuffer())
                let until = ContinuousClock.now + .seconds(fault == .stalledBody ? 600 : 0)
                while ContinuousClock.now < until, channel.isActive {
                    try await Task.sleep(for: .milliseconds(200))
                }
                throw FaultServed.bodyCutShort
            }
        }
    }

    /// `productsOfPage`: another page's products under this page's number.
    private func realBody(path: String, query: [String: String],
                          productsOfPage: Int? = nil) async throws -> (ByteBuffer, String) {
        if path == "/api/products" {
            let pageNo = query["page_no"].flatMap { Int($0) } ?? 1
            let size = query["items_per_page"].flatMap { Int($0) } ?? store.configuration.defaultItemsPerPage
            let body = try await store.page(pageNo: max(1, pageNo), itemsPerPage: size, productsOfPage: productsOfPage)
            return (body, "application/json; charset=utf-8")
        }
        guard let image = try await store.image(atPath: String(path.drop { $0 == "/" })) else {
            throw HTTPError(.notFound, message: "No such object.")
        }
        return (image.bytes, image.contentType)
    }
}

enum FaultServed: Error {
    case connectionClosed
    case bodyCutShort
}
