import WarmSupport
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The engine behind `warm thumbnail`: one bad file yields an error naming it, the others still get done.
/// Memory: one thumbnail per file in flight; the decoder's workers read the inputs themselves.
public struct FileThumbnailer: Sendable {
    public struct Outcome: Sendable {
        public var input: String
        public var result: Result<Written, FileThumbnailError>
    }

    public struct Written: Sendable {
        public var output: String
        public var size: PixelSize
        public var outputBytes: Int
    }

    let request: ThumbnailRequest
    let outputDirectory: URL
    let format: OutputFormat
    let decoder: any ThumbnailDecoding

    /// The caller owns `decoder` and shuts it down after `run`.
    public init(target: DecodeTarget, outputDirectory: URL, format: OutputFormat,
                encoder: EncoderSettings, limits: DecodeLimits, decoder: any ThumbnailDecoding) {
        request = ThumbnailRequest(targets: [target], formats: [format], settings: encoder,
                                   limits: limits)
        self.outputDirectory = outputDirectory
        self.format = format
        self.decoder = decoder
    }

    /// Directories recursively (regular files, sorted); a missing path is kept, to become an error outcome later.
    public static func expandInputs(_ paths: [String]) -> [String] {
        let fileManager = FileManager.default
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            let found = fileManager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                               options: [.skipsHiddenFiles])
            var inDirectory: [String] = []
            while let url = found?.nextObject() as? URL {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    inDirectory.append(url.path)
                }
            }
            files += inDirectory.sorted()
        }
        return files
    }

    /// `<out>/<input base name>.<ext>`.
    private func outputPath(for input: String) -> String {
        let base = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return outputDirectory.appendingPathComponent(base + "." + format.fileExtension).path
    }

    /// `report` sees outcomes in completion order; the result is in input order.
    public func run(_ inputs: [String], report: @Sendable (Outcome) -> Void = { _ in }) async -> [Outcome] {
        var refusals = [FileThumbnailError?](repeating: nil, count: inputs.count)
        do {
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            // Two inputs with one base name would overwrite each other's output.
            var firstInputForOutput: [String: String] = [:]
            for (index, input) in inputs.enumerated() {
                let output = outputPath(for: input)
                if let first = firstInputForOutput[output] {
                    refusals[index] = .sameOutputAsAnotherInput(path: input, other: first, output: output)
                }
                firstInputForOutput[output] = firstInputForOutput[output] ?? input
            }
        } catch {
            let failure = FileThumbnailError.cannotCreateOutputDirectory(path: outputDirectory.path,
                                                                         reason: error.localizedDescription)
            refusals = refusals.map { _ in failure }
        }
        var outcomes = [Outcome?](repeating: nil, count: inputs.count)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func addNext() {
                guard next < inputs.count else { return }
                let (index, input, refusal) = (next, inputs[next], refusals[next])
                next += 1
                group.addTask {
                    if let refusal { return (index, Outcome(input: input, result: .failure(refusal))) }
                    return (index, Outcome(input: input, result: await self.thumbnail(input)))
                }
            }
            // Twice the cores keeps every decode worker busy while finished thumbnails are written.
            for _ in 0..<2 * Machine.cores { addNext() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                report(outcome)
                addNext()
            }
        }
        return outcomes.compactMap { $0 }
    }

    private func thumbnail(_ input: String) async -> Result<Written, FileThumbnailError> {
        let thumbnail: EncodedImage
        switch await decoder.thumbnails(of: .file(path: input), request) {
        case .success(let made): thumbnail = made.images[0]
        case .failure(.unreadableInput(let reason)): return .failure(.unreadable(path: input, reason: reason))
        case .failure(let error): return .failure(.decode(path: input, error))
        }
        let output = outputPath(for: input), data = thumbnail.data
        if let failure = await BlockingWork.run({ Self.replaceOutput(output, with: data) }) {
            return .failure(.unwritable(path: output, reason: "\(failure)"))
        }
        return .success(Written(output: output, size: thumbnail.size, outputBytes: thumbnail.data.count))
    }

    /// Through `AtomicFile` without its fsyncs: no reader sees half a file, and a run writes lost outputs again
    /// (bench/findings.md section 7). Blocking. Nil when the file is in place, else the call that failed and why.
    private static func replaceOutput(_ path: String, with data: Data) -> String? {
        do throws(AtomicFileError) {
            try AtomicFile.write(data, to: path, durable: false)
            return nil
        } catch {
            return "\(error.operation): \(String(cString: strerror(error.code)))"
        }
    }
}

public enum FileThumbnailError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case decode(path: String, DownsampleError)
    case unwritable(path: String, reason: String)
    case sameOutputAsAnotherInput(path: String, other: String, output: String)
    case cannotCreateOutputDirectory(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot be read: \(reason)"
        case .decode(let path, let error): return "\(path): \(error)"
        case .unwritable(let path, let reason): return "\(path): cannot be written: \(reason)"
        case .sameOutputAsAnotherInput(let path, let other, let output):
            return "\(path): skipped, its output \(output) is already the output of \(other)"
        case .cannotCreateOutputDirectory(let path, let reason):
            return "\(path): the output directory cannot be created: \(reason)"
        }
    }
}
