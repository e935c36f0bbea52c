import Foundation
import WarmSupport

/// What a report's header says about where it came from: the command that wrote it, the build and the machine.
/// Provenance lives here, once, in every report `warm` writes (README and docs/ name the report, not the run).
struct ReportProvenance: Sendable, Equatable {
    var command: String
    var build: String
    var machine: String

    init(command: String, build: String, machine: String) {
        self.command = command
        self.build = build
        self.machine = machine
    }

    /// This process: its arguments (the binary named `warm`), warm's version and build mode, cores and kernel.
    static var current: ReportProvenance {
        let arguments = ["warm"] + CommandLine.arguments.dropFirst()
        let mode = WarmVersion.buildMode
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return ReportProvenance(
            command: arguments.joined(separator: " "),
            build: "warm \(WarmVersion.current) (\(mode) build)",
            machine: "\(Machine.cores) cores, \(machine), Linux \(release)")
    }

    /// One sentence for the report's summary.
    var sentence: String {
        "Written by `\(command)`, \(build), on \(machine)."
    }
}
