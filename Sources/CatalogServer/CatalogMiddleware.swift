import Foundation
import Hummingbird

/// Serves injected faults in place of the real answer, and counts every response.
struct CatalogMiddleware<Context: RequestContext>: RouterMiddleware {
    let stats: CatalogStats
    let faults: FaultInjector

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
                response = try await serve(fault, request: request, context: context, next: next)
            } else {
                response = try await next(request, context)
            }
        } catch let error as any HTTPResponseError {
            await stats.record(route: route, path: path, pageNo: pageNo, status: Int(error.status.code),
                               bodyBytes: 0, fault: faulted)
            throw error
        }
        await stats.record(route: route, path: path, pageNo: pageNo, status: Int(response.status.code),
                           bodyBytes: response.body.contentLength ?? 0, fault: faulted)
        return response
    }

    private func serve(_ fault: CatalogFault, request: Request, context: Context,
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
            return try await serve(then, request: request, context: context, next: next)
        }
    }

    static func route(of path: String) -> String {
        if path == "/api/products" { return "products" }
        if path.hasPrefix("/api/products/") { return "product" }
        if path == "/healthChecker" { return "health" }
        if path.hasPrefix("/thumbnails/") { return "thumbnail" }
        return "other"
    }
}
