import WarmSupport

/// One share of a sharded run: shard `index` of `count` (0-based, as
/// Kubernetes' `JOB_COMPLETION_INDEX`), written `I/N` on the command line.
///
/// The partition is by image: an image belongs to the shard its canonical URL's
/// SHA-256 falls into, so every shard decides alone, from the URL only, which
/// images are its own, whatever page they were found on. SHA-256 output is
/// uniform, so shares are equal within sampling noise (a test measures it).
public struct CacheShard: Sendable, Hashable, CustomStringConvertible {
    /// 0-based: `0..<count`.
    public let index: Int
    /// At least 1.
    public let count: Int

    /// The Kubernetes Indexed Job variable that names this pod's index.
    public static let completionIndexVariable = "JOB_COMPLETION_INDEX"

    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1 else { throw .badCount(count) }
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`--shard 2/8`).
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// The shard a run uses: `--shard I/N` when given (a `--shards` beside it
    /// must say the same N), else `--shards N` with the index from
    /// `JOB_COMPLETION_INDEX`, else none (an unsharded run, whatever the environment).
    public static func resolve(shard: String?, shards: Int?, environment: [String: String]) throws(ShardError) -> CacheShard? {
        if let shard {
            let parsed = try CacheShard(parsing: shard)
            if let shards, shards != parsed.count { throw .countsDisagree(shard: shard, shards: shards) }
            return parsed
        }
        guard let shards else { return nil }
        guard shards >= 1 else { throw .badCount(shards) }
        guard let text = environment[completionIndexVariable] else { throw .missingIndex(shards: shards) }
        guard let index = Int(text.trimmingWhitespace()) else { throw .malformedIndex(text) }
        return try CacheShard(index: index, count: shards)
    }

    /// The share (0..<count) an image with this canonical URL belongs to.
    public static func share(of url: CanonicalURL, count: Int) -> Int {
        share(ofHash: SHA256Hex.digest(of: url.text), count: count)
    }

    /// Scales the first 64 bits of a hex digest onto `0..<count` (multiply-high:
    /// contiguous, equal ranges of the hash space, no modulo bias).
    static func share(ofHash hexDigest: String, count: Int) -> Int {
        let prefix = UInt64(hexDigest.prefix(16), radix: 16) ?? 0
        return Int(prefix.multipliedFullWidth(by: UInt64(max(1, count))).high)
    }

    /// True when the image with this canonical URL is this shard's to warm.
    public func owns(_ url: CanonicalURL) -> Bool {
        count == 1 || Self.share(of: url, count: count) == index
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// `I-of-N`: the name of this shard's state directory under `shards/`.
    public var directoryName: String { "\(index)-of-\(count)" }

    /// Parses a directory name made by `directoryName`.
    public init?(directoryName: String) {
        guard let shard = try? CacheShard(parsing: directoryName.replacing("-of-", with: "/")),
              shard.directoryName == directoryName else { return nil }
        self = shard
    }
}

/// Why a shard specification is not usable.
public enum ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case badCount(Int)
    case indexOutOfRange(index: Int, count: Int)
    case countsDisagree(shard: String, shards: Int)
    case missingIndex(shards: Int)
    case malformedIndex(String)

    public var description: String {
        switch self {
        case .malformed(let text):
            return "the shard \"\(text)\" is not of the form I/N (e.g. 0/4)"
        case .badCount(let count):
            return "the number of shards must be at least 1, got \(count)"
        case .indexOutOfRange(let index, let count):
            return "the shard index \(index) is outside 0..<\(count) (indexes start at 0 and stay below the number of shards)"
        case .countsDisagree(let shard, let shards):
            return "--shard \(shard) and --shards \(shards) name different numbers of shards"
        case .missingIndex(let shards):
            return "--shards \(shards) needs the shard index: give --shard I/\(shards) or set \(CacheShard.completionIndexVariable) (a Kubernetes Indexed Job sets it)"
        case .malformedIndex(let text):
            return "\(CacheShard.completionIndexVariable)=\"\(text)\" is not a whole number"
        }
    }
}
