import Foundation
import Hummingbird
import NIOCore

/// Serves injected faults in place of the real answer, and counts every response.
///
/// Faults below Hummingbird's normal responses use the connection itself: a
/// streamed body that stops early and then throws (Hummingbird closes the
/// channel when a body writer throws, so the client sees the connection end
/// before `Content-Length` bytes), and `Channel.close()` for a reset.
struct CatalogMiddleware: RouterMiddleware {
    typealias Context = CatalogRequestContext

    let stats: CatalogStats
    let faults: FaultInjector
    let store: CatalogStore

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let route = Self.route(of: path)
        let pageNo = route == "products" ? query["page_no"].flatMap { Int($0) } ?? 1 : nil

        var faulted = false
        let response: Response
        do {
            if let fault = await faults.take(path: path, query: query) {
                faulted = true
                response = try await serve(fault, path: path, query: query, request: request, context: context, next: next)
            } else {
                response = try await next(request, context)
            }
        } catch let error as any HTTPResponseError {
            await stats.record(route: route, path: path, pageNo: pageNo, status: Int(error.status.code),
                               bodyBytes: 0, fault: faulted)
            throw error
        } catch {
            // A reset: no status was sent.
            await stats.record(route: route, path: path, pageNo: pageNo, status: 0, bodyBytes: 0, fault: faulted)
            throw error
        }
        await stats.record(route: route, path: path, pageNo: pageNo, status: Int(response.status.code),
                           bodyBytes: response.body.contentLength ?? 0, fault: faulted)
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
            return Response(status: .ok, headers: [.contentType: contentType],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        case .delay(let seconds):
            try await Task.sleep(for: .seconds(seconds))
            return try await next(request, context)
        case .delayed(let seconds, let then):
            try await Task.sleep(for: .seconds(seconds))
            return try await serve(then, path: path, query: query, request: request, context: context, next: next)
        case .reset:
            try? await context.channel.close()
            throw FaultServed.connectionClosed
        case .redirectLoop:
            return Self.redirectLoop(path: path, query: query)
        case .endlessBody:
            return try await endlessBody(path: path, query: query)
        case .slowBody(let seconds):
            return try await slowBody(path: path, query: query, seconds: seconds)
        case .shortBody:
            return try await cutShortBody(path: path, query: query, channel: context.channel, stallSeconds: 0)
        case .stalledBody(let seconds):
            return try await cutShortBody(path: path, query: query, channel: context.channel, stallSeconds: seconds)
        case .shiftAfter(let count):
            let response = try await next(request, context)
            await store.insertNewest(count: count)
            return response
        case .repeatPreviousPage:
            guard let pageNo = query["page_no"].flatMap({ Int($0) }), pageNo > 1 else { return try await next(request, context) }
            return try await previousPage(as: pageNo, query: query)
        }
    }

    /// A redirect to the same path with the `hop` counter one higher.
    private static func redirectLoop(path: String, query: [String: String]) -> Response {
        var items = query
        items["hop"] = String((items["hop"].flatMap { Int($0) } ?? 0) + 1)
        let text = items.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return Response(status: .found, headers: [.location: path + "?" + text, .contentLength: "0"])
    }

    /// The real bytes repeated in 64 KiB chunks, at most one chunk a millisecond (64 MB/s), so that a
    /// few endless bodies do not take every core from the requests around them.
    private func endlessBody(path: String, query: [String: String]) async throws -> Response {
        let (body, contentType) = try await realBody(path: path, query: query)
        var chunk = ByteBuffer()
        while chunk.readableBytes < 64 * 1024 {
            if body.readableBytes > 0 { chunk.writeImmutableBuffer(body) } else { chunk.writeRepeatingByte(0x41, count: 64 * 1024) }
        }
        let endless = chunk
        return Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody { writer in
            // Until the client goes away (the write throws) or the server stops.
            while true {
                try await writer.write(endless)
                try await Task.sleep(for: .milliseconds(1))
            }
        })
    }

    /// The real body in eight pieces spread over `seconds`.
    private func slowBody(path: String, query: [String: String], seconds: Double) async throws -> Response {
        let (body, contentType) = try await realBody(path: path, query: query)
        let pieces = 8
        return Response(status: .ok, headers: [.contentType: contentType, .contentLength: String(body.readableBytes)],
                        body: ResponseBody { writer in
            var rest = body
            let size = max(1, (body.readableBytes + pieces - 1) / pieces)
            while let piece = rest.readSlice(length: min(size, rest.readableBytes)), piece.readableBytes > 0 {
                try await Task.sleep(for: .seconds(seconds / Double(pieces)))
                try await writer.write(piece)
            }
            try await writer.finish(nil)
        })
    }

    /// Half the real body under its full Content-Length, then (after `stallSeconds`
    /// or when the client leaves) the connection closes, the body unfinished.
    private func cutShortBody(path: String, query: [String: String], channel: any Channel,
                              stallSeconds: Double) async throws -> Response {
        let (body, contentType) = try await realBody(path: path, query: query)
        return Response(status: .ok, headers: [.contentType: contentType, .contentLength: String(body.readableBytes)],
                        body: ResponseBody { writer in
            try await writer.write(body.getSlice(at: body.readerIndex, length: body.readableBytes / 2) ?? ByteBuffer())
            let until = ContinuousClock.now + .seconds(stallSeconds)
            while ContinuousClock.now < until, channel.isActive {
                try await Task.sleep(for: .milliseconds(200))
            }
            // Throwing makes Hummingbird close the connection, the body unfinished.
            throw FaultServed.bodyCutShort
        })
    }

    /// Page `pageNo - 1`'s products served as page `pageNo`.
    private func previousPage(as pageNo: Int, query: [String: String]) async throws -> Response {
        let size = query["items_per_page"].flatMap { Int($0) } ?? store.configuration.defaultItemsPerPage
        let body = try await store.page(pageNo: pageNo, itemsPerPage: size, productsOfPage: pageNo - 1)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The body the route would send: the image of a thumbnail path, or a list page.
    private func realBody(path: String, query: [String: String]) async throws -> (ByteBuffer, String) {
        if path == "/api/products" {
            let pageNo = query["page_no"].flatMap { Int($0) } ?? 1
            let size = query["items_per_page"].flatMap { Int($0) } ?? store.configuration.defaultItemsPerPage
            return (try await store.page(pageNo: max(1, pageNo), itemsPerPage: max(1, size)), "application/json; charset=utf-8")
        }
        guard let image = try await store.image(atPath: String(path.drop { $0 == "/" })) else {
            throw HTTPError(.notFound, message: "No such object.")
        }
        return (image.bytes, image.contentType)
    }

    static func route(of path: String) -> String {
        if path == "/api/products" { return "products" }
        if path.hasPrefix("/api/products/") { return "product" }
        if path == "/healthChecker" { return "health" }
        if path.hasPrefix("/thumbnails/") { return "thumbnail" }
        return "other"
    }
}

/// Thrown to make Hummingbird drop a connection on purpose.
enum FaultServed: Error {
    case connectionClosed
    case bodyCutShort
}
