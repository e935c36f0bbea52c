import Foundation
@testable import WarmSupport

/// A second implementation of the OpenMarket list API, for tests that need to
/// serve exact bytes: Python's http.server serving a snake_case catalog with
/// one product per file, each file's bytes as the product's thumbnail
/// (`/img/<name>`, no extension, so nothing is guessed from a name).
/// Bodies are served as they are, empty ones included.
final class StaticCatalogServer {
    let directory: URL
    let baseURL: URL
    private let child: ChildProcess
    private var stopped = false

    /// Writes `files` under `directory/site/img` and starts the server on a free loopback port.
    /// - Parameter products: each product's thumbnail file name in list order (nil: a product
    ///   without a thumbnail; a name may repeat: products sharing a URL); default one product per file.
    init(files: [(name: String, data: Data)], products: [String?]? = nil, directory: URL) throws {
        let site = directory.appendingPathComponent("site")
        let images = site.appendingPathComponent("img")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        for file in files {
            try file.data.write(to: images.appendingPathComponent(file.name))
        }
        let productNames: [String?] = products ?? files.map(\.name)
        let names = try JSONSerialization.data(withJSONObject: productNames.map { name -> Any in
            if let name { return name } else { return NSNull() }
        })
        try names.write(to: site.appendingPathComponent("names.json"))
        let script = directory.appendingPathComponent("static_catalog.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let portFile = directory.appendingPathComponent("port")
        child = try ChildProcess.spawn("/usr/bin/env", arguments: ["python3", script.path, site.path, portFile.path],
                                       environment: ProcessInfo.processInfo.environment,
                                       standardOutput: .file("/dev/null"), standardError: .file("/dev/null"))
        var port = ""
        for _ in 0..<200 where port.isEmpty {
            port = (try? String(contentsOf: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if port.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard !port.isEmpty, let url = URL(string: "http://127.0.0.1:\(port)") else {
            child.kill(SIGTERM)
            _ = child.waitForExit()
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the python catalog server did not start"])
        }
        self.directory = directory
        self.baseURL = url
    }

    /// Replaces the list the server serves from the next request on (a
    /// catalog that changes between runs); the image files stay.
    func setProducts(_ names: [String?]) throws {
        let data = try JSONSerialization.data(withJSONObject: names.map { name -> Any in
            if let name { return name } else { return NSNull() }
        })
        try data.write(to: directory.appendingPathComponent("site/names.json"), options: .atomic)
    }

    /// List pages answered with 503 from the next request on (empty: none).
    func failPages(_ pages: [Int]) throws {
        try JSONSerialization.data(withJSONObject: pages)
            .write(to: directory.appendingPathComponent("site/fail_pages.json"), options: .atomic)
    }

    /// Every list page answered with `status` and `body` from the next request on (an API that moved, or
    /// an HTML error page served with 200); nil: the catalog again.
    func answerList(status: Int, body: String, contentType: String = "text/html") throws {
        try JSONSerialization.data(withJSONObject: ["status": status, "body": body, "type": contentType])
            .write(to: directory.appendingPathComponent("site/list_answer.json"), options: .atomic)
    }

    /// Each product's detail carousel from the next request on: `GET /api/products/<1000 + index>` answers
    /// `{"id", "images": [{"id", "url", "thumbnail_url", "issued_at"}...]}` with the files `details[index]` names (a name
    /// with "://" is a URL as it is); a product not in `details`, or nil there, answers 404.
    func setDetails(_ details: [Int: [String]?]) throws {
        var byID: [String: Any] = [:]
        for (index, names) in details {
            guard let names else { continue }
            byID[String(1000 + index)] = names
        }
        try JSONSerialization.data(withJSONObject: byID).write(to: directory.appendingPathComponent("site/details.json"), options: .atomic)
    }

    /// The thumbnail URL of the file called `name`.
    func url(of name: String) -> String {
        baseURL.absoluteString + "/img/" + name
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        child.kill(SIGTERM)
        _ = child.waitForExit()
    }

    static let script = #"""
    import http.server, json, os, sys, urllib.parse
    site, port_file = sys.argv[1], sys.argv[2]
    def load(name, default):
        try:
            with open(os.path.join(site, name)) as f: return json.load(f)
        except FileNotFoundError: return default
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k): super().__init__(*a, directory=site, **k)
        def log_message(self, *a): pass
        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            if url.path.startswith("/api/products/"):
                names = load("details.json", {}).get(url.path.rsplit("/", 1)[1])
                host = "http://127.0.0.1:%d" % self.server.server_port
                if names is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps({"id": int(url.path.rsplit("/", 1)[1]), "name": "detail",
                                   "images": [{"id": i, "url": n if "://" in n else "%s/img/%s" % (host, n), "thumbnail_url": None,
                                               "issued_at": "2023-03-23T10:15:00"} for i, n in enumerate(names)]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if url.path != "/api/products": return super().do_GET()
            q = urllib.parse.parse_qs(url.query)
            page, per = int(q.get("page_no", ["1"])[0]), int(q.get("items_per_page", ["20"])[0])
            names = load("names.json", [])
            answer = load("list_answer.json", None)
            if answer:
                body = answer["body"].encode()
                self.send_response(answer["status"])
                self.send_header("Content-Type", answer["type"])
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if page in load("fail_pages.json", []):
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            host = "http://127.0.0.1:%d" % self.server.server_port
            products = [{"id": 1000 + i, "vendor_id": 7, "name": name or "no picture", "price": 1000,
                         "thumbnail": ("%s/img/%s" % (host, name)) if name else None, "created_at": "2023-03-23"}
                        for i, name in enumerate(names)]
            total, last = len(products), max(1, (len(products) + per - 1) // per)
            body = json.dumps({"page_no": page, "items_per_page": per, "total_count": total,
                               "last_page": last, "has_next": page < last, "has_prev": page > 1,
                               "pages": products[(page - 1) * per: page * per]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f: f.write(str(server.server_port))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()
    """#
}
