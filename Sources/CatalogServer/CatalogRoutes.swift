import Foundation
import Hummingbird
import WarmSupport

enum CatalogRoutes {
    static func router(store: CatalogStore, stats: CatalogStats, faults: FaultInjector) -> Router<CatalogRequestContext> {
        let router = Router(context: CatalogRequestContext.self)
        router.add(middleware: CatalogMiddleware(stats: stats, faults: faults, store: store))

        router.get("healthChecker") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: "\"OK\"")))
        }

        router.get("api/products") { request, _ in
            let query = request.uri.queryParameters
            let defaultSize = store.configuration.defaultItemsPerPage
            guard let pageNo = query["page_no"].map({ Int($0) }) ?? 1, pageNo >= 1,
                  let size = query["items_per_page"].map({ Int($0) }) ?? defaultSize, size >= 1 else {
                throw HTTPError(.badRequest, message: "page_no and items_per_page must be positive integers.")
            }
            return json(try await store.page(pageNo: pageNo, itemsPerPage: size))
        }

        router.get("api/products/:id") { _, context in
            guard let id = context.parameters.get("id", as: Int.self),
                  let body = try await store.detail(id: id) else {
                throw HTTPError(.notFound, message: "No such product.")
            }
            return json(body)
        }

        router.get("thumbnails/:day/:key") { request, context in
            let path = "thumbnails/\(context.parameters.get("day") ?? "")/\(context.parameters.get("key") ?? "")"
            guard let key = await store.imageKey(atPath: path) else {
                throw HTTPError(.notFound, message: "No such object.")
            }
            // A revalidation of an image made before is answered without making it again.
            if let known = await store.images.knownValidators(key: key),
               isNotModified(etag: known.etag, lastModified: known.lastModified, request: request) {
                return Response(status: .notModified, headers: [.eTag: known.etag, .lastModified: known.lastModified,
                                                                .cacheControl: "public, max-age=86400"])
            }
            return thumbnail(try await store.images.image(key: key), request: request)
        }
        return router
    }

    private static func json(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The image, or 304 when the client's validators match.
    private static func thumbnail(_ image: CatalogImage, request: Request) -> Response {
        var headers: HTTPFields = [.eTag: image.etag, .lastModified: image.lastModified,
                                   .cacheControl: "public, max-age=86400"]
        if isNotModified(etag: image.etag, lastModified: image.lastModified, request: request) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = image.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: image.bytes))
    }

    static func isNotModified(etag: String, lastModified: String, request: Request) -> Bool {
        ConditionalRequest.isNotModified(ifNoneMatch: request.headers[.ifNoneMatch],
                                         ifModifiedSince: request.headers[.ifModifiedSince], etag: etag,
                                         modifiedAtSeconds: HTTPDateText.parse(lastModified))
    }
}
