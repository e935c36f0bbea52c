import ArgumentParser
import Cache
import Foundation
import Pipeline

struct CacheVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that every cached file exists, decodes and matches its manifest row.",
        discussion: """
            Exit status 0 when clean, 1 when any entry is wrong; stray files (orphans, temp files) are listed and also fail. \
            A broken manifest (corrupt, truncated, a directory) is named with its repair: the next `warm run` on the directory rebuilds it.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    func run() async throws {
        let report = try CacheAccess.reading(directory, checkingIntegrity: true) {
            try $0.maintenance.verify(validator: CachedImageValidator.decodesCompletely)
        }
        for problem in report.problems { Console.error("problem: \(problem)") }
        for orphan in report.orphanFiles { Console.error("orphan file (no manifest row): \(orphan)") }
        for temporary in report.temporaryFiles { Console.error("temporary file left behind: \(temporary)") }
        print("\(directory): \(report.checkedCount) files checked, \(report.problems.count) problems, \(report.orphanFiles.count) orphans, \(report.temporaryFiles.count) temp files")
        if !report.isClean { throw ExitStatus.failed }
    }
}
