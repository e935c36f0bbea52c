import WarmTestSupport
import XCTest

/// What a person reads in `warm help`: defaults as people write them, options grouped by purpose.
final class HelpPageTests: XCTestCase {
    /// Every command's help page (the list `HostileOptions` drives).
    func testNoHelpPageShowsASwiftValueAsADefault() {
        for command in HostileOptions.commands {
            let help = CommandParsing.help(command.path)
            XCTAssertTrue(help.contains("USAGE: warm \(command.path.joined(separator: " "))"), help)
            for dump in ["(seconds:", "(bytes:", "DurationArgument", "ByteCount", "Optional("] {
                XCTAssertFalse(help.contains(dump), "warm help \(command.path.joined(separator: " ")) shows \(dump)")
            }
        }
        let flat = CommandParsing.help(["run"]).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for shown in ["(default: 12h)", "(default: 7d)", "(default: 64 MiB)", "(default: 20s)", "(default: 30s)",
                      "(default: the number of cores)"] {
            XCTAssertTrue(flat.contains(shown), "warm run --help lacks \(shown)")
        }
        for option in ["--decode-concurrency <", "--measure-processes <"] {
            let entry = flat.components(separatedBy: option).dropFirst().first?.components(separatedBy: " --").first ?? ""
            XCTAssertTrue(entry.contains("the number of cores"), entry)
            XCTAssertNil(entry.range(of: #"\(default: \d+\)"#, options: .regularExpression),
                         "the core count of the machine that printed the help is no default: \(entry)")
        }
    }

    func testRunAndDemoHelpGroupOptionsByPurpose() {
        for command in ["run", "demo"] {
            let help = CommandParsing.help([command])
            var last = help.startIndex
            for title in ["THUMBNAILS:", "FRESHNESS AND PRUNING:", "FETCHING:", "DECODING:", "MEASURING:", "OUTPUT:"] {
                guard let found = help.range(of: "\n" + title + "\n", range: last..<help.endIndex) else {
                    return XCTFail("warm \(command) --help has no section \(title) after the previous one:\n\(help)")
                }
                last = found.upperBound
            }
            let fetching = Self.section("FETCHING:", of: help)
            for option in ["--concurrency", "--request-timeout", "--max-attempts", "--allow-host"] {
                XCTAssertTrue(fetching.contains(option), "\(command): \(option) is not under FETCHING")
            }
            XCTAssertTrue(Self.section("FRESHNESS AND PRUNING:", of: help).contains("--max-age <"))
            XCTAssertTrue(Self.section("OUTPUT:", of: help).contains("--log-format <"))
        }
        XCTAssertTrue(Self.section("SHARDING:", of: CommandParsing.help(["run"])).contains("--shards <"))
    }

    func testTheDemoCatalogAndTheOriginDefaultToDifferentPorts() throws {
        func defaultPort(_ command: [String]) -> String? {
            let help = CommandParsing.help(command).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard let option = help.range(of: "--port <port>") else { return nil }
            let rest = help[option.upperBound...]
            guard let start = rest.range(of: "(default: ") else { return nil }
            return String(rest[start.upperBound...].prefix { $0 != ")" })
        }
        let catalog = try XCTUnwrap(defaultPort(["serve"]))
        XCTAssertEqual(catalog, defaultPort(["demo"]), "warm serve is the demo's catalog: same port, same cache keys")
        XCTAssertNotEqual(catalog, defaultPort(["cache", "serve"]))
    }

    /// The lines of a help page from `title` to the next blank line.
    static func section(_ title: String, of help: String) -> String {
        guard let start = help.range(of: "\n" + title + "\n") else { return "" }
        let rest = help[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
    }
}
