import ArgumentParser
import Downsample
import Foundation
import Pipeline
import WarmSupport

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Thumbnail image files with shrink-on-decode, on all cores, metadata stripped.",
        discussion: "Writes OUT/<input base name>.<format>. A file that fails is reported by name and the rest go on; the exit status is then 2.")

    @Argument(help: "Image files or directories (searched recursively). The format is read from the bytes, not the name.")
    var inputs: [String]

    @Option(help: "Longest side of the upright output, in pixels (never upscaled).")
    var size: Int = DecodeTarget.defaultLongestSide

    @Option(help: "Output directory (created if missing).")
    var out: String

    @Option(help: "Output format: jpeg, webp, avif or png.")
    var format: OutputFormat = .jpeg

    @Option(help: ArgumentHelp(QualityList.help, valueName: "quality"))
    var quality: QualityList?

    @Option(help: "Files decoded at once, one decode worker process each (default: the number of cores).")
    var concurrency: Int?

    @OptionGroup var decoder: DecoderOptions

    func validate() throws {
        try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size")
        if let concurrency { try OptionCheck.count(concurrency, in: 1...1024, option: "--concurrency") }
    }

    func run() async throws {
        let files = FileThumbnailer.expandInputs(inputs)
        guard !files.isEmpty else { throw ValidationError("No input files found in \(inputs.joined(separator: ", ")).") }
        let decoder = decoder.makeDecoder(workers: min(concurrency ?? Machine.cores, files.count))
        let thumbnailer = FileThumbnailer(
            target: DecodeTarget(longestSide: size), outputDirectory: URL(fileURLWithPath: out), format: format,
            encoder: (quality ?? QualityList()).resolved(), limits: DecodeLimits(maxPixels: self.decoder.maxPixels), decoder: decoder)
        let started = ContinuousClock.now
        let outcomes = await thumbnailer.run(files) { outcome in
            switch outcome.result {
            case .success(let written): print("\(outcome.input) -> \(written.output) (\(written.size), \(written.outputBytes) bytes)")
            case .failure(let error): Console.error("error: \(error)")
            }
        }
        await decoder.shutdown()
        let failed = outcomes.filter { if case .failure = $0.result { return true } else { return false } }.count
        let elapsed = ContinuousClock.now - started
        print("\(outcomes.count - failed) of \(outcomes.count) thumbnails written to \(out) in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))); \(failed) failed.")
        if failed > 0 { throw ExitStatus.someFailed }
    }
}

extension OutputFormat: ExpressibleByArgument {}
