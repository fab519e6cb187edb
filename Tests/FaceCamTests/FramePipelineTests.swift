import Foundation
import Synchronization
import Testing
@testable import FaceCam
@testable import FaceCamCore

/// The frame pipeline's parts alone: the frame stage, the sink handing tracked frames to its
/// consumers, and live's outputs as one of them.
struct FramePipelineTests {
    /// A detector that finds one face, always in the same place.
    private final class OneFace: FrameFaceDetector {
        func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
            let box = PixelRect(x: 8, y: 8, width: 16, height: 16)
            return [Face(box: box, preview: geometry.bufferToPreview.apply(box.rect), score: 0.9)]
        }
    }

    /// Keeps what it is given; fails once when asked to.
    private final class Recorder: FrameConsumer {
        let frames = Mutex<[TrackedFrame]>([])
        let failing: FaceCamError?
        init(failing: FaceCamError? = nil) { self.failing = failing }
        func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void) {
            let first = frames.withLock { frames in
                frames.append(tracked)
                return frames.count == 1
            }
            if first, let failing { fail(failing) }
        }
        func drain() {}
    }

    private func job(_ index: Int, frame: Frame = Frame(width: 64, height: 48), capture: (Int, Double)? = nil) throws -> FrameJob {
        FrameJob(
            source: "clip", index: index, time: Double(index) / 10, frame: frame,
            geometry: try GeometrySettings().geometry(for: frame.size), capture: capture)
    }

    /// Frames in flight are bounded by their bytes as well as their count: with two jobs (four slots), frames of one
    /// slot go four at a time, frames of two slots two at a time, frames larger than all four one by one; all are
    /// delivered, in order.
    @Test(arguments: [(1, 4), (2, 2), (9, 1)])
    func largeFramesGoFewerAtATime(slotsPerFrame: Int, most: Int) throws {
        let frameBytes = 64 * 48 * 4
        let counts = Mutex((submitted: 0, delivered: 0, mostInFlight: 0, order: [Int]()))
        let pipeline = DetectionPipeline(detectors: [OneFace(), OneFace()], bytesPerSlot: frameBytes / slotsPerFrame) { completion in
            guard case .frame(let frame) = completion else { return }
            counts.withLock { $0.delivered += 1; $0.order.append(frame.result.frame) }
        }
        for index in 0..<12 {
            pipeline.submit(try job(index))
            counts.withLock { counts in
                counts.submitted += 1
                counts.mostInFlight = max(counts.mostInFlight, counts.submitted - counts.delivered)
            }
        }
        pipeline.finish()
        let seen = counts.withLock { $0 }
        #expect(seen.mostInFlight <= most)
        #expect(seen.order == Array(0..<12))
    }

    /// The stage reports a live frame's capture counter, paints the masks on the pictures it makes (the
    /// preview, the crops) and hands the frame on as it was.
    @Test func theStageCarriesTheCaptureAndPaintsThePicturesItMakes() throws {
        var frame = Frame(width: 64, height: 48)
        frame.pixels = [UInt8](repeating: 200, count: frame.pixels.count)
        let masks = PrivacyMasks(polygons: [[Point(x: 0, y: 0), Point(x: 64, y: 0), Point(x: 64, y: 48), Point(x: 0, y: 48)]])
        var job = try job(3, frame: frame, capture: (41, 2.5))
        job.renderPreview = true
        job.crops = CropRequest(style: .box(margin: 0), name: "frame")
        guard case .frame(let detected) = job.run(with: OneFace(), masks: masks) else {
            Issue.record("no frame")
            return
        }
        #expect(detected.result.sequence == 41 && detected.capturedAt == 2.5 && detected.result.faces.count == 1)
        // Every pixel's centre lies inside the mask covering the whole frame: all black.
        let black = { (picture: Frame) in picture.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 } }
        let preview = try #require(try detected.preview?.get())
        let crop = try #require(detected.crops?.images.first ?? nil)
        #expect(black(preview) && black(crop))
        #expect(detected.image.pixels.allSatisfy { $0 == 200 })
    }

    /// Consumers see each frame once tracked (its face's track id, the same in both frames) and in order;
    /// a consumer's failure is one of the run's.
    @Test func theSinkHandsTrackedFramesToItsConsumers() throws {
        let recorder = Recorder(failing: .openCV("out of memory"))
        let lines = Mutex<[String]>([])
        let sink = ResultSink(records: nil, tracking: FrameTracking(tracker: FaceTracker()), consumers: [recorder], report: { line in lines.withLock { $0.append(line.description) } })
        for index in 0..<2 { sink.consume(try job(index).run(with: OneFace(), masks: PrivacyMasks(polygons: []))) }
        let frames = recorder.frames.withLock { $0 }
        #expect(frames.map(\.frame.result.frame) == [0, 1])
        #expect(frames.map { $0.frame.result.faces.map(\.id) } == [[1], [1]])
        #expect(frames.map { $0.marks.faces.map(\.id) } == [[1], [1]])
        #expect(sink.summary.failures == 1 && sink.summary.frames == 2)
        #expect(lines.withLock { $0 } == ["OpenCV failed: out of memory"])
    }

    /// A sink that stopped (its results could not be written) hands nothing on.
    @Test func aStoppedSinkHandsNothingOn() throws {
        let recorder = Recorder()
        let sink = ResultSink(records: nil, consumers: [recorder], report: { _ in })
        sink.consume(.failure(.output(SystemError(call: "write", path: "out.jsonl", errno: ENOSPC))))
        sink.consume(try job(0).run(with: OneFace(), masks: PrivacyMasks(polygons: [])))
        #expect(sink.stopped && recorder.frames.withLock { $0.isEmpty })
    }

    /// Observes like a preview server: each frame processed, and the previews (their size, and the
    /// blue value of a pixel on the left and one on the right, away from the face).
    private final class Watcher: LiveObserver {
        let seen = Mutex<(processed: [Int?], previews: [PixelSize], leftAndRight: [[UInt8]])>(([], [], []))
        var wantsPreviews: Bool { true }
        func processed(_ result: FrameResult, latency: Double) { seen.withLock { $0.processed.append(result.faces.first?.id) } }
        func preview(_ preview: Frame, of result: FrameResult) {
            let pixels = [preview.pixels[40 * preview.bytesPerRow + 5 * 4], preview.pixels[40 * preview.bytesPerRow + 60 * 4]]
            seen.withLock { seen in
                seen.previews.append(preview.size)
                seen.leftAndRight.append(pixels)
            }
        }
    }

    /// live's outputs: observers are told of every frame with its track ids and handed its preview, the
    /// privacy mask painted on it; every second frame is annotated, named by the capture's counter.
    @Test func liveOutputsAnnotateEveryNthFrameAndTellTheObservers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-live-outputs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let watcher = Watcher()
        // The left half of the 64x48 preview.
        let mask = PrivacyMasks(polygons: [[Point(x: 0, y: 0), Point(x: 32, y: 0), Point(x: 32, y: 48), Point(x: 0, y: 48)]])
        let outputs = LiveOutputs(
            source: "camera", masks: mask, annotator: try Annotator(directory: directory), annotateEvery: 2, observers: [watcher])
        var grey = Frame(width: 64, height: 48)
        grey.pixels = [UInt8](repeating: 200, count: grey.pixels.count)
        let sink = ResultSink(records: nil, tracking: FrameTracking(tracker: FaceTracker()), consumers: [outputs], report: { Issue.record("\($0)") })
        for sequence in 10..<15 {
            sink.consume(try job(sequence, frame: grey, capture: (sequence, SystemClock().now)).run(with: OneFace(), masks: mask))
            // One at a time, so that the queues drop nothing.
            sink.drain()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == ["frame-00000010.jpg", "frame-00000012.jpg", "frame-00000014.jpg"])
        let seen = watcher.seen.withLock { $0 }
        #expect(seen.processed == [1, 1, 1, 1, 1])
        #expect(seen.previews == Array(repeating: PixelSize(width: 64, height: 48), count: 5))
        #expect(seen.leftAndRight == Array(repeating: [0, 200], count: 5))
        #expect(sink.summary.failures == 0)
    }

    private func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-pipeline-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func result(_ frame: Int, faces: [Face]) -> FrameResult {
        FrameResult(
            source: "clip", frame: frame, time: Double(frame) / 10, size: PixelSize(width: 64, height: 48),
            previewSize: PixelSize(width: 64, height: 48), faces: faces)
    }

    private func face(id: Int?, quality: Double? = nil) -> Face {
        var face = Face(box: PixelRect(x: 8, y: 8, width: 16, height: 16), preview: Rect(x: 8, y: 8, width: 16, height: 16), id: id)
        face.quality = quality
        return face
    }

    /// Puts every face in cluster 7, or fails.
    private final class Clusterer: FaceClustering {
        let fails: Bool
        init(fails: Bool) { self.fails = fails }
        func cluster(_ results: inout [FrameResult]) throws(FaceCamError) {
            if fails { throw .openCV("no memory for clustering") }
            for index in results.indices { results[index].faces = results[index].faces.map { var face = $0; face.cluster = 7; return face } }
        }
    }

    /// Clustered records are held until the run ends, then written in the order they came, the
    /// results' faces clustered; if clustering fails, they are written without clusters, the failure said.
    @Test(arguments: [false, true])
    func clusteredRecordsWaitForTheEndOfTheRun(clusteringFails: Bool) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/results.jsonl"
        let records = RecordOutput(writer: try ResultWriter(format: .jsonl, path: path), clusterer: Clusterer(fails: clusteringFails))
        try records.write(.result(result(0, faces: [face(id: 1)])))
        try records.write(.shot(BestShot(id: 1, source: "clip", frame: 0, time: 0, quality: 0.5, path: "shot.jpg")))
        try records.write(.result(result(1, faces: [face(id: 1)])))
        #expect(try String(contentsOfFile: path, encoding: .utf8).isEmpty)
        var failures: [String] = []
        let kept = try records.finish(stoppedEarly: false, report: { Issue.record("\($0)") }, fail: { failures.append($0.description) })
        #expect(kept == nil)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.map { $0["frame"] as? Int } == [0, 0, 1])
        #expect(lines.map { $0["event"] as? String } == [nil, "best_shot", nil])
        let clusters = [lines[0], lines[2]].map { (($0["faces"] as? [[String: Any]])?.first?["cluster"] as? Int) }
        #expect(clusters == (clusteringFails ? [nil, nil] : [7, 7]))
        #expect(failures == (clusteringFails ? ["OpenCV failed: no memory for clustering"] : []))
    }

    /// Best shots: a track's crop is kept while its quality beats the best so far, saved once, named
    /// after the frame it was best in.
    @Test func aTracksBestShotIsItsBestCropSavedOnce() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let crops = CropOutput(saver: try Annotator(directory: directory), bestShotsOnly: true)
        for (frame, quality) in [(0, 0.5), (1, 0.8), (2, 0.6)] {
            let cut = FaceCrops(name: "clip-\(frame)", images: [Frame(width: 16, height: 16)])
            crops.take(cut, of: result(frame, faces: [face(id: 1, quality: quality)]), fail: { Issue.record("\($0)") })
        }
        #expect(crops.tracksWithBestShots == [1])
        let shot = try #require(crops.bestShot(ofTrack: 1, fail: { Issue.record("\($0)") }))
        #expect(shot.frame == 1 && shot.quality == 0.8 && shot.path == directory + "/clip-1-id1.jpg")
        #expect(crops.bestShot(ofTrack: 1, fail: { Issue.record("\($0)") }) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["clip-1-id1.jpg"])
    }

    /// Fails at its second frame.
    private final class BrokenVideo: FrameOutput {
        var path: String { "out.mkv" }
        var appended = 0
        func append(_ frame: Frame, time: Double) throws(FaceCamError) {
            appended += 1
            if appended == 2 { throw .openCV("disk full") }
        }
        func finish() throws(FaceCamError) {}
    }

    /// A frame output that fails is said once and given up; the previews go on.
    @Test func aFailedFrameOutputIsGivenUpAfterOneLine() throws {
        let video = BrokenVideo()
        let previews = PreviewOutput(frames: video)
        var failures: [String] = []
        let shown = (0..<3).map { frame in
            previews.show(.success(Frame(width: 64, height: 48)), at: Double(frame), marks: PreviewMarks(faces: [face(id: nil)]),
                          annotationName: nil, fail: { failures.append($0.description) })
        }
        #expect(shown.map(\.written) == [1, 0, 0] && shown.map(\.outputFailed) == [false, true, false])
        #expect(failures == ["OpenCV failed: disk full"] && video.appended == 2)
    }

    /// Keeps every frame appended.
    private final class Collected: FrameOutput {
        var path: String { "out.mkv" }
        var frames: [Frame] = []
        func append(_ frame: Frame, time: Double) throws(FaceCamError) { frames.append(frame) }
        func finish() throws(FaceCamError) {}
    }

    /// Redaction's lookahead on white 32x32 previews, solid masks on the box (8, 8, 16, 16), its centre (16, 16) black
    /// when hidden. Preview i (source frame i) has the face of track `faces[i]` found, the tracks `predicted[i]`
    /// predicted (id, seen once), and `open[i]` still open once tracked. Returns which previews came out hidden, in
    /// order, and the masks counted.
    private func lookahead(
        frames held: Int, faces: [Int?], predicted: [[(id: Int, seenOnce: Bool)]], open: [Set<Int>]
    ) throws -> (hidden: [Bool], masks: Int) {
        let video = Collected()
        let settings = RedactionSettings(mode: .solid, shape: .box, scale: 1)
        let previews = PreviewOutput(marking: .redact(settings, outline: false), frames: video, lookahead: held)
        var white = Frame(width: 32, height: 32)
        white.pixels = white.pixels.map { _ in 255 }
        let place = Rect(x: 8, y: 8, width: 16, height: 16)
        var masks = 0
        let fail: (FaceCamError) -> Void = { Issue.record("\($0)") }
        for (index, id) in faces.enumerated() {
            var found: [Face] = []
            if let id { found = [Face(box: PixelRect(x: 8, y: 8, width: 16, height: 16), preview: place, id: id, score: 0.9)] }
            let marks = PreviewMarks(faces: found, predicted: predicted[index].map {
                FaceTracker.Prediction(id: $0.id, box: place, seenOnce: $0.seenOnce)
            })
            masks += previews.show(
                .success(white), at: Double(index), marks: marks, annotationName: nil, openTracks: open[index], fail: fail).masks
        }
        masks += previews.release(fail: fail).masks
        try #require(video.frames.count == faces.count)
        return (video.frames.map { $0.pixel(x: 16, y: 16) == BGRA(blue: 0, green: 0, red: 0) }, masks)
    }

    /// A face found at frame 0 alone, its track predicted at 1 to 3 and ended at 4 (a grace of 3): hidden at frame 0
    /// only; without a lookahead it would be hidden at 0 to 3.
    @Test func aFaceFoundOnceIsHiddenWhereFoundOnly() throws {
        let once = [(id: 1, seenOnce: true)]
        let result = try lookahead(
            frames: 3, faces: [1, nil, nil, nil, nil], predicted: [[], once, once, once, []], open: [[1], [1], [1], [1], []])
        #expect(result.hidden == [true, false, false, false, false] && result.masks == 1)
    }

    /// Found at 0 and again at 2: hidden at 1 between them, and at 3 after (its track now seen twice); the source ending
    /// at frame 1 instead leaves it found once, and 1 is not hidden.
    @Test func aFaceFoundAgainIsHiddenBetween() throws {
        let result = try lookahead(
            frames: 3, faces: [1, nil, 1, nil], predicted: [[], [(1, true)], [], [(1, false)]], open: [[1], [1], [1], [1]])
        #expect(result.hidden == [true, true, true, true] && result.masks == 4)
        let ended = try lookahead(frames: 3, faces: [1, nil], predicted: [[], [(1, true)]], open: [[1], [1]])
        #expect(ended.hidden == [true, false])
    }

    /// Found at 0, then at 2 where the tracker took it for someone new (track 2, as when a face moves or grows fast):
    /// a face centred where track 1 was predicted is that face found again, and 1 stays hidden.
    @Test func aFaceFoundAgainUnderAnotherTrackIsHiddenBetween() throws {
        let result = try lookahead(frames: 3, faces: [1, nil, 2], predicted: [[], [(1, true)], []], open: [[1], [1], [2]])
        #expect(result.hidden == [true, true, true])
    }

    /// With one frame held, each frame is released when the next comes: frames 1 and 2 are released while the track
    /// found at 0 alone is still open (it may yet be found), and stay hidden; 3 is released once it ended, and is not.
    @Test func aFaceThatMayStillBeFoundKeepsItsMasks() throws {
        let once = [(id: 1, seenOnce: true)]
        let result = try lookahead(
            frames: 1, faces: [1, nil, nil, nil, nil], predicted: [[], once, once, once, []], open: [[1], [1], [1], [1], []])
        #expect(result.hidden == [true, true, true, false, false])
    }
}

