import ArgumentParser
import Cache
import Downsample
import Foundation
import Pipeline
import WarmSupport

/// A byte count given as `500000000`, `500MB`, `1.5GiB`, `64k`; refuses what an `Int` cannot hold,
/// so argument-parser names the option.
struct ByteCount: ExpressibleByArgument, Sendable {
    var bytes: Int

    init?(argument: String) {
        let units: [(String, Double)] = [("gib", 1_073_741_824), ("mib", 1_048_576), ("kib", 1024),
                                         ("gb", 1e9), ("mb", 1e6), ("kb", 1e3), ("g", 1e9), ("m", 1e6), ("k", 1e3), ("b", 1)]
        guard let value = scaledNumber(argument, units: units), value < Double(Int.max) else { return nil }
        bytes = Int(value)
    }

    init(bytes: Int) {
        self.bytes = bytes
    }

    /// `--help` shows a default as a person writes it (`64 MiB`, `100 MB`), not `ByteCount(bytes: 67108864)`:
    /// the largest unit that divides it, binary before decimal, and a form `init(argument:)` reads back.
    var defaultValueDescription: String {
        let units: [(String, Int)] = [("GiB", 1 << 30), ("GB", 1_000_000_000), ("MiB", 1 << 20), ("MB", 1_000_000),
                                      ("KiB", 1 << 10), ("kB", 1000)]
        guard let (unit, factor) = units.first(where: { bytes > 0 && bytes % $0.1 == 0 }) else { return "\(bytes)" }
        return "\(bytes / factor) \(unit)"
    }
}

/// `--max-cache-size 2GB` or `--max-cache-size 85%` (of the file system holding the cache directory).
struct CacheSizeArgument: ExpressibleByArgument, Sendable {
    var limit: CacheSizeLimit

    /// Any number before `%` parses; `validate(option:)` says what range is allowed, in a sentence.
    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast().trimmingCharacters(in: .whitespaces)), percent.isFinite else { return nil }
            limit = .shareOfVolume(percent / 100)
        } else {
            guard let size = ByteCount(argument: text) else { return nil }
            limit = .bytes(size.bytes)
        }
    }

    /// Rejects shares outside (0%, 100%] and, unless `allowsZero` (`warm cache evict`: empty the cache), 0 bytes (it
    /// would evict everything the run warmed), naming `option`.
    func validate(option: String, allowsZero: Bool = false) throws {
        switch limit {
        case .bytes(let bytes) where bytes == 0 && !allowsZero:
            throw ValidationError("\(option) must be positive (0 would evict everything the run warmed).")
        case .shareOfVolume(let share) where !(share > 0 && share <= 1):
            throw ValidationError("\(option) as a share of the cache's file system must be more than 0% and at most 100% "
                                  + "(e.g. 85%); got \(share * 100)%.")
        default:
            return
        }
    }

    /// In bytes for a cache at `directory`; a `statvfs` failure is a sentence naming the option and the directory.
    func bytes(forCacheAt directory: String, option: String) throws -> Int {
        do {
            return try limit.bytes(forCacheAt: directory)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }

    static let help = "bytes with an optional unit (500MB, 2GiB) or a share of the file system holding the cache "
        + "directory (85%, its total size read with statvfs when the command starts)"
}

/// A duration as seconds (`3600`) or `90s`, `30m`, `12h`, `7d`; refuses what a later conversion
/// could trap on (negative, non-finite, over a century).
struct DurationArgument: ExpressibleByArgument, Sendable {
    var seconds: Double

