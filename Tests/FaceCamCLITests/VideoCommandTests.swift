import Foundation
import Testing

/// The per-frame lines of Fixtures/expectations.jsonl for one clip: what OpenCV's VideoCapture and
/// detectMultiScale (or FaceDetectorYN), called directly by Tests/Reference/opencv_faces.py, give for each frame.
func videoExpectations(_ clip: String, detector: String = "haar") throws
    -> [(frame: Int, time: Double, boxes: [[Int]], faces: [ReferenceFace])]
{
    let text = try String(contentsOf: repository.appendingPathComponent("Fixtures/expectations.jsonl"), encoding: .utf8)
    return try text.split(separator: "\n").compactMap { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        guard object["file"] as? String == clip, let frame = object["frame"] as? Int,
              (object["detector"] as? String ?? "haar") == detector
        else { return nil }
        return (frame, (object["time"] as! NSNumber).doubleValue, object["boxes"] as! [[Int]],
                (object["faces"] as? [[String: Any]] ?? []).map(ReferenceFace.init))
    }
}

struct VideoCommandTests {
    @Test(arguments: ["video/pan-zoom.avi", "video/rotated.mp4"])
    func everyFrameMatchesOpenCV(_ clip: String) throws {
        let expected = try videoExpectations(clip)
        try #require(expected.count > 20)
        let result = try facecam("video", "--detector", "haar", "Fixtures/" + clip)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == expected.count)
        for (record, expectation) in zip(records, expected) {
            #expect(record["source"] as? String == "Fixtures/" + clip)
            #expect(record["frame"] as? Int == expectation.frame)
            #expect(abs((record["time"] as! NSNumber).doubleValue - expectation.time) < 1e-6)
            #expect(boxes(record) == expectation.boxes, "frame \(expectation.frame)")
        }
    }

    /// YuNet on every frame, the rotated clip included: within a pixel and 0.01 of FaceDetectorYN called directly.
    @Test(arguments: ["video/pan-zoom.avi", "video/rotated.mp4"])
    func everyFrameMatchesOpenCVsYuNet(_ clip: String) throws {
        let expected = try videoExpectations(clip, detector: "yunet")
        try #require(expected.count > 20)
        let result = try facecam("video", "--detector", "yunet", "--quiet", "Fixtures/" + clip)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == expected.count)
        for (record, expectation) in zip(records, expected) {
            #expect(record["frame"] as? Int == expectation.frame)
            #expect(facesMatch(record, expectation.faces), "frame \(expectation.frame): \(record) against \(expectation.faces)")
            // Tracking gives YuNet's faces ids as it does Haar's.
            #expect((record["faces"] as! [[String: Any]]).allSatisfy { $0["id"] is Int })
        }
    }

    /// Progress for logs: with --progress lines, a line per file as it ends (and every 10 s on long
    /// ones), even though standard error is no terminal; by default, nothing there.
    @Test func progressLinesAreForLogs() throws {
        let clips = ["Fixtures/video/pan-zoom.avi", "Fixtures/video/crossing.avi"]
        let logged = try run(facecamBinary, ["video", "--progress", "lines", "--every", "2"] + clips)
        #expect(logged.status == 0)
        #expect(logged.errorLines.count == 2, "\(logged.stderr)")
        for (line, (clip, frames)) in zip(logged.errorLines, zip(clips, [18, 20])) {
            #expect(line.hasPrefix("facecam: \(clip): \(frames) of \(frames) frames, ") && line.hasSuffix(" frames/s, done"), "\(line)")
        }
        #expect(logged.lines.count == 38)
        let plain = try run(facecamBinary, ["video", "--every", "2"] + clips)
        #expect(plain.status == 0 && plain.stderr.isEmpty && plain.stdout == logged.stdout)
    }

    @Test func rotationMetadataIsAppliedThenOrientation() throws {
        // rotated.mp4 stores a 400x512 portrait turned a quarter left, as 512x400, and says "turn 90 clockwise".
        let upright = try facecam("video", "--every", "100", "Fixtures/video/rotated.mp4").records()
        #expect(upright.first?["size"] as? [Int] == [512, 400])
        #expect(upright.first?["preview_size"] as? [Int] == [400, 512])
        #expect(!boxes(upright[0]).isEmpty)
        // A further half turn: the preview is upside down, still 400x512, and the box maps to its mirror image.
        let turned = try facecam("video", "--every", "100", "--orientation", "down", "Fixtures/video/rotated.mp4").records()
        #expect(turned.first?["preview_size"] as? [Int] == [400, 512])
    }

    @Test func haarOutputIsByteIdenticalWhateverTheJobs() throws {
        let one = try facecam("video", "--detector", "haar", "--jobs", "1", "Fixtures/video/pan-zoom.avi")
        let two = try facecam("video", "--detector", "haar", "--jobs", "2", "Fixtures/video/pan-zoom.avi")
        let three = try facecam("video", "--detector", "haar", "--jobs", "3", "--threads", "2", "Fixtures/video/pan-zoom.avi")
        #expect(one.status == 0 && !one.stdout.isEmpty, "\(one.stderr)")
        #expect(one.stdout == two.stdout)
        #expect(one.stdout == three.stdout)
    }

    /// A network's sums run in another order on another number of OpenCV threads, so YuNet's output
    /// is byte-identical whatever the jobs for one thread count, and within 0.001 of it for another.
    @Test func yunetOutputIsByteIdenticalWhateverTheJobsOnOneThreadCount() throws {
        let clip = "Fixtures/video/pan-zoom.avi"
        let one = try facecam("video", "--jobs", "1", "--threads", "1", clip)
        let two = try facecam("video", "--jobs", "2", clip)
        let three = try facecam("video", "--jobs", "3", "--threads", "1", clip)
        #expect(one.status == 0 && !one.stdout.isEmpty, "\(one.stderr)")
        #expect(one.stdout == two.stdout)
        #expect(one.stdout == three.stdout)
        let threaded = try facecam("video", "--jobs", "1", "--threads", "2", clip).records()
        let single = try one.records()
        try #require(threaded.count == single.count && single.count == 36)
        for (a, b) in zip(threaded, single) {
            let (x, y) = (a["faces"] as! [[String: Any]], b["faces"] as! [[String: Any]])
            try #require(x.count == y.count)
            for (f, g) in zip(x, y) {
                #expect(zip(f["box"] as! [Int], g["box"] as! [Int]).allSatisfy { abs($0 - $1) <= 1 })
                #expect(abs((f["score"] as! Double) - (g["score"] as! Double)) <= 0.001)
                let points = zip(f["landmarks"] as! [[Double]], g["landmarks"] as! [[Double]])
                #expect(points.allSatisfy { abs($0[0] - $1[0]) <= 0.001 && abs($0[1] - $1[1]) <= 0.001 })
            }
        }
    }

    @Test func everyNthFrameOnly() throws {
        let expected = try videoExpectations("video/pan-zoom.avi").filter { $0.frame % 5 == 0 }
        let records = try facecam("video", "--detector", "haar", "--every", "5", "Fixtures/video/pan-zoom.avi").records()
        #expect(records.map { $0["frame"] as! Int } == expected.map(\.frame))
        #expect(records.map(boxes) == expected.map(\.boxes))
    }

    /// 4 KiB of noise in the middle of an MP4: frame 16 is lost; the frames before and after it are
    /// read, as OpenCV's VideoCapture reads them, and one line names the frame lost.
    @Test func damagedFramesAreSkippedAndNamedInOneLine() throws {
        let expected = try videoExpectations("video/damaged.mp4")
        let lost = Set(0..<24).subtracting(expected.map(\.frame)).sorted()
        try #require(lost == [16], "the fixture should lose frame 16: \(lost)")
        let result = try facecam("video", "--detector", "haar", "--quiet", "Fixtures/video/damaged.mp4")
        #expect(result.status == 1)
        let records = try result.records()
        #expect(records.map { $0["frame"] as! Int } == expected.map(\.frame))
        #expect(records.map(boxes) == expected.map(\.boxes))
        #expect(result.errorLines == ["facecam: Fixtures/video/damaged.mp4: frame 16 could not be decoded (damaged) and was skipped"])
        // Played as a camera, the file's damage is reported the same way.
        let live = try facecam("live", "--detector", "haar", "--source", "Fixtures/video/damaged.mp4")
        #expect(live.status == 1)
        #expect(live.errorLines.last == "facecam: Fixtures/video/damaged.mp4: frame 16 could not be decoded (damaged) and was skipped",
                "\(live.stderr)")
    }

    @Test func truncatedFileReportsItsFramesThenOneErrorThenGoesOn() throws {
        let directory = try temporaryDirectory("truncated")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try Data(contentsOf: URL(fileURLWithPath: fixture("video/pan-zoom.avi")))
        let truncated = directory.appendingPathComponent("truncated.avi").path
        try clip.prefix(clip.count * 6 / 10).write(to: URL(fileURLWithPath: truncated))
        let notVideo = directory.appendingPathComponent("notes.mp4").path
        try Data("not a video\n".utf8).write(to: URL(fileURLWithPath: notVideo))

        let result = try facecam("video", "--detector", "haar", truncated, notVideo, "Fixtures/video/rotated.mp4")
        #expect(result.status == 1)
        let records = try result.records()
        let fromTruncated = records.filter { $0["source"] as? String == truncated }
        let expected = try videoExpectations("video/pan-zoom.avi")
        #expect(fromTruncated.count > 5 && fromTruncated.count < expected.count)
        #expect(fromTruncated.map(boxes) == expected.prefix(fromTruncated.count).map(\.boxes))
        #expect(records.filter { $0["source"] as? String == "Fixtures/video/rotated.mp4" }.count == 24)
        #expect(result.errorLines == [
            "facecam: \(truncated): no frame can be read after frame \(fromTruncated.count - 1), but the file announces 36: "
                + "truncated or damaged",
            "facecam: \(notVideo): not a video facecam can read: FFmpeg cannot open it (Invalid data found when processing input)",
        ], "\(result.stderr)")
    }

    /// Truncation is what FFmpeg's demuxer or decoder reports: an MP4 (index first) cut exactly after its
    /// 20th packet, and the fixture AVI cut at 60%, are called truncated, also while an annotated video
    /// is written (opening its writer once took FFmpeg's log away from the count).
    @Test func cutFilesAreTruncatedWhateverIsWrittenBesideThem() throws {
        let directory = try temporaryDirectory("cut")
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try remadePanZoom("whole.mp4", in: directory, ["-c:v", "libx264", "-movflags", "+faststart"])
        let packets = try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "csv=p=0", whole])
        let twentieth = try #require(packets.lines.count > 20 ? packets.lines[19].split(separator: ",").compactMap { Int($0) } : nil)
        try #require(twentieth.count == 2)
        let mp4 = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cutMP4 = directory.appendingPathComponent("cut.mp4").path
        try mp4.prefix(twentieth[0] + twentieth[1]).write(to: URL(fileURLWithPath: cutMP4))
        let avi = try Data(contentsOf: URL(fileURLWithPath: fixture("video/pan-zoom.avi")))
        let cutAVI = directory.appendingPathComponent("cut.avi").path
        try avi.prefix(avi.count * 6 / 10).write(to: URL(fileURLWithPath: cutAVI))
        for (path, last) in [(cutMP4, 19), (cutAVI, 22)] {
            for extra in [[], ["--annotate-video", directory.appendingPathComponent("annotated.avi").path]] {
                let result = try run(facecamBinary, ["video", "--quiet"] + readingOnly + extra + [path])
                #expect(result.status == 1)
                #expect(try result.records().count == last + 1)
                #expect(result.errorLines == [
                    "facecam: \(path): no frame can be read after frame \(last), but the file announces 36: truncated or damaged"
                ], "\(extra): \(result.stderr)")
            }
        }
    }

    /// MPEG-TS announces duration x rate as its frame count: three clips joined hold three times what
    /// the first announces, and a clip of another size in the middle changes the stream's size. Every
    /// frame ffprobe counts is read, and nothing is called damaged.
    @Test func aStreamLongerThanItsContainerAnnouncesIsReadToTheEnd() throws {
        let directory = try temporaryDirectory("joined-ts")
        defer { try? FileManager.default.removeItem(at: directory) }
        func make(_ name: String, _ filters: [String]) throws -> Data {
            let path = try remadePanZoom(name, in: directory, filters + ["-c:v", "libx264", "-bf", "0", "-f", "mpegts"])
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let clip = try make("a.ts", []), smaller = try make("b.ts", ["-vf", "scale=320:240"])
        for (name, parts) in [("joined.ts", [clip, clip, clip]), ("resized.ts", [clip, smaller, clip])] {
            let path = directory.appendingPathComponent(name).path
            try parts.reduce(Data(), +).write(to: URL(fileURLWithPath: path))
            let frames = try probedFrameCount(path)
            #expect(frames == 108)
            let result = try facecam(["video", "--quiet", path] + readingOnly)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(name): \(result.stderr)")
            #expect(try result.records().map { $0["frame"] as! Int } == Array(0..<frames), "\(name)")
        }
    }

    /// Videos read from standard input, made from a fixture clip with Debian's ffmpeg (one with B-frames, whose last
    /// frame OpenCV gives no time): each is read to the frame ffprobe counts, nothing is called damaged, and every
    /// record's `time` is ffprobe's presentation time, measured from the first frame, within half a millisecond
    /// (facecam gives milliseconds). Odd files read by name are VideoTests' (FaceCamTests), in process.
    @Test(arguments: [
        ("standard-input.mkv", ["-c:v", "libx264"]),
        ("standard-input-b-frames-30.mkv", ["-vf", "fps=30", "-c:v", "libx264", "-bf", "3"]),
    ])
    func videosFromStandardInputAreReadWholeAtTheirTimes(name: String, recipe: [String]) throws {
        let directory = try temporaryDirectory("odd-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try remadePanZoom(name, in: directory, recipe)
        let frames = try probedFrameCount(path)
        let probed = try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        let stamps = probed.lines.compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        let expected = stamps.map { $0 - (stamps.first ?? 0) }
        try #require(expected.count == frames, "\(probed.stdout)")
        let result = try run(facecamBinary, ["video", "--quiet"] + readingOnly + ["-"], input: URL(fileURLWithPath: path))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(name): \(result.stderr)")
        let times = try result.records().map { ($0["time"] as! NSNumber).doubleValue }
        #expect(times.count == frames, "\(name)")
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) <= 0.0006 }, "\(name): \(times) against \(expected)")
    }

    /// A display matrix turning the video 45° (written into an MP4's track header here, as ffprobe then
    /// reports "rotation=-45"): facecam cannot turn frames by other than quarter turns, and says so on
    /// standard error, naming the input, while reading every frame as stored.
    @Test func aRotationThatIsNotAQuarterTurnIsReported() throws {
        let directory = try temporaryDirectory("rotated-45")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try remadePanZoom("tilted.mp4", in: directory, ["-frames:v", "5", "-c:v", "libx264"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tkhd = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("tkhd".utf8) })
        // A version-0 track header: the matrix (a b u c d v x y w) starts 44 bytes after its type.
        let cosine = Int32((0.5.squareRoot() * 65536).rounded())
        for (index, value) in [cosine, cosine, 0, -cosine, cosine, 0, 0, 0, 1 << 30].enumerated() {
            withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(tkhd + 44 + 4 * index..<tkhd + 48 + 4 * index, with: $0) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let probed = try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error", "-show_streams", path])
        try #require(probed.stdout.contains("rotation=-45"), "\(probed.stdout)")
        let result = try facecam(["video", "--quiet"] + readingOnly + [path])
        #expect(result.status == 0 && result.lines.count == 5, "\(result.stderr)")
        #expect(result.errorLines == [
            "facecam: warning: \(path): its metadata turns it 45° clockwise, not a quarter turn, which facecam does not apply: "
                + "frames and boxes are as stored (turn it with ffmpeg's rotate filter to detect it upright)",
        ])
    }

    @Test func annotatedFramesAndVideo() throws {
        let directory = try temporaryDirectory("annotate-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let frames = directory.appendingPathComponent("frames").path
        let video = directory.appendingPathComponent("annotated.avi").path
        let result = try facecam(
            "video", "--every", "2", "--annotate", frames, "--annotate-every", "5", "--annotate-video", video,
            "--preview", "320x240", "Fixtures/video/pan-zoom.avi")
        #expect(result.status == 0, "\(result.stderr)")
        // Detected frames are 0, 2, 4, ...; every fifth of those is saved.
        #expect(try FileManager.default.contentsOfDirectory(atPath: frames).sorted() == [
            "pan-zoom-000000.jpg", "pan-zoom-000010.jpg", "pan-zoom-000020.jpg", "pan-zoom-000030.jpg",
        ])
        // The annotated video holds every detected frame's preview, at the preview's size.
        let replay = try facecam("video", video).records()
        #expect(replay.count == 18)
        #expect(replay.first?["size"] as? [Int] == [320, 240])
    }
}
