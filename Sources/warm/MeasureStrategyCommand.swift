import ArgumentParser
import Downsample
import Foundation
import WarmMetrics

/// The child side of `PeakIsolation.childProcess`: measures one strategy once
/// on one image file in this fresh process and prints an
/// `IsolatedStrategyRun.Report` as one JSON line. Hidden: `warm run --compare`,
/// `warm demo` and `warm report` start it.
struct MeasureStrategyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-strategy",
        abstract: "Measure one decode strategy on one image in this process (started by the measuring commands).",
        shouldDisplay: false)

    @Argument(help: "Image file.")
    var image: String

    @Option(help: "naive, renderer or thumbnail.")
    var strategy: StrategyKind

    @Option(help: "Longest upright side, in pixels.")
    var size: Int = 300

    @Option(help: "Largest width x height accepted.")
    var maxPixels: Int = DecodeLimits.default.maxPixels

    @Option(help: "Largest encoded input accepted, in bytes.")
    var maxBytes: Int = DecodeLimits.default.maxEncodedBytes

    @Option(help: "fresh-process, vmhwm or vips-tracked.")
    var peakMethod: PeakMethod = .freshProcess

    func validate() throws {
        guard size > 0, maxPixels > 0, maxBytes > 0 else {
            throw ValidationError("--size, --max-pixels and --max-bytes must be positive.")
        }
    }

    func run() throws {
        let run = IsolatedStrategyRun(
            kind: strategy, imagePath: image, target: DecodeTarget(longestSide: size),
            limits: DecodeLimits(maxPixels: maxPixels, maxEncodedBytes: maxBytes), preferredPeakMethod: peakMethod)
        FileHandle.standardOutput.write(try JSONEncoder().encode(run.runHere()) + Data("\n".utf8))
    }
}

extension StrategyKind: ExpressibleByArgument {}
extension PeakMethod: ExpressibleByArgument {}
