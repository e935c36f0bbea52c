import ArgumentParser
import Pipeline

/// How `warm run` and `warm demo` stop and when they fail (listed under OPTIONS).
struct RunControlOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "On SIGTERM or SIGINT, how long the images in flight may take before they are cancelled.",
        discussion: "Keep it under Kubernetes' terminationGracePeriodSeconds (30 s by default); a second signal exits at once."))
    var stopGrace = DurationArgument(seconds: 20)

    @Option(help: ArgumentHelp(
        "Images that may fail before the run fails (exit 2): a count (5) or a share of the images scheduled (1%).",
        discussion: "Failed images within it are still listed in the summary (failedImages) and counted by reason. "
            + "A product list not read whole is not covered: that run exits 6.", valueName: "count|percent"))
    var maxFailed: FailureBudget = .default
}
