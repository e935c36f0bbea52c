import WarmSupport

/// Shard `index` of `count` (0-based, as `JOB_COMPLETION_INDEX`), written `I/N`. By image (its canonical URL's
/// SHA-256), so each shard decides alone from the URL, whatever page it was found on (LAYOUT.md, "Shards").
public struct CacheShard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    let count: Int

    static let completionIndexVariable = "JOB_COMPLETION_INDEX"

    init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1 else { throw .badCount(count) }
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`--shard 2/8`).
    init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// `--shard I/N` (a `--shards` beside it must agree), else `--shards N` with `JOB_COMPLETION_INDEX`, else none
    /// (unsharded, whatever the environment).
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

    /// Scales the first 64 bits of a hex digest onto `0..<count` (multiply-high:
    /// contiguous, equal ranges of the hash space, no modulo bias).
    static func share(ofHash hexDigest: String, count: Int) -> Int {
        let prefix = UInt64(hexDigest.prefix(16), radix: 16) ?? 0
        return Int(prefix.multipliedFullWidth(by: UInt64(max(1, count))).high)
    }

    public func owns(_ url: CanonicalURL) -> Bool {
        count == 1 || Self.share(ofHash: SHA256Hex.digest(of: url.text), count: count) == index
    }

    public var description: String { "\(index)/\(count)" }

    /// `I-of-N`: the name of this shard's state directory under `shards/`.
    var directoryName: String { "\(index)-of-\(count)" }

    init?(directoryName: String) {
        guard let shard = try? CacheShard(parsing: directoryName.replacing("-of-", with: "/")),
              shard.directoryName == directoryName else { return nil }
        self = shard
    }
}

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
