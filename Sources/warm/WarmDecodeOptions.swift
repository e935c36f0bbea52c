import ArgumentParser
import Pipeline
import WarmSupport

/// How many images `warm run` and `warm demo` decode at once, and how (`--help`'s "Decoding").
struct WarmDecodeOptions: ParsableArguments {
    @Option(help: "Images decoded at once, one decode worker process each (default: the number of cores).")
    var decodeConcurrency: Int?

    func validate() throws {
        if let decodeConcurrency { try OptionCheck.count(decodeConcurrency, in: 1...1024, option: "--decode-concurrency") }
    }

    /// With `decoder`'s `--max-pixels` (a group `warm thumbnail` shares).
    func settings(_ decoder: DecoderOptions) -> WarmConfiguration.Decoding {
        WarmConfiguration.Decoding(concurrency: decodeConcurrency ?? Machine.cores, maxPixels: decoder.maxPixels)
    }
}
