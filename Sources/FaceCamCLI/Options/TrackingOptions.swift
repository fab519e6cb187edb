import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation
import Synchronization

/// Face ids from frame to frame (video and live).
struct TrackingOptions: ParsableArguments {
    @Flag(help: "Smooth each face's box over time (an exponential moving average keeping half of the last box).")
    var smooth = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Source frames (not processed frames: frames skipped by --every or dropped count) a face may go undetected "
            + "before its id ends (default: \(TrackerSettings().grace), and at least --every, so that one missed detection keeps the id).",
        valueName: "N"))
    var trackGrace: Int?

    @Flag(help: ArgumentHelp(
        "Also write track events: a record when a face's id starts (enter) and ends (leave), and with --recognize when "
            + "its name changes (name). JSON Lines and text only."))
    var events = false

    @Option(help: ArgumentHelp(
        "Run this shell command (/bin/sh -c) for each event (enter, leave, name), with the event's JSON record on its standard input "
            + "and FACECAM_EVENT, FACECAM_ID, FACECAM_SOURCE, FACECAM_FRAME and FACECAM_TIME set (FACECAM_ZONE for a --zone's "
            + "events, FACECAM_IDENTITY with --recognize: the name, empty for someone unknown); in the background, never "
            + "holding detection up.",
        valueName: "command"))
    var onEvent: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --on-event: commands running at once, 1 to 64; later events wait, in order, up to \(EventHooks.queueLimit), and beyond are dropped and counted "
            + "(default: \(Self.onEventJobsDefault)).",
        valueName: "N"))
    var onEventJobs: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --on-event: seconds a command may run before it is killed and counted as failed (default: "
            + "\(decimal(Self.onEventTimeoutDefault))).", valueName: "seconds"))
    var onEventTimeout: Double?

    static let onEventJobsDefault = 4
    static let onEventTimeoutDefault = 10.0

    func validate() throws {
        try Self.validate(grace: trackGrace)
        if onEvent == nil, let option = [("--on-event-jobs", onEventJobs != nil), ("--on-event-timeout", onEventTimeout != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes --on-event: add --on-event COMMAND, or leave \(option) out")
        }
        if let onEvent, onEvent.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--on-event needs a command") }
        if let onEventJobs, !(1...64).contains(onEventJobs) { throw ValidationError("--on-event-jobs must be from 1 to 64") }
        if let onEventTimeout, !(onEventTimeout > 0 && onEventTimeout <= 3600) {
            throw ValidationError("--on-event-timeout must be more than 0 and at most 3600 s")
        }
    }

    /// --events has no place in CSV, whose rows are faces.
    func validate(with output: OutputOptions) throws {
        if events, !output.format.hasEvents {
            throw ValidationError("--events needs --format jsonl or text: \(output.format.rawValue.uppercased()) entries are faces, events have none")
        }
    }

    /// The tracker for frames taken every `every` source frames (1: each frame the source gives, as live takes them).
    func makeTracker(every: Int) -> FaceTracker {
        FaceTracker(settings: TrackerSettings(grace: Self.grace(given: trackGrace, every: every), smoothing: smooth ? 0.5 : nil))
    }

    /// --track-grace as given here and to redact, which declares its own with its own help.
    static func validate(grace: Int?) throws {
        if let grace, grace < 0 { throw ValidationError("--track-grace must be 0 or more") }
    }

    /// --track-grace, or its default (`TrackerSettings`'), and at least `every`, so that one missed detection keeps the id.
    static func grace(given: Int?, every: Int) -> Int {
        given ?? max(TrackerSettings().grace, every)
    }
}
