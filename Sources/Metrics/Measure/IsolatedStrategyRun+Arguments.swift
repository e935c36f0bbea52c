import Downsample

/// The hidden `warm measure-strategy` command's command line, both sides of
/// it: the parent builds it with `commandLine` and the command parses it with
/// `init(arguments:)`, so the flags are spelt in this file only and the two
/// cannot drift (`IsolatedStrategyRunArgumentsTests` round-trips them).
///
/// Parsed by hand rather than with swift-argument-parser: only the parent
/// writes this line, and WarmMetrics should not depend on a CLI parser.
extension IsolatedStrategyRun {
    /// The subcommand's name, as `warm` registers it.
    public static let commandName = "measure-strategy"

    /// Why a `measure-strategy` command line cannot be read.
    public enum ArgumentsError: Error, Sendable, Equatable, CustomStringConvertible {
        case missingImage
        case missingStrategy
        case missingValue(flag: String)
        case unknownArgument(String)
        case invalidValue(flag: String, value: String)

        public var description: String {
            switch self {
            case .missingImage: "measure-strategy needs an image file."
            case .missingStrategy: "measure-strategy needs --strategy (naive, renderer or thumbnail)."
            case .missingValue(let flag): "\(flag) needs a value."
            case .unknownArgument(let argument): "measure-strategy does not know \(argument)."
            case .invalidValue(let flag, let value): "\(value) is not a valid value for \(flag)."
            }
        }
    }

    private enum Flag {
        static let strategy = "--strategy"
        static let size = "--size"
        static let maxPixels = "--max-pixels"
        static let maxBytes = "--max-bytes"
        static let peakMethod = "--peak-method"
    }

    /// The command line after the executable: `measure-strategy <image> --strategy ...`.
    public var commandLine: [String] { [Self.commandName] + arguments }

    /// The arguments after the command name.
    public var arguments: [String] {
        [imagePath, Flag.strategy, kind.rawValue, Flag.size, String(target.longestSide),
         Flag.maxPixels, String(limits.maxPixels), Flag.maxBytes, String(limits.maxEncodedBytes),
         Flag.peakMethod, preferredPeakMethod.rawValue]
    }

    /// The run `arguments` (after the command name) describe. Flags left out
    /// keep the defaults of `init(kind:imagePath:...)`, a 300 px target.
    public init(arguments: [String]) throws(ArgumentsError) {
        var image: String?
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                guard image == nil else { throw .unknownArgument(argument) }
                image = argument
                continue
            }
            guard [Flag.strategy, Flag.size, Flag.maxPixels, Flag.maxBytes, Flag.peakMethod].contains(argument) else {
                throw .unknownArgument(argument)
            }
            guard let value = rest.popFirst() else { throw .missingValue(flag: argument) }
            values[argument] = value
        }
        guard let image else { throw .missingImage }
        guard let strategy = values[Flag.strategy] else { throw .missingStrategy }
        var peakMethod = PeakMethod.freshProcess
        if let value = values[Flag.peakMethod] { peakMethod = try Self.parse(Flag.peakMethod, value, PeakMethod.init(rawValue:)) }
        let defaults = DecodeLimits.default
        self.init(kind: try Self.parse(Flag.strategy, strategy, StrategyKind.init(rawValue:)),
                  imagePath: image,
                  target: DecodeTarget(longestSide: try Self.positive(Flag.size, values[Flag.size]) ?? 300),
                  limits: DecodeLimits(
                    maxPixels: try Self.positive(Flag.maxPixels, values[Flag.maxPixels]) ?? defaults.maxPixels,
                    maxEncodedBytes: try Self.positive(Flag.maxBytes, values[Flag.maxBytes]) ?? defaults.maxEncodedBytes),
                  preferredPeakMethod: peakMethod)
    }

    private static func parse<T>(_ flag: String, _ value: String, _ make: (String) -> T?) throws(ArgumentsError) -> T {
        guard let parsed = make(value) else { throw .invalidValue(flag: flag, value: value) }
        return parsed
    }

    private static func positive(_ flag: String, _ value: String?) throws(ArgumentsError) -> Int? {
        guard let value else { return nil }
        guard let number = Int(value), number > 0 else { throw .invalidValue(flag: flag, value: value) }
        return number
    }
}
