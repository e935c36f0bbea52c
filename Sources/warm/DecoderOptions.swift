import ArgumentParser
import WarmSupport
import Downsample
import Foundation

/// How `warm thumbnail`, `warm run` and `warm demo` decode: in worker
/// processes (the default) or in this process's threads, and what they refuse.
struct DecoderOptions: ParsableArguments {
    @Flag(help: "Decode in this process's threads instead of worker processes (no crash isolation, no SIMD).")
    var decodeInProcess = false

    @Option(help: ArgumentHelp("Address-space limit of each decode worker process (e.g. 2GiB); an image that needs more fails alone.",
                               valueName: "bytes"))
    var decoderMemoryLimit: ByteCount?

    @Option(help: "Time one image may take in a decode worker before it fails and the worker is restarted (a number is seconds).")
    var decodeTimeout = DurationArgument(seconds: DecodeWorkerPool.Configuration.defaultTimeoutSeconds)

    @Option(help: "Refuse images whose header declares more pixels than this.")
    var maxPixels: Int = DecodeLimits.default.maxPixels

    func validate() throws {
        try OptionCheck.seconds(decodeTimeout.seconds, option: "--decode-timeout")
        try OptionCheck.count(maxPixels, in: 1...OptionCheck.maximumPixels, option: "--max-pixels")
        if let limit = decoderMemoryLimit, limit.bytes < 64 << 20 {
            throw ValidationError("--decoder-memory-limit must be at least 64MiB (a worker's libraries alone take about that much address space).")
        }
    }

    /// The decoder for `workers` images at once: worker processes running this
    /// binary's hidden `decode-worker` command, or threads here.
    func makeDecoder(workers: Int) -> any ThumbnailDecoding {
        if decodeInProcess { return InProcessDecoder(concurrency: workers) }
        return DecodeWorkerPool(configuration: .init(
            command: [ChildProcess.currentExecutablePath(), DecodeWorkerCommand.configuration.commandName!],
            count: workers, memoryLimitBytes: decoderMemoryLimit?.bytes, timeoutSeconds: decodeTimeout.seconds))
    }
}

/// The child side of `DecodeWorkerPool` (hidden): decodes what its parent sends until it closes stdin.
struct DecodeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-worker",
        abstract: "Decode images sent on standard input (started by the commands that decode).",
        shouldDisplay: false)

    func run() throws {
        let status = DecodeWorkerProcess.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
