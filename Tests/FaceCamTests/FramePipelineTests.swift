import Foundation
import Synchronization
import Testing
@testable import FaceCam

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

    /// The stage reports a live frame's capture counter and leaves the frame as it was when no picture is made.
    @Test func theStageCarriesTheCaptureAndPaintsOnlyForAPicture() throws {
        var frame = Frame(width: 64, height: 48)
        frame.pixels = [UInt8](repeating: 200, count: frame.pixels.count)
        let masks = PrivacyMasks(polygons: [[Point(x: 0, y: 0), Point(x: 64, y: 0), Point(x: 64, y: 48), Point(x: 0, y: 48)]])
        guard case .frame(let plain) = try job(3, frame: frame, capture: (41, 2.5)).run(with: OneFace(), masks: masks) else {
            Issue.record("no frame")
            return
        }
        #expect(plain.result.sequence == 41 && plain.capturedAt == 2.5 && plain.result.faces.count == 1)
        #expect(plain.shown.pixels.allSatisfy { $0 == 200 })
        var painting = try job(3, frame: frame)
        painting.paintMasks = true
        guard case .frame(let painted) = painting.run(with: OneFace(), masks: masks) else {
            Issue.record("no frame")
            return
        }
        // Every pixel's centre lies inside the mask covering the whole frame: all black, their alpha kept.
        #expect(painted.shown.pixels.enumerated().allSatisfy { $0.element == ($0.offset % 4 == 3 ? 200 : 0) })
        #expect(painted.image.pixels.allSatisfy { $0 == 200 })
    }

    /// Consumers see each frame once tracked (its face's track id, the same in both frames) and in order;
    /// a consumer's failure is one of the run's.
    @Test func theSinkHandsTrackedFramesToItsConsumers() throws {
        let recorder = Recorder(failing: .openCV("out of memory"))
        let lines = Mutex<[String]>([])
        let sink = ResultSink(writer: nil, tracker: FaceTracker(), consumers: [recorder], report: { line in lines.withLock { $0.append(line) } })
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
        let sink = ResultSink(writer: nil, consumers: [recorder], report: { _ in })
        sink.consume(.failure(.output(SystemError(call: "write", path: "out.jsonl", errno: ENOSPC))))
        sink.consume(try job(0).run(with: OneFace(), masks: PrivacyMasks(polygons: [])))
        #expect(sink.stopped && recorder.frames.withLock { $0.isEmpty })
    }

    /// Observes like a preview server: each frame processed, and the previews.
    private final class Watcher: LiveObserver {
        let seen = Mutex<(processed: [Int?], previews: [PixelSize])>(([], []))
        var wantsPreviews: Bool { true }
        func processed(_ result: FrameResult, latency: Double) { seen.withLock { $0.processed.append(result.faces.first?.id) } }
        func preview(_ preview: Frame, of result: FrameResult) { seen.withLock { $0.previews.append(preview.size) } }
    }

    /// live's outputs: observers are told of every frame with its track ids and handed its preview; every
    /// second frame is annotated, named by the capture's counter.
    @Test func liveOutputsAnnotateEveryNthFrameAndTellTheObservers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-live-outputs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let watcher = Watcher()
        let outputs = LiveOutputs(source: "camera", annotator: try Annotator(directory: directory), annotateEvery: 2, observers: [watcher])
        #expect(outputs.makesPictures)
        let sink = ResultSink(writer: nil, tracker: FaceTracker(), consumers: [outputs], report: { Issue.record("\($0)") })
        for sequence in 10..<15 {
            sink.consume(try job(sequence, capture: (sequence, monotonicSeconds())).run(with: OneFace(), masks: PrivacyMasks(polygons: [])))
            // One at a time, so that the queues drop nothing.
            sink.drain()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == ["frame-00000010.jpg", "frame-00000012.jpg", "frame-00000014.jpg"])
        let seen = watcher.seen.withLock { $0 }
        #expect(seen.processed == [1, 1, 1, 1, 1])
        #expect(seen.previews == Array(repeating: PixelSize(width: 64, height: 48), count: 5))
        #expect(sink.summary.failures == 0)
    }
}
