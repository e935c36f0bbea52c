import ArgumentParser
import Downsample
import Foundation
import Pipeline
import WarmMetrics
import WarmSupport

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show each image's format, header and orientation, and what every decode strategy outputs and retains.")

    @Argument(help: "Image files or directories.")
    var inputs: [String]

    @Option(help: "Longest side of the upright output, in pixels.")
    var size: Int = DecodeTarget.defaultLongestSide

    @Flag(help: "Print a JSON array instead of text.")
    var json = false

    func validate() throws {
        try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size")
    }

    func run() async throws {
        var inspections: [ImageInspection] = []
        var failed = 0
        for file in FileThumbnailer.expandInputs(inputs) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let inspection = try ImageInspection.inspect(data, named: file, target: DecodeTarget(longestSide: size))
                inspections.append(inspection)
                if !json { print(Self.text(inspection)) }
            } catch {
                failed += 1
                Console.error("error: \(file): \(error)")
            }
        }
        if json {
            print(String(decoding: try JSONEncoder.readable().encode(inspections), as: UTF8.self))
        }
        if failed > 0 { throw ExitStatus.someFailed }
    }

    static func text(_ i: ImageInspection) -> String {
        var lines = ["\(i.input): \(i.format.rawValue), \(i.width)x\(i.height) as stored, \(i.bands) bands, \(i.colourSpace)\(i.hasAlpha ? " with alpha" : ""), orientation \(i.orientation), \(i.sourceBytes) bytes"]
        for kind in StrategyKind.allCases {
            guard let s = i.strategies[kind.rawValue] else { continue }
            let name = kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            lines.append("  \(name) \("\(s.outputWidth)x\(s.outputHeight)".padding(toLength: 10, withPad: " ", startingAt: 0)) retained \(s.retainedBytes) bytes")
        }
        return lines.joined(separator: "\n")
    }
}
