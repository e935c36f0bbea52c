import ArgumentParser
import Cache
import Downsample
import Foundation
import WarmSupport

struct CacheGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the path of the cached thumbnail for an image URL (exit 1 on a miss or a broken manifest).")

    @Argument(help: "The cache directory.")
    var directory: String

    @Argument(help: "The image URL as the API gives it (it is canonicalised).")
    var url: String

    @Option(help: "Longest side of the variant, in pixels.")
    var size: Int = DecodeTarget.defaultLongestSide

    @Option(help: "Format of the variant: jpeg, webp, avif or png (default: jpeg when several are cached, else the one there is).")
    var format: OutputFormat?

    func validate() throws {
        try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size")
    }

    func run() async throws {
        guard let path = try CacheAccess.reading(directory, checkingIntegrity: true, {
            try $0.path(for: url, longestSide: size, format: format)
        }) else {
            Console.error("miss: \(url) has no \(size) px \(format.map { $0.rawValue + " " } ?? "")variant in \(directory)")
            throw ExitStatus.failed
        }
        print(path)
    }
}