/// `SizeCheck` on a detector's faces (`FilteredDetector`), whatever the detector: what `SizeCheck.kept` keeps, in order.
struct FilteredSizeCheckTests {
    private final class Fixed: FrameFaceDetector {
        let faces: [Face]
        init(_ faces: [Face]) { self.faces = faces }
        func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] { faces }
    }

    /// A 10-tall face at 0.9 and, on its row, a 41-tall one at 0.2 (over 4 times: dropped) and a 40-tall one (kept).
    @Test func theFilterKeepsWhatTheCheckKeeps() throws {
        func face(x: Int, height: Int, score: Double) -> Face {
            let box = PixelRect(x: x, y: 100 - height / 2, width: height, height: height)
            return Face(box: box, preview: box.rect, score: score)
        }
        let faces = [face(x: 0, height: 10, score: 0.9), face(x: 50, height: 41, score: 0.2), face(x: 100, height: 40, score: 0.2)]
        let frame = Frame(width: 200, height: 200)
        let filter = FilteredDetector(Fixed(faces), SizeCheck.redaction)
        #expect(try filter.detect(in: frame, geometry: try GeometrySettings().geometry(for: frame.size)) == [faces[0], faces[2]])
    }
}

/// live's feed in process (the pipeline's newest-frame admission, and live's counts): frames offered while the detector is
/// busy are dropped to the newest, sequence gaps count as missed, frames while detection is switched off are let go, and
/// the sink gets what was processed, in order.
struct LiveFeedTests {
    /// Finds one face; the first frame waits for `gate`, as a slow detector would.
    private final class GatedDetector: FrameFaceDetector, Sendable {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        private let first = Mutex(true)
        func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
            let isFirst = first.withLock { isFirst in
                defer { isFirst = false }
                return isFirst
            }
            if isFirst {
                started.signal()
                gate.wait()
            }
            let box = PixelRect(x: 8, y: 8, width: 16, height: 16)
            return [Face(box: box, preview: geometry.bufferToPreview.apply(box.rect), score: 0.9)]
        }
    }

    private final class Recorder: FrameConsumer {
        let frames = Mutex<[Int]>([])
        func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void) {
            frames.withLock { $0.append(tracked.frame.result.frame) }
        }
        func drain() {}
    }

    private func frame(_ sequence: Int, capturedAt: Double = SystemClock().now) throws -> FrameJob {
        FrameJob(
            source: "camera", index: sequence, time: Double(sequence) / 10, frame: Frame(width: 64, height: 48),
            geometry: try GeometrySettings().geometry(for: PixelSize(width: 64, height: 48)), capture: (sequence, capturedAt))
    }

    @Test func framesOfferedWhileTheDetectorIsBusyAreDroppedToTheNewest() throws {
        let detector = GatedDetector()
        let recorder = Recorder()
        let sink = ResultSink(records: nil, tracking: FrameTracking(tracker: FaceTracker()), consumers: [recorder], report: { _ in })
        let feed = LiveFeed(detector: detector, sink: sink)
        feed.submit(try frame(0))
        #expect(detector.started.wait(timeout: .now() + 60) == .success)
        // Frame 0 is being detected: 1 to 4 wait in turn, each replacing the one before; 5 and 6 never came.
        for sequence in [1, 2, 3, 4, 7] { feed.submit(try frame(sequence)) }
        detector.gate.signal()
        let summary = feed.finish(skipped: 0)
        #expect(recorder.frames.withLock { $0 } == [0, 7])
        #expect(summary.captured == 6 && summary.processed == 2 && summary.dropped == 4 && summary.missed == 2)
        #expect(sink.summary.frames == 2 && sink.summary.faces == 2)
    }

    @Test func framesWhileDetectionIsOffAreLetGo() throws {
        let detector = GatedDetector()
        detector.gate.signal()
        let recorder = Recorder()
        let sink = ResultSink(records: nil, consumers: [recorder], report: { _ in })
        let detection = DetectionSwitch()
        let feed = LiveFeed(detector: detector, sink: sink, detection: detection)
        feed.submit(try frame(0))
        _ = feed.finish(skipped: 0)
        _ = detection.set(false)
        feed.submit(try frame(1))
        _ = feed.finish(skipped: 0)
        _ = detection.set(true)
        feed.submit(try frame(2))
        let summary = feed.finish(skipped: 3)
        #expect(recorder.frames.withLock { $0 } == [0, 2])
        #expect(summary.counts.skippedWhileOff == 1 && summary.processed == 2 && summary.skipped == 3)
        #expect(summary.description.contains("1 let go while detection was switched off; skipped 3 damaged buffers"))
    }

    /// The switch is asked when a frame's turn comes: the frame waiting when detection is switched off is let go, not
    /// detected, written or shown.
    @Test func theFrameWaitingWhenDetectionIsSwitchedOffIsLetGo() throws {
        let detector = GatedDetector()
        let recorder = Recorder()
        let sink = ResultSink(records: nil, consumers: [recorder], report: { _ in })
        let detection = DetectionSwitch()
        let feed = LiveFeed(detector: detector, sink: sink, detection: detection)
        feed.submit(try frame(0))
        #expect(detector.started.wait(timeout: .now() + 60) == .success)
        feed.submit(try frame(1))
        _ = detection.set(false)
        detector.gate.signal()
        let summary = feed.finish(skipped: 0)
        #expect(recorder.frames.withLock { $0 } == [0])
        #expect(summary.captured == 2 && summary.processed == 1 && summary.counts.skippedWhileOff == 1 && summary.dropped == 0)
    }

    /// Each latency runs from the frame's capture, carried through the frame stage, to the sink having it: frames taken
    /// 0.1, 0.2, ..., 2.0 s before the clock's reading give a mean of 1.05 s and a 95th percentile of 1.9 s (the 19th of 20).
    @Test func latenciesRunFromCaptureToTheSink() throws {
        let detector = GatedDetector()
        detector.gate.signal()
        let clock = ManualClock()
        clock.set(to: 100)
        let sink = ResultSink(records: nil, report: { _ in })
        let feed = LiveFeed(detector: detector, sink: sink, clock: clock)
        for tenths in 1...20 {
            feed.submit(try frame(tenths, capturedAt: 100 - Double(tenths) / 10))
            // One at a time, so that none is dropped.
            _ = feed.finish(skipped: 0)
        }
        let summary = feed.finish(skipped: 0)
        #expect(summary.processed == 20)
        #expect(abs(summary.meanLatency - 1.05) < 1e-9 && abs(summary.percentile95Latency - 1.9) < 1e-9)
        #expect(summary.description.hasSuffix("latency from capture to result: mean 1050 ms, 95th percentile 1900 ms"))
    }

    /// A failure handed to a newest-frame pipeline waits for the frame being run, and is never dropped.
    @Test func aFailureComesAfterTheFrameBeingRun() throws {
        let detector = GatedDetector()
        let delivered = Mutex<[String]>([])
        let pipeline = DetectionPipeline(detectors: [detector], admission: .newestFrame()) { completion in
            delivered.withLock { list in
                switch completion {
                case .frame(let frame): list.append("frame \(frame.result.frame)")
                case .shownOnly: list.append("shown")
                case .failure: list.append("failure")
                }
            }
        }
        pipeline.submit(try frame(0))
        #expect(detector.started.wait(timeout: .now() + 60) == .success)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { detector.gate.signal() }
        pipeline.submit(failure: .output(SystemError(call: "write", path: "results.jsonl", errno: ENOSPC)))
        pipeline.finish()
        #expect(delivered.withLock { $0 } == ["frame 0", "failure"])
    }
}