    init?(argument: String) {
        let units: [(String, Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        guard let value = scaledNumber(argument, units: units), value <= OptionCheck.maximumSeconds else { return nil }
        seconds = value
    }

    init(seconds: Double) {
        self.seconds = seconds
    }

    /// `--help` shows `12h`, `7d`, `30s` (the largest unit that divides it), not `DurationArgument(seconds: 43200.0)`.
    var defaultValueDescription: String {
        let units: [(String, Double)] = [("d", 86400), ("h", 3600), ("m", 60)]
        if seconds > 0, let (unit, factor) = units.first(where: { seconds.truncatingRemainder(dividingBy: $0.1) == 0 }) {
            return "\(Int(seconds / factor))\(unit)"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}

/// A finite, non-negative number with an optional unit suffix (the first of `units` it ends with), scaled.
private func scaledNumber(_ argument: String, units: [(suffix: String, factor: Double)]) -> Double? {
    let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
    let (suffix, factor) = units.first { text.hasSuffix($0.suffix) } ?? ("", 1)
    guard let number = Double(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), number.isFinite,
          number >= 0 else { return nil }
    return number * factor
}

/// Numeric option checks: a sentence naming the option (exit 64) instead of a trap at `Int(Double)` later.
enum OptionCheck {
    /// A century: longer than any timeout or age anyone means, far below
    /// what `Duration` and `Int` seconds hold.
    static let maximumSeconds: Double = 100 * 365 * 86400
    /// Longest side of an output, in pixels (libvips' own limit is 10,000,000).
    static let maximumSide = 100_000
    /// Pixels an image header may declare: 2^40, far above any real image.
    static let maximumPixels = 1 << 40
    /// Products a generated catalog may have.
    static let maximumProducts = 10_000_000

    /// A positive, finite number of seconds up to `maximumSeconds`.
    static func seconds(_ value: Double, option: String) throws {
        guard value.isFinite, value > 0, value <= maximumSeconds else {
            throw ValidationError("\(option) must be a positive number of seconds, at most \(Int(maximumSeconds)) (a century); got \(value).")
        }
    }

    /// A finite value in `range`.
    static func number(_ value: Double, in range: ClosedRange<Double>, option: String) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(option) must be a number from \(range.lowerBound) to \(range.upperBound); got \(value).")
        }
    }

    /// A count in `range` (workers, attempts, pixels...).
    static func count(_ value: Int, in range: ClosedRange<Int>, option: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be from \(range.lowerBound) to \(range.upperBound); got \(value).")
        }
    }
}

/// `--format jpeg,webp,avif`: one or more output formats (`OutputFormat.list`
/// parses them); the option may also be repeated.
struct FormatList: ExpressibleByArgument, Sendable {
    var formats: [OutputFormat]

    init?(argument: String) {
        guard let formats = OutputFormat.list(argument) else { return nil }
        self.formats = formats
    }

    static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) }

    /// How a list is written on the command line, for help texts: `jpeg,webp,avif`.
    static func names(_ formats: [OutputFormat]) -> String { formats.map(\.rawValue).joined(separator: ",") }
}

/// `--quality 82` (JPEG's) or `--quality jpeg=82,webp=88,avif=80` (each format on its own scale), 1-100 each.
struct QualityList: ExpressibleByArgument, Sendable {
    var jpeg: Int?
    var webp: Int?
    var avif: Int?

    init() {}

    init?(argument: String) {
        if let plain = Int(argument) {
            guard (1...100).contains(plain) else { return nil }
            jpeg = plain
            return
        }
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let value = Int(pair[1]), (1...100).contains(value) else { return nil }
            switch OutputFormat.list(pair[0]) {
            case [.jpeg]?: jpeg = value
            case [.webp]?: webp = value
            case [.avif]?: avif = value
            default: return nil
            }
        }
    }

    /// JPEG's quality, and the others' settings over the defaults.
    func resolved(webpEffort: Int? = nil, avifEffort: Int? = nil) -> EncoderSettings {
        EncoderSettings(jpegQuality: jpeg ?? EncoderSettings.defaultJPEGQuality, webpQuality: webp ?? EncoderSettings.defaultWebPQuality,
                                       webpEffort: webpEffort ?? EncoderSettings.defaultWebPEffort,
                                       avifQuality: avif ?? EncoderSettings.defaultAVIFQuality,
                                       avifEffort: avifEffort ?? EncoderSettings.defaultAVIFEffort)
    }

    static let help = "Encoder quality, 1-100 on each format's own scale: N sets JPEG's, jpeg=N,webp=N,avif=N (any of them) "
        + "each format's (default: jpeg=\(EncoderSettings.defaultJPEGQuality),webp=\(EncoderSettings.defaultWebPQuality),"
        + "avif=\(EncoderSettings.defaultAVIFQuality))."
    static let discussion = "The defaults give WebP and AVIF at least JPEG \(EncoderSettings.defaultJPEGQuality)'s median "
        + "SSIMULACRA2 on the demo catalog in fewer bytes (bench/findings.md, section 21)."
}

/// `--max-failed 5` or `--max-failed 1%`.
extension FailureBudget: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}
