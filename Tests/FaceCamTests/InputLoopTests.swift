import Foundation
import Synchronization
import Testing
@testable import FaceCam
@testable import FaceCamCore

/// The one input loop, on scripted sources and on the fixtures' photographs and videos.
@Suite struct InputLoopTests {
    /// A source of `count` frames of `size`, stored turned by `stored`; it throws at frame `failAt` and reports `damage` once ended.
    private final class ScriptedSource: FrameSource {
        let name = "scripted"
        let frameSize: PixelSize
        let stored: Orientation
        let count: Int
        let failAt: Int?
        let damage: FaceCamError?
        /// From this frame on, frames come at `laterSize` (a file replaced while live plays it again).
        var resize: (at: Int, to: PixelSize)?
        /// At this frame a stop comes while the source reads (`stopped`), which then ends early, as a video file does.
        var stopAt: Int?
        private(set) var stopped = false
        private(set) var reads = 0

        init(count: Int, size: PixelSize = PixelSize(width: 64, height: 48), stored: Orientation = .up, failAt: Int? = nil, damage: FaceCamError? = nil) {
            self.count = count
            frameSize = size
            self.stored = stored
            self.failAt = failAt
            self.damage = damage
        }

        func orientation(given: Orientation?) -> Orientation { stored.followed(by: given ?? .up) }

        func next(shouldStop: () -> Bool) throws(FaceCamError) -> SourceFrame? {
            guard reads < count else { return nil }
            if reads == stopAt { stopped = true }
            if shouldStop() { return nil }
            if reads == failAt { throw .videoFrame(path: name, frame: reads, reason: "scripted") }
            defer { reads += 1 }
            let size = resize.map { reads >= $0.at ? $0.to : frameSize } ?? frameSize
            return SourceFrame(frame: Frame(width: size.width, height: size.height), index: 10 + reads, time: Double(reads) / 4)
        }
    }

    @Test func everyFrameBecomesAJobInOrderAndTheDamageIsSaidAtTheEnd() throws {
        let damage = FaceCamError.videoDamaged(path: "scripted", reason: "frame 12 was lost")
        let source = ScriptedSource(count: 4, damage: damage)
        let loop = InputLoop()
        let geometry = try loop.geometry(of: source)
        var jobs: [FrameJob] = []
        let end = try loop.read(source, geometry: geometry, shouldStop: { false }, submit: { jobs.append($0) })
        #expect(jobs.map(\.index) == [10, 11, 12, 13])
        #expect(jobs.map(\.time) == [0, 0.25, 0.5, 0.75])
        #expect(jobs.allSatisfy { $0.source == "scripted" && $0.detect && $0.capture == nil && $0.orientation == nil })
        guard case .ended(let said?) = end else { Issue.record("the damage was not said: \(end)"); return }
        #expect(said.description == damage.description)
    }

    @Test func aStopEndsTheReadingWithNothingSaidOfTheRest() throws {
        let source = ScriptedSource(count: 10, damage: .emptyVideo(path: "scripted"))
        let loop = InputLoop()
        var jobs: [FrameJob] = []
        let end = try loop.read(source, geometry: try loop.geometry(of: source), shouldStop: { jobs.count == 3 }, submit: { jobs.append($0) })
        #expect(jobs.count == 3 && source.reads == 3)
        guard case .stopped = end else { Issue.record("a stopped reading ended as \(end)"); return }
    }

    @Test func framesTheCommandPassesOverAreNotSubmitted() throws {
        let source = ScriptedSource(count: 6)
        let loop = InputLoop()
        var submitted: [Int] = []
        _ = try loop.read(
            source, geometry: try loop.geometry(of: source), shouldStop: { false },
            job: { $0.index % 2 == 0 ? $0 : nil }, submit: { submitted.append($0.index) })
        #expect(submitted == [10, 12, 14])
    }

