import Foundation
import WarmSupport

extension CheckOutcome {
    /// JUnit XML for CI: one test case per baseline image (a missing or changed image is skipped), one per
    /// catalog-level figure, one for the comparison's coverage; each failure carries its sentences.
    func junitXML() -> String {
        var cases: [String] = images.map { image in
            let name = "image \(MetricsBaseline.Image.location(of: image.url))"
            switch image.state {
            case .missing: return Self.testCase("warm.check.images", name, skipped: "not in the metrics: not compared")
            case .changed: return Self.testCase("warm.check.images", name, skipped: "changed: other source bytes at this URL path, not compared")
            case .compared: return Self.testCase("warm.check.images", name, failures: image.regressions.map { ($0.kind.rawValue, $0.detail) },
                                                 output: image.warnings.map { "advisory: \($0.detail)" })
            }
        }
        cases += catalogFigures.map { figure in
            Self.testCase("warm.check.catalog", figure.name, failures: figure.regression.map { [("catalogFigure", $0.detail)] } ?? [],
                          skipped: figure.judged ? nil : "over \(figure.images) images, fewer than a catalog figure is judged over",
                          output: figure.warning.map { ["advisory: \($0.detail)"] } ?? [])
        }
        cases.append(Self.testCase("warm.check.coverage", "the metrics stand for the baseline",
                                   failures: shortfalls.map { ($0.kind.rawValue, $0.detail) }))
        let failed = cases.filter { $0.contains("<failure") }.count
        let skipped = cases.filter { $0.contains("<skipped") }.count
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="warm check" tests="\(cases.count)" failures="\(failed)" skipped="\(skipped)">
            <testsuite name="warm check" tests="\(cases.count)" failures="\(failed)" skipped="\(skipped)" errors="0">
            \(cases.joined(separator: "\n"))
            </testsuite>
            </testsuites>

            """
    }

    private static func testCase(_ className: String, _ name: String, failures: [(type: String, message: String)] = [],
                                 skipped: String? = nil, output: [String] = []) -> String {
        let open = "<testcase classname=\"\(escaped(className))\" name=\"\(escaped(name))\""
        if let skipped { return open + "><skipped message=\"\(escaped(skipped))\"/></testcase>" }
        guard !failures.isEmpty || !output.isEmpty else { return open + "/>" }
        let body = failures.map { "<failure type=\"\(escaped($0.type))\" message=\"\(escaped($0.message))\">\(escaped($0.message))</failure>" }
        let printed = output.isEmpty ? "" : "<system-out>\(escaped(output.joined(separator: "\n")))</system-out>"
        return open + ">" + body.joined() + printed + "</testcase>"
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The outcome as JSON for `--json`: `passed`, every regression, advisory warning and shortfall with its sentence, the catalog
    /// figures, each baseline image's state, the counts and the notes.
    func json() -> Data {
        struct Document: Encodable {
            var passed: Bool
            var regressions: [Regression]
            var warnings: [Regression]
            var shortfalls: [Shortfall]
            var catalogFigures: [CatalogFigure]
            var comparedImages, newImages, fixedImages, missingImages, changedImages: Int
            var images: [ImageResult]
            var notes: [String]
        }
        let document = Document(passed: passed, regressions: regressions, warnings: warnings, shortfalls: shortfalls, catalogFigures: catalogFigures,
                                comparedImages: comparedImages, newImages: newImages, fixedImages: fixedImages,
                                missingImages: count(.missing), changedImages: count(.changed), images: images, notes: notes)
        var data = (try? JSONEncoder.readable().encode(document)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }

    public func writeJUnit(to path: String) throws(MetricsFileError) {
        try MetricsFileError.write(Data(junitXML().utf8), to: path)
    }

    public func writeJSON(to path: String) throws(MetricsFileError) {
        try MetricsFileError.write(json(), to: path)
    }
}
