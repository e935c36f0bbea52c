import Foundation

/// What a slip of the keyboard or a bad template gives every value-taking option of every command, and the
/// commands driven with it: CLITests' HostileOptionTests launches the binary with each try; CommandTests checks
/// that every command is driven.
public enum HostileOptions {
    public static let values = ["inf", "nan", "-1", "0", "1e300", "99999999999999999999", "-9223372036854775808", "", "word"]

    /// Each command with arguments that let it pass validation and then finish fast: a catalog of one product, an
    /// empty cache directory, a small image. `IMAGE` is replaced by a real JPEG and `API` by the catalog's address.
    public static let commands: [(path: [String], base: [String])] = [
        (["run"], ["--api", "API", "--cache-dir", "cache", "--no-progress", "--max-attempts", "1"]),
        // Measuring nothing (a driven --compare comes later and wins), an accepted demo ends in about 2 s, not 5.
        (["demo"], ["--dir", "demo", "--products", "1", "--port", "0", "--no-progress", "--compare", "none"]),
        (["thumbnail"], ["IMAGE", "--out", "out"]),
        (["inspect"], ["IMAGE"]),
        (["serve"], ["--port", "0", "--products", "1"]),
        (["report"], ["--metrics", "missing.jsonl", "--out", "report"]),
        (["check"], ["--metrics", "missing.jsonl", "--baseline", "baseline.json"]),
        (["cache", "get"], ["cache", "http://127.0.0.1:9/a.jpg"]),
        (["cache", "merge"], ["cache"]),
        (["cache", "evict"], ["cache", "--max-size", "1MB"]),
        (["cache", "stats"], ["cache"]),
        (["cache", "verify"], ["cache"]),
        (["cache", "gc"], ["cache"]),
        (["cache", "serve"], ["cache", "--port", "0"]),
        (["cache", "export"], ["cache", "--out", "manifest.jsonl"]),
    ]

    /// Options `--help` hides (old spellings kept for a release), driven all the same.
    public static let hiddenOptions: [String: [String]] = ["cache serve": ["max-age"]]

    /// `warm demo`'s options that `warm run` lists too (the same `WarmCommand` option groups, parsed and validated by
    /// the same code) are driven through `run` only, where an accepted value runs a whole night against a catalog of
    /// one product (0.4 s) rather than the first seconds of a demo (which composes its photos and starts a catalog
    /// server first); `demo` drives its own (`--dir`, `--products`, the catalog's options).
    public static let drivenThrough: [String: String] = ["demo": "run"]

    public struct Try: Sendable {
        public var option: String
        public var arguments: [String]
    }

    /// Every hostile value for every value option `help` lists for each command (`--name value`, and
    /// `--name=value` for the values that start with a dash).
    public static func tries(image: String, api: String = "http://127.0.0.1:9/",
                             help: ([String]) throws -> String) rethrows -> [Try] {
        var tries: [Try] = []
        for command in commands {
            let name = command.path.joined(separator: " ")
            var options = valueOptions(in: try help(command.path)) + (hiddenOptions[name] ?? [])
            if let other = drivenThrough[name] {
                let there = Set(valueOptions(in: try help(other.split(separator: " ").map(String.init))))
                options.removeAll(where: there.contains)
            }
            let base = command.base.map { ["IMAGE": image, "API": api][$0] ?? $0 }
            for option in options {
                for value in values {
                    tries.append(Try(option: option, arguments: command.path + base + ["--" + option, value]))
                    if value.hasPrefix("-") { tries.append(Try(option: option, arguments: command.path + base + ["--\(option)=\(value)"])) }
                }
            }
        }
        return tries
    }

    /// `--name <value>` lines of a help page's OPTIONS (flags take no value).
    public static func valueOptions(in help: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"^\s+(?:-\w, )?--([a-z0-9-]+) <"#, options: [.anchorsMatchLines])
        let range = NSRange(help.startIndex..., in: help)
        let names = regex.matches(in: help, range: range).compactMap { Range($0.range(at: 1), in: help).map { String(help[$0]) } }
        return Array(Set(names)).sorted()
    }

    /// The names under a help page's SUBCOMMANDS.
    public static func subcommands(in help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("  See ") && !$0.isEmpty }
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                return line.split(separator: " ").first.map { String($0) }
            }
    }

    /// A try as a shell line, for failure messages.
    public static func line(_ arguments: [String]) -> String {
        "warm " + arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ")
    }
}
