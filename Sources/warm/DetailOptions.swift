import ArgumentParser
import Pipeline

/// Each product's detail carousel (`--help`'s "Detail images"): whether `warm run` and `warm demo` read it, at which
/// size its images are cached, and for how many products.
struct DetailOptions: ParsableArguments {
    /// Defaults written once, in `WarmConfiguration.Details`.
    private static let defaults = WarmConfiguration.Details()

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Also read each product's detail (GET /api/products/{id}) and warm every image of its carousel (default: off; the demo: on).",
        discussion: "With --api only. A detail that fails is a failed product, counted against --max-failed and listed in the summary; the run goes on, and prunes nothing."))
    var detailImages: Bool?

    @Option(help: "Longest side of a carousel image's cached variant, in pixels, in each --format: a phone's full-screen width.")
    var detailSize: Int = Self.defaults.longestSide

    @Option(help: ArgumentHelp(
        "Read the details of only the first this many products the list gives, newest first (default: all; the demo: \(DemoCommand.detailProducts)).",
        valueName: "products"))
    var detailLimit: Int?

    /// `defaults` without the flags.
    func settings(defaults: WarmConfiguration.Details = Self.defaults) -> WarmConfiguration.Details {
        WarmConfiguration.Details(enabled: detailImages ?? defaults.enabled, longestSide: detailSize,
                                  productLimit: detailLimit ?? defaults.productLimit)
    }

    func validate() throws {
        try OptionCheck.count(detailSize, in: 1...OptionCheck.maximumSide, option: "--detail-size")
        if let detailLimit { try OptionCheck.count(detailLimit, in: 1...OptionCheck.maximumProducts, option: "--detail-limit") }
    }
}
