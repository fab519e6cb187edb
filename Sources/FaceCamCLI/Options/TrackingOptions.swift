import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// Face ids from frame to frame (video and live).
struct TrackingOptions: ParsableArguments {
    @Flag(help: "Smooth each face's box over time (an exponential moving average keeping \(decimal(Self.smoothing)) of the box before).")
    var smooth = false

    /// --smooth's share of the smoothed box before that each new box keeps (`TrackerSettings.smoothing`).
    static let smoothing = 0.5

    @OptionGroup var grace: TrackGraceOptions

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
        FaceTracker(settings: TrackerSettings(grace: grace.frames(searchedEvery: every), smoothing: smooth ? Self.smoothing : nil))
    }
}

/// --track-grace (video, live, redact): how long a face's track outlives its last detection.
struct TrackGraceOptions: ParsableArguments {
    @Option(name: .customLong("track-grace"), parsing: .unconditional, help: ArgumentHelp(
        "Frames a face may go unfound and keep its track: its id (video, live), its mask (redact) (default: "
            + "\(TrackerSettings().grace), and where a video is read once, at least the frames between two searches, so that one "
            + "missed search keeps the track). "
            + "Frames passed over or dropped count. In a video file redact reads twice, a face that came or went in place "
            + "stays hidden this many frames beyond the frames not searched around it.",
        valueName: "N"))
    var given: Int?

    func validate() throws {
        if let given, given < 0 { throw ValidationError("--track-grace must be 0 or more") }
    }

    /// --track-grace, or its default (`TrackerSettings`'): beyond the frames not searched, in redaction's two passes.
    var frames: Int { given ?? TrackerSettings().grace }

    /// --track-grace, or its default and at least `every`, so that one missed search keeps the track.
    func frames(searchedEvery every: Int) -> Int {
        given ?? max(frames, every)
    }
}
