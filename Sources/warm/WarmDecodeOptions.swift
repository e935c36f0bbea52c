import ArgumentParser
import WarmSupport

/// How many images `warm run` and `warm demo` decode at once, and how (`--help`'s "Decoding").
struct WarmDecodeOptions: ParsableArguments {
    @Option(help: "Images decoded at once, one decode worker process each (default: the number of cores).")
    var decodeConcurrency: Int?

    @OptionGroup var decoder: DecoderOptions

    func validate() throws {
        if let decodeConcurrency { try OptionCheck.count(decodeConcurrency, in: 1...1024, option: "--decode-concurrency") }
    }

    var workers: Int { decodeConcurrency ?? Machine.cores }
}