    /// Redaction's first pass searches a video's last frame, known to be the last only once the next read finds none.
    @Test func theLastFramePassedOverMayStillBeSubmitted() throws {
        let loop = InputLoop()
        var submitted: [Int] = []
        let searchEveryThird: (FrameJob) -> FrameJob? = { $0.index % 3 == 1 ? $0 : nil }
        // 10 to 15: 10 and 13 searched, 15 passed over and then submitted, 11, 12 and 14 not.
        _ = try loop.read(ScriptedSource(count: 6), shouldStop: { false }, job: searchEveryThird, submittingLastPassedOver: true,
                          submit: { submitted.append($0.index) })
        #expect(submitted == [10, 13, 15])
        // Its last frame searched already (10 to 13): nothing more.
        submitted = []
        _ = try loop.read(ScriptedSource(count: 4), shouldStop: { false }, job: searchEveryThird, submittingLastPassedOver: true,
                          submit: { submitted.append($0.index) })
        #expect(submitted == [10, 13])
        // A frame that cannot be read ends the reading as its end would: the frame before it is the last read.
        submitted = []
        #expect(throws: InputLoop.Failure<FaceCamError>.self) {
            _ = try loop.read(ScriptedSource(count: 6, failAt: 3), shouldStop: { false }, job: searchEveryThird, submittingLastPassedOver: true,
                              submit: { submitted.append($0.index) })
        }
        #expect(submitted == [10, 12])
        // A stop is not an end, whether the loop or the source sees it: nothing more.
        submitted = []
        _ = try loop.read(ScriptedSource(count: 6), shouldStop: { submitted.count == 1 && submitted[0] == 10 }, job: searchEveryThird,
                          submittingLastPassedOver: true, submit: { submitted.append($0.index) })
        #expect(submitted == [10])
        submitted = []
        let stoppedWhileReading = ScriptedSource(count: 6)
        stoppedWhileReading.stopAt = 2
        _ = try loop.read(stoppedWhileReading, shouldStop: { stoppedWhileReading.stopped }, job: searchEveryThird, submittingLastPassedOver: true,
                          submit: { submitted.append($0.index) })
        #expect(submitted == [10])
    }

    /// Without a geometry given, the loop works out the source's, and a source the options do not fit ends before a frame.
    @Test func theGeometryIsTheSourcesUnlessGiven() throws {
        var sizes: [PixelSize] = []
        _ = try InputLoop(givenOrientation: .left).read(
            ScriptedSource(count: 1), shouldStop: { false }, submit: { sizes.append($0.geometry.previewSize) })
        #expect(sizes == [PixelSize(width: 48, height: 64)])
        let source = ScriptedSource(count: 2)
        #expect {
            _ = try InputLoop(settings: GeometrySettings(aperture: PixelRect(x: 0, y: 0, width: 100, height: 100))).read(
                source, shouldStop: { false }, submit: { sizes.append($0.geometry.previewSize) })
        } throws: { error in
            guard case InputLoop.Failure<FaceCamError>.geometry = error else { return false }
            return true
        }
        #expect(source.reads == 0 && sizes.count == 1)
    }

    @Test func aFrameThatCannotBeReadIsThrownAfterTheFramesBeforeIt() throws {
        let source = ScriptedSource(count: 5, failAt: 2)
        let loop = InputLoop()
        var submitted: [Int] = []
        #expect {
            _ = try loop.read(source, geometry: try loop.geometry(of: source), shouldStop: { false }, submit: { submitted.append($0.index) })
        } throws: { error in
            guard case InputLoop.Failure<FaceCamError>.source(let reason) = error else { return false }
            return "\(reason)" == "scripted: frame 2: scripted"
        }
        #expect(submitted == [10, 11])
    }

    @Test func aFrameOfAnotherSizeGetsTheGeometryOfItsSize() throws {
        let source = ScriptedSource(count: 4)
        source.resize = (at: 2, to: PixelSize(width: 32, height: 24))
        let loop = InputLoop()
        var sizes: [PixelSize] = []
        _ = try loop.read(source, geometry: try loop.geometry(of: source), shouldStop: { false }, submit: { sizes.append($0.geometry.frameSize) })
        #expect(sizes == [PixelSize(width: 64, height: 48), PixelSize(width: 64, height: 48), PixelSize(width: 32, height: 24), PixelSize(width: 32, height: 24)])

        // An aperture that fits the first size and not the second ends the reading, saying so.
        let again = ScriptedSource(count: 4)
        again.resize = (at: 2, to: PixelSize(width: 32, height: 24))
        let aperture = InputLoop(settings: GeometrySettings(aperture: PixelRect(x: 0, y: 0, width: 40, height: 30)))
        var submitted = 0
        #expect {
            _ = try aperture.read(again, geometry: try aperture.geometry(of: again), shouldStop: { false }, submit: { _ in submitted += 1 })
        } throws: { error in
            guard case InputLoop.Failure<FaceCamError>.geometry(let reason) = error else { return false }
            return "\(reason)".hasPrefix("scripted: the aperture does not fit")
        }
        #expect(submitted == 2)
    }

    /// 64x48 stored turned right, and the user's `left` after it: upright again, 64x48; `right` after it: upside down, 64x48.
    @Test func theSourcesOrientationComesFirstThenTheGivenOne() throws {
        let source = ScriptedSource(count: 1, stored: .right)
        #expect(try InputLoop().geometry(of: source).previewSize == PixelSize(width: 48, height: 64))
        #expect(try InputLoop(givenOrientation: .left).geometry(of: source).previewSize == PixelSize(width: 64, height: 48))
        #expect(try InputLoop(givenOrientation: .right).geometry(of: source).previewSize == PixelSize(width: 64, height: 48))
    }

    @Test func optionsThatDoNotFitASourceAreRefusedNamingIt() throws {
        let source = ScriptedSource(count: 1)
        let aperture = InputLoop(settings: GeometrySettings(aperture: PixelRect(x: 0, y: 0, width: 100, height: 100)))
        #expect { try aperture.geometry(of: source) } throws: { "\($0)".hasPrefix("scripted: the aperture does not fit") }
        let mask = InputLoop(masks: PrivacyMasks(polygons: [[Point(x: 0, y: 0), Point(x: 70, y: 0), Point(x: 0, y: 10)]]))
        #expect { try mask.geometry(of: source) } throws: { error in
            guard case FaceCamError.zone(let name, _) = error else { return false }
            return name == "scripted"
        }
    }

    /// portrait-6.jpg: 400x512 upright, stored turned so that EXIF orientation 6 makes it upright (Fixtures/README.md).
    @Test func aPhotographIsTurnedByItsEXIFUnlessAnOrientationIsGiven() throws {
        let source = try StillImageSource(path: FilePath(fixture("exif/portrait-6.jpg")))
        let loop = InputLoop()
        let geometry = try loop.geometry(of: source)
        #expect(geometry.previewSize == PixelSize(width: 400, height: 512))
        var jobs: [FrameJob] = []
        let end = try loop.read(source, geometry: geometry, shouldStop: { false }, submit: { jobs.append($0) })
        #expect(jobs.count == 1 && jobs[0].index == 0 && jobs[0].orientation?.rawValue == 6)
        guard case .ended(nil) = end else { Issue.record("a photograph ended as \(end)"); return }
        let given = InputLoop(givenOrientation: .up)
        #expect(try given.geometry(of: source).previewSize == PixelSize(width: 512, height: 400))
        #expect(source.reportedOrientation(given: .up) == .up)
    }

    /// rotated.mp4: 512x400 stored, 24 frames, rotation metadata of a quarter turn; damaged.mp4 loses frame 16 (Fixtures/README.md).
    @Test func aVideoIsTurnedByItsRotationAndSaysWhatItLost() throws {
        let rotated = VideoFileSource(reader: try VideoReader(path: FilePath(fixture("video/rotated.mp4"))), decodeEvery: 5)
        let loop = InputLoop()
        #expect(try loop.geometry(of: rotated).previewSize == PixelSize(width: 400, height: 512))
        // The file's rotation first, then the orientation given: with a mirror the two orders differ.
        let rotation = rotated.reader.info.rotation
        #expect(rotated.orientation(given: .upMirrored) == rotation.followed(by: .upMirrored))
        #expect(rotation.followed(by: .upMirrored) != Orientation.upMirrored.followed(by: rotation))
        var indices: [Int] = []
        let end = try loop.read(rotated, geometry: try loop.geometry(of: rotated), shouldStop: { false }, submit: { indices.append($0.index) })
        #expect(indices == [0, 5, 10, 15, 20])
        guard case .ended(nil) = end else { Issue.record("a whole video ended as \(end)"); return }

        let damaged = VideoFileSource(reader: try VideoReader(path: FilePath(fixture("video/damaged.mp4"))))
        var read: [Int] = []
        let damagedEnd = try loop.read(damaged, geometry: try loop.geometry(of: damaged), shouldStop: { false }, submit: { read.append($0.index) })
        #expect(read.count == 23 && !read.contains(16))
        guard case .ended(let damage?) = damagedEnd else { Issue.record("the lost frame was not said: \(damagedEnd)"); return }
        #expect("\(damage)".contains("frame 16 could not be decoded"))
    }

    /// live --source --realtime: each frame comes at its time on the clock, not before, and a stop is heard while one
    /// waits. crossing.avi: 10 frames/s, so its second frame is due 0.1 s after the first; the clock is moved by hand,
    /// half-way first, each time the source has gone to sleep on it.
    @Test func aFilePlayedInRealTimePresentsEachFrameAtItsTime() throws {
        let clock = ManualClock()
        clock.set(to: 100)
        let source = FileSource(reader: try VideoReader(path: FilePath(fixture("video/crossing.avi"))), realtime: true, clock: clock)
        let first = try #require(try source.next(shouldStop: { false }))
        #expect(first.index == 0 && first.capturedAt == 100)
        let moves = Mutex<[Double]>([])
        Thread {
            for time in [100.05, 100.1] {
                guard clock.waitForPending(1) else { return }
                moves.withLock { $0.append(time) }
                clock.set(to: time)
            }
        }.start()
        let second = try #require(try source.next(shouldStop: { false }))
        #expect(second.index == 1 && second.capturedAt == 100 + second.time)
        #expect(moves.withLock { $0 } == [100.05, 100.1] && clock.now == 100.1)

        let stop = Mutex(false)
        Thread {
            guard clock.waitForPending(1) else { return }
            stop.withLock { $0 = true }
            clock.set(to: 100.15)
        }.start()
        #expect(try source.next(shouldStop: { stop.withLock { $0 } }) == nil)
        #expect(clock.now == 100.15)
    }
}
