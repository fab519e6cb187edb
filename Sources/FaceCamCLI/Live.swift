import ArgumentParser
import Dispatch
import FaceCam
import FaceCamMQTT
import FaceCamRecognition
import FaceCamServe
import Foundation

extension CapturePixelFormat: ExpressibleByArgument {}
extension TrackEvent.Kind: ExpressibleByArgument {}

extension ServeAddress {
    /// `--serve`'s value, or a usage error saying what is wrong with it.
    static func parsed(_ text: String) throws -> ServeAddress {
        if let address = ServeAddress(argument: text) { return address }
        if !text.hasPrefix("["), text.filter({ $0 == ":" }).count > 1 {
            throw ValidationError("an IPv6 host goes in brackets: [::1]:8080")
        }
        let port = text.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        throw ValidationError(port.allSatisfy(\.isNumber) && !port.isEmpty
            ? "the port is a number from 0 to 65535"
            : "write [HOST:]PORT, PORT a number from 0 to 65535 and HOST a name or address (\(ServeAddress.defaultHost) when left out)")
    }
}

struct Live: ParsableCommand, FrameOutputCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log faces from a V4L2 camera as they happen (or from a video file or stream played as a camera).",
        discussion: """
            Frames are captured on this thread and detected on a serial queue; while the detector \
            is busy, a newer frame replaces the waiting one, so the log stays about one frame \
            behind the camera. Ctrl-C or SIGTERM stops: the frames in hand are finished, the \
            output flushed and a summary printed on standard error. Exit statuses beyond 0, 1, \
            2 and 64: 3 camera busy, 4 no such device, 5 permission denied, 6 camera unplugged \
            while capturing, 7 nothing from the camera or the --source stream within --timeout, 8 not a \
            V4L2 capture device (or --output-device not an output device), 9 the run ended \
            before the --exit-on event.
            """ + guidePointer("docs/webcam.md", manual: "facecam-live"))

    @Option(help: ArgumentHelp(
        "The V4L2 capture device: a path (/dev/video2, or a stable name from facecam devices such as "
            + "/dev/v4l/by-id/...), or N for /dev/videoN (default: \(Self.defaultDevice)).",
        valueName: "path|N"))
    var device: String?

    @Option(help: ArgumentHelp(
        "Play this instead of a camera: a video file, a URL FFmpeg reads (http, https, rtsp, rtmp, udp, ...), or - for "
            + "standard input.",
        valueName: "file|URL|-"))
    var source: String?

    @Flag(help: "With --source, present frames at the file's own frame rate (else as fast as they decode).")
    var realtime = false

    @Flag(help: "With --source FILE, play it again from the start whenever it ends, until stopped (frame numbers go on).")
    var loop = false

    @Option(help: ArgumentHelp("Cameras only: the frame size to ask for.", valueName: "WxH"))
    var size: PixelSize?

    @Option(help: ArgumentHelp("Cameras only: the frame rate to ask for.", valueName: "N"))
    var fps: Int?

    @Option(help: ArgumentHelp(
        "Cameras only: the pixel format: auto (libv4l2 converts whatever it offers), mjpeg, yuyv, uyvy (default: "
            + "\(Self.defaultPixelFormat.rawValue)).", valueName: "format"))
    var pixelFormat: CapturePixelFormat?

    static let defaultPixelFormat = CapturePixelFormat.auto

    // Unconditional, so that "--frames -1" reaches validate() instead of reading as an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many frames captured.", valueName: "N"))
    var frames: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @OptionGroup var stream: StreamOptions

    @Option(help: ArgumentHelp(
        "End with status 0 at the first track event of this kind (enter: a face appears; leave: a face's id ends; name: "
            + "with --recognize, a face in view is taken for someone else, or no longer for anyone).",
        valueName: "event"))
    var exitOn: TrackEvent.Kind?

    @Option(help: ArgumentHelp(
        "Write every processed frame, at the camera's size, to this V4L2 output device (a v4l2loopback virtual "
            + "camera, for video calls), faces hidden with --redact, else outlined: a path, or N for /dev/videoN. "
            + "Writing never waits: when the device's reader is slow, frames are dropped there.",
        valueName: "path|N"))
    var outputDevice: String?

    @OptionGroup var annotateEvery: AnnotateEveryOptions

    @OptionGroup var serving: ServeOptions

    @Flag(help: "Show the preview in a desktop window; q or Esc (or closing it) stops as Ctrl-C does.")
    var show = false

    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Detector") var focus: FocusOptions
    @OptionGroup(title: "Faces reported") var faces: FaceReportOptions
    @OptionGroup(title: "Fast mode") var fastMode: FastModeOptions
    @OptionGroup(title: "Tracking") var tracking: TrackingOptions
    @OptionGroup(title: "Geometry") var geometry: GeometryOptions
    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "Output") var bestShot: BestShotOptions
    @OptionGroup(title: "Redaction") var redaction: PreviewRedactionOptions
    @OptionGroup(title: "Overlay") var overlay: OverlayOptions
    @OptionGroup(title: "Zones") var zones: ZoneOptions
    @OptionGroup(title: "Zones") var maskZones: MaskZoneOptions
    @OptionGroup(title: "MQTT and Home Assistant") var mqtt: MQTTOptions

    func validate() throws {
        if device != nil, source != nil { throw ValidationError("--device and --source exclude each other") }
        if output.format.isWholeAtRunEnd {
            throw ValidationError("--format \(output.format.rawValue) is a dataset written whole when a run ends, which live does not: "
                + "use \(ResultFormat.names { !$0.isWholeAtRunEnd })")
        }
        if source != nil, size != nil || fps != nil || pixelFormat != nil {
            throw ValidationError("--size, --fps and --pixel-format are for cameras, not --source")
        }
        if realtime, source == nil { throw ValidationError("--realtime goes with --source") }
        if loop, source == nil || source == "-" { throw ValidationError("--loop goes with --source FILE") }
        if let frames, frames < 1 { throw ValidationError("--frames must be 1 or more") }
        try geometry.refuseAutomaticOrientation(in: "live")
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let fps, fps < 1 { throw ValidationError("--fps must be 1 or more") }
        if let size, size.width < 1 || size.height < 1 { throw ValidationError("--size must be positive") }
        try validateFrameOutputs(clustering: nil)
        let previews = [
            ("--annotate", output.annotate != nil), ("--output-device", outputDevice != nil), ("--serve", serving.serve != nil),
            ("--show", show),
        ]
        if exitOn == .name, !faces.recognition.recognize {
            throw ValidationError("--exit-on name waits for a name --recognize gives: add --recognize")
        }
        if mqtt.mqttPersonHold != nil, !faces.recognition.recognize {
            throw ValidationError("--mqtt-person-hold tunes the person sensors --recognize adds: add --recognize")
        }
        try serving.validate(recognizing: faces.recognition.recognize)
        try redaction.validate(previews: previews)
        try overlay.validate(previews: previews, detector: detector, redacting: redaction.redact != nil)
    }

    func run() throws {
        let cameraName = MQTTOptions.cameraName(
            given: mqtt.name, device: devicePath, source: source.map { VideoInput(FilePath(argument: $0)) })
        // The one clock of the run: the source's pacing and stamps, the detector's latency, the hooks' and the server's
        // timeouts, MQTT's backoff and the --duration all read it.
        let clock: any MonotonicClock = SystemClock()
        if mqtt.mqttDiscovery == .remove { return try removeDiscovery(cameraName: cameraName, clock: clock) }
        let stop = StopRequest()
        try RunOutputs.refuseOverwriting(
            source.map { [FilePath(argument: $0)] } ?? [], by: output,
            gallery: RecognitionPlan.guarded(faces.recognition.galleryOptions, when: faces.recognition.recognize))
        if show, let problem = PreviewWindow.problem(display: ProcessInfo.processInfo.environment["DISPLAY"]) {
            throw Refusal.usage("--show cannot open a window: \(problem), or watch in a browser with --serve")
        }
        // Pictures and the people panel's token are read before any work: one that cannot be used is a usage error.
        let marking = try RunPictures.marking(overlay: overlay, redaction: redaction)
        let givenToken = try givenChangeToken()
        let input = try openSource(clock: clock)
        // The polygons are checked again only if a frame comes at another size.
        let inputLoop = geometry.inputLoop(zones: zones.settings, masks: maskZones.masks)
        let inputGeometry: PreviewGeometry
        do throws(FaceCamError) {
            inputGeometry = try inputLoop.geometry(of: input)
        } catch {
            // A polygon that does not fit is a usage error here, where the one source is known before any work.
            if case .zone(let source, let problem) = error { throw RunInputs.polygonOutside(problem, source: source) }
            throw Refusal.failure(error.advised)
        }
        // One detector on one serial queue: frames are detected one by one, in order.
        let reported = bestShot.implyingQuality(faces.report)
        let recognition = try RecognitionPlan.recognition(faces.recognition)
        let context = RunOutputs.context(detector: detector, faces: reported, video: true, recognition: faces.recognition)
        let detector = try DetectorPlan(detector, focused: focus.focused, jobs: 1, fast: fastMode.settings, live: true).build(zones: zones.settings, faces: reported)[0]
        let outputs = try RunOutputs(output, context: context)
        let detection = DetectionSwitch()
        let publisher = try startPublisher(
            cameraName: cameraName, detection: detection, people: recognition?.people ?? [], clock: clock)
        var events = RunOutputs.events(tracking, exitOn: exitOn, clock: clock)
        if let publisher { events.observers.append(publisher.event) }
        let board = serving.serve != nil && serving.servePeople
            ? recognition?.galleryPath.map { path in
                PeopleBoard(galleryPath: path, enrolled: recognition?.people ?? [], now: { Date().timeIntervalSince1970 })
            }
            : nil
        // Before the output device and the server open: a namer that cannot be made ends the run with neither opened.
        let trackingStage = FrameTracking(
            tracker: tracking.makeTracker(every: 1), namer: try recognition?.namer(following: true, board: board, clock: clock))
        let device = try openOutputDevice(size: input.frameSize)
        let server = try startServer(source: input.name, board: board, given: givenToken, clock: clock)
        defer {
            if let file = server?.tokenFile, unlink(file) != 0, errno != ENOENT {
                report("warning: cannot remove the token file \(FilePath(file)): \(String(cString: strerror(errno))); it is of no use now")
            }
        }
        let window = show ? PreviewWindow(title: "facecam: \(input.name)") : nil
        let liveOutputs = LiveOutputs(
            source: input.name, masks: maskZones.masks, marking: marking, annotator: outputs.annotator, annotateEvery: annotateEvery.interval, outputDevice: device,
            observers: [server?.server as (any LiveObserver)?, window, publisher].compactMap { $0 }, clock: clock)
        let sink = ResultSink(
            records: outputs.writer.map { RecordOutput(writer: $0) },
            tracking: trackingStage, events: events,
            crops: outputs.cropSaver.map { CropOutput(saver: $0, bestShotsOnly: bestShot.bestShot) }, consumers: [liveOutputs],
            minimumFaces: output.minFaces ?? 0, report: { report($0) })
        let feed = LiveFeed(detector: detector, sink: sink, detection: detection, masks: maskZones.masks, clock: clock)
        server?.server.attach(counts: {
            var counts = feed.counts()
            counts.mqtt = publisher?.counts
            return counts
        })

        let deadline = duration.map { clock.now + $0 }
        let finished = {
            stop.requested || deadline.map { clock.now >= $0 } == true || sink.stopped || window?.quitRequested == true
        }
        var captured = 0
        let cropStyle = output.cropStyleChosen
        var end = InputLoop.End.stopped
        var failure: Error?
        do {
            end = try Self.read(input, with: inputLoop, geometry: inputGeometry, shouldStop: { finished() || frames.map { captured >= $0 } == true }) { job in
                var job = job
                job.crops = cropStyle.map { CropRequest(style: $0, name: LiveOutputs.name(ofFrame: job.index)) }
                return job
            } submit: { job in
                feed.submit(job)
                captured += 1
            }
        } catch {
            failure = error
        }
        report(feed.finish(skipped: input.skipped).description)
        window?.close()
        server?.server.close()
        let windowFailure = window?.failure
        if let windowFailure { report(windowFailure) }
        if let device {
            report("wrote \(device.written) frames to \(device.path)"
                + (device.dropped > 0 ? ", dropped \(device.dropped) while its reader was behind" : ""))
        }
        // Live ends by a stop (a signal, --duration, --exit-on, --frames), or its source's end: either way a stop.
        sink.close(stopped: true)
        // After the sink: the leave events of the faces still in view are published too.
        if let publisher { report(publisher.close()) }
        if sink.reachedExitEvent { return }
        if let failure {
            report(advised(failure))
            throw (failure as? CaptureError)?.exitCode ?? (failure as? FaceCamError)?.liveExitCode ?? Status.failure
        }
        // A file played to its end says what it lost, as `video` does.
        if case .ended(let damage?) = end {
            report(damage)
            throw Status.failure
        }
        // The window failed (the results are whole): the run did not do all it was asked.
        if windowFailure != nil { throw Status.failure }
        try sink.summary.exitStatus()
        if let exitOn {
            let what = switch exitOn {
            case .enter: "no face entered"
            case .leave: "no face left"
            case .name: "no face in view changed its name"
            }
            report("\(what) before the end (--exit-on \(exitOn.rawValue))")
            throw ExitCode(9)
        }
    }

    /// The input loop over live's source, whichever kind it is; what it throws is the source's error or the geometry's.
    private static func read<Source: FrameSource>(
        _ source: Source, with loop: InputLoop, geometry: PreviewGeometry, shouldStop: () -> Bool, job: (FrameJob) -> FrameJob?,
        submit: (FrameJob) -> Void
    ) throws -> InputLoop.End {
        do {
            return try loop.read(source, geometry: geometry, shouldStop: shouldStop, job: job, submit: submit)
        } catch {
            throw error.underlying
        }
    }

    /// --mqtt: connects in the background and says where it publishes; nil without it.
    private func startPublisher(
        cameraName: String, detection: DetectionSwitch, people: [String], clock: any MonotonicClock
    ) throws -> MQTTPublisher? {
        guard let settings = try MQTTConnectionPlan.settings(mqtt, cameraName: cameraName) else { return nil }
        let publishing = mqtt.publishing(cameraName: cameraName, zones: zones.settings?.zones.map(\.name) ?? [], people: people)
        do {
            let publisher = try MQTTPublisher(
                connection: settings, publishing: publishing, detection: detection, clock: clock, report: { report($0) })
            report("publishing to \(settings.endpoint) under \(publishing.topicPrefix)/"
                + (publishing.discoveryPrefix.map { ", Home Assistant discovery under \($0)/" } ?? ""))
            return publisher
        } catch {
            throw Refusal.failure(advised(error))
        }
    }

    /// --mqtt-discovery remove: clears the configs and the retained state, then ends; status 1 when the
    /// broker did not acknowledge it all within --timeout.
    private func removeDiscovery(cameraName: String, clock: any MonotonicClock) throws {
        guard let settings = try MQTTConnectionPlan.settings(mqtt, cameraName: cameraName) else {
            preconditionFailure("validate() refuses --mqtt-discovery without a valid --mqtt URL")
        }
        // With --recognize, the person sensors of everyone enrolled now go too.
        let people = try RecognitionPlan.recognition(faces.recognition)?.people ?? []
        let publishing = mqtt.publishing(cameraName: cameraName, zones: zones.settings?.zones.map(\.name) ?? [], people: people)
        do {
            guard try MQTTPublisher.removeDiscovery(connection: settings, publishing: publishing, timeout: stream.timeout, clock: clock, report: { report($0) }) else {
                report("MQTT broker \(settings.endpoint): not all of \(publishing.topicPrefix)'s configs and state were removed "
                    + "within --timeout \(stream.timeout) s; run it again once the broker is reachable")
                throw Status.failure
            }
            report("removed the Home Assistant configs and the retained state of \(publishing.topicPrefix) from \(settings.endpoint)")
        } catch let error as MQTTError {
            report(advised(error))
            throw Status.failure
        }
    }

    /// The people panel's token from --serve-token-file or the environment, read before any work: one that cannot be
    /// used is one line and status 64. Nil when none is given, or changes are not taken.
    private func givenChangeToken() throws -> String? {
        guard serving.serve != nil, serving.serveAllowChanges else { return nil }
        do throws(ChangeToken.Failure) {
            if let file = serving.serveTokenFile { return try ChangeToken.read(file: file) }
            guard let token = ProcessInfo.processInfo.environment[ChangeToken.environmentVariable] else { return nil }
            let checked = try ChangeToken.checked(token, from: ChangeToken.environmentVariable)
            // facecam's alone: not handed to ffmpeg, --on-event commands or anything else it starts.
            unsetenv(ChangeToken.environmentVariable)
            return checked
        } catch {
            throw Refusal.usage(error.description)
        }
    }

    /// --serve, bound before the first frame, its address on stderr, with the people panel of `board` when given; with
    /// --serve-allow-changes, the token `given` (`givenChangeToken`), or else one made here and written to `tokenFile`
    /// (removed at the end). On failure one line and status 1.
    private func startServer(
        source: String, board: PeopleBoard?, given: String?, clock: any MonotonicClock
    ) throws -> (server: PreviewServer, tokenFile: String?)? {
        guard let address = serving.serve else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let token = serving.serveAllowChanges ? given ?? ChangeToken.generate() : nil
        let server: PreviewServer
        do {
            server = try PreviewServer(
                address: address, source: source, people: board.map { PeoplePanel(desk: $0, changeToken: token) },
                timeouts: PreviewServer.Timeouts(clock: clock))
        } catch {
            throw Refusal.failure(advised(error))
        }
        report("serving the preview at \(server.reachableURLs.joined(separator: ", "))")
        if server.address.isWildcard {
            report("warning: the preview is open to every network this machine is on: anyone who can reach port "
                + "\(server.address.port) sees the camera; --serve 127.0.0.1:\(server.address.port) keeps it on this machine")
        }
        guard let token else { return (server, nil) }
        if !server.address.isLoopback {
            report("warning: --serve-allow-changes on \(server.address): anyone on the network who has the token can change the "
                + "gallery, and over plain HTTP the token can be read on its way; --serve 127.0.0.1:PORT keeps it on this machine")
        }
        guard given == nil else {
            report("the people panel takes changes with the token of \(serving.serveTokenFile.map { FilePath($0).description } ?? ChangeToken.environmentVariable)")
            return (server, nil)
        }
        guard let path = ChangeToken.defaultPath(address: server.address, environment: environment) else {
            server.close()
            throw Refusal.usage("--serve-allow-changes: neither XDG_RUNTIME_DIR nor HOME says where to write the token: give --serve-token-file FILE")
        }
        do throws(SystemError) {
            try ChangeToken.write(token, to: path)
        } catch {
            server.close()
            throw Refusal.failure("--serve-allow-changes: cannot write the token: \(error)")
        }
        report("the people panel takes changes with the token in \(FilePath(path)) (readable by you only): open "
            + "\(server.reachableURLs[0])#token=TOKEN, or paste it into the page")
        return (server, path)
    }

    /// --device: a path, or N for /dev/videoN as v4l2-ctl's -d takes it.
    private var devicePath: String { device.map(Self.devicePath) ?? Self.defaultDevice }
    static let defaultDevice = "/dev/video0"

    private static func devicePath(_ argument: String) -> String {
        !argument.isEmpty && argument.allSatisfy({ $0.isASCII && $0.isNumber }) ? "/dev/video\(argument)" : argument
    }

    /// --output-device, opened for frames of `size`; refused with the error's status.
    private func openOutputDevice(size: PixelSize) throws -> V4L2OutputDevice? {
        guard let outputDevice else { return nil }
        do {
            return try V4L2OutputDevice(path: Self.devicePath(outputDevice), size: size)
        } catch {
            throw Refusal(line: advised(error), status: error.exitCode)
        }
    }

    /// The camera or file, opened; refused with the error's status.
    private func openSource(clock: any MonotonicClock) throws -> any FrameSource {
        if let source {
            do throws(FaceCamError) {
                let file = FilePath(argument: source)
                let reader = try RunInputs.open(file, maximumPixels: input.maximumVideoPixels, timeout: stream.timeout)
                let again: (() throws(FaceCamError) -> VideoReader)? = loop
                    ? { () throws(FaceCamError) in
                        try RunInputs.open(file, maximumPixels: input.maximumVideoPixels, timeout: stream.timeout, sayingRotation: false)
                    }
                    : nil
                return FileSource(reader: reader, realtime: realtime, reopen: again, clock: clock)
            } catch {
                throw Refusal(line: error.advised, status: error.liveExitCode)
            }
        }
        let path = devicePath
        do {
            let capture = try V4L2Capture(
                path: path, request: CaptureRequest(size: size, framesPerSecond: fps, pixelFormat: pixelFormat ?? Self.defaultPixelFormat))
            for adjustment in capture.adjustments { report("warning: \(adjustment)") }
            return CameraSource(capture: capture, name: path, timeout: stream.timeout, clock: clock)
        } catch {
            throw Refusal(line: advised(error), status: error.exitCode)
        }
    }
}

extension FaceCamError {
    /// A stream that stalls ends as a camera that stops sending does (7); anything else is 1.
    var liveExitCode: ExitCode {
        if case .streamStalled = self { ExitCode(7) } else { Status.failure }
    }
}

extension CaptureError {
    /// The documented exit status for each failure.
    var exitCode: ExitCode {
        switch self {
        case .busy: ExitCode(3)
        case .notFound: ExitCode(4)
        case .permissionDenied: ExitCode(5)
        case .deviceGone: ExitCode(6)
        case .timeout: ExitCode(7)
        case .notACaptureDevice, .notAnOutputDevice: ExitCode(8)
        case .unsupportedFormat: Status.usage
        case .system: Status.failure
        }
    }
}
