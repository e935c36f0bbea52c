import Foundation
import Hummingbird
import Servers
import WarmSupport

enum CatalogRoutes {
    static func router(store: CatalogStore, middleware: CatalogMiddleware) -> Router<CatalogRequestContext> {
        let router = Router(context: CatalogRequestContext.self)
        router.add(middleware: middleware)

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
            let upload = CatalogGenerator.isUpload(path: path)
            let (etag, lastModified) = try await store.images.validators(key: key, upload: upload)
            var headers: HTTPFields = [.eTag: etag, .lastModified: lastModified, .cacheControl: "public, max-age=86400"]
            if ConditionalRequest.isNotModified(ifNoneMatch: request.headers[.ifNoneMatch],
                                                ifModifiedSince: request.headers[.ifModifiedSince], etag: etag,
                                                modifiedAtSeconds: HTTPDateText.parse(lastModified)) {
                return Response(status: .notModified, headers: headers)
            }
            let image = try await store.images.image(key: key, upload: upload)
            headers[.contentType] = image.contentType
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: image.bytes))
        }
        return router
    }

    private static func json(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }
}
