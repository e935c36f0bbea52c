import WarmTestSupport
import XCTest

/// What CLITests' HostileOptionTests drives, checked in the test process: every command (a new command fails
/// `testEveryListedCommandIsDriven` until it has an entry in `HostileOptions.commands`), and the value options
/// read from each help page; and the one option whose value has a grammar of its own.
final class HostileOptionParsingTests: XCTestCase {
    func testEveryListedCommandIsDriven() {
        var listed: Set<String> = []
        for command in [[], ["cache"]] {
            let names = HostileOptions.subcommands(in: CommandParsing.help(command)).filter { $0 != "help" }
            XCTAssertFalse(names.isEmpty, "warm help \(command.joined()): \(CommandParsing.help(command))")
            for name in names where !(command.isEmpty && name == "cache") {
                listed.insert((command + [name]).joined(separator: " "))
            }
        }
        let driven = Set(HostileOptions.commands.map { $0.path.joined(separator: " ") })
        XCTAssertEqual(listed.subtracting(driven), [], "commands without an entry in HostileOptions.commands")
    }

    func testAnOptionOmittedFromTheHelpPageIsNotDriven() {
        // The parser the tries come from must see a real option, and must not invent one.
        let run = HostileOptions.valueOptions(in: CommandParsing.help(["run"]))
        XCTAssertTrue(run.contains("concurrency") && run.contains("max-age") && run.contains("size"), "\(run)")
        XCTAssertFalse(run.contains("no-progress"), "a flag takes no value")
        XCTAssertFalse(HostileOptions.valueOptions(in: CommandParsing.help(["cache", "serve"])).contains("max-age"),
                       "the old spelling is hidden from help and driven through HostileOptions.hiddenOptions")
    }

    func testDemosSharedOptionsAreDrivenThroughRunAndItsOwnThroughDemo() {
        let tries = HostileOptions.tries(image: "small.jpg") { CommandParsing.help($0) }
        func driven(_ command: String) -> Set<String> { Set(tries.filter { $0.arguments[0] == command }.map(\.option)) }
        let (run, demo) = (driven("run"), driven("demo"))
        XCTAssertEqual(run.intersection(demo), [])
        for own in ["dir", "products", "port", "image-mix", "compare"] { XCTAssertTrue(demo.contains(own), "demo --\(own)") }
        for shared in ["concurrency", "max-age", "size", "user-agent", "log-level", "max-failed", "api", "shards"] {
            XCTAssertTrue(run.contains(shared), "run --\(shared)")
        }
        XCTAssertTrue(driven("serve").contains("products"), "serve drives its own options, shared with demo or not")
    }

    func testMeasureRepeatsTakesTwoOrThreePositiveCounts() {
        let report = ["report", "--metrics", "missing.jsonl", "--out", "report", "--measure-repeats"]
        for value in ["2,1,3,4", "2,,3", "1,0,1", "3"] {
            guard case .rejected(let status, let message) = CommandParsing.parse(report + [value]) else {
                XCTFail("\(value) was accepted")
                continue
            }
            XCTAssertEqual(status, 64, value)
            XCTAssertTrue(message.contains("--measure-repeats"), "\(value): \(message)")
        }
        for value in ["2,3", "1,1,1"] {
            XCTAssertEqual(CommandParsing.parse(report + [value]), .accepted, value)
        }
    }
}
