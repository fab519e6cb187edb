import Foundation
import Testing
@testable import FaceCam

struct VideoTests {
    @Test func readerReportsTheContainersFacts() throws {
        let reader = try VideoReader(path: FilePath(fixture("video/rotated.mp4")))
        #expect(reader.info.size == PixelSize(width: 512, height: 400))
        #expect(reader.info.framesPerSecond == 12)
        #expect(reader.info.frameCount == 24)
        #expect(reader.info.rotation == .right)
        var times: [Double] = []
        while let read = try reader.next(decodeEvery: 2) {
            #expect(read.index == times.count)
            #expect((read.frame != nil) == read.index.isMultiple(of: 2))
            times.append(read.time)
        }
        #expect(times.count == 24)
        #expect(reader.damage == nil)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 1.0 / 12) < 1e-3 })
    }

    /// Odd but valid videos, each made from a fixture clip with Debian's ffmpeg: containers whose frame count is an
    /// estimate or counts frames no player shows, frames OpenCV gives no time (the last of a B-frame stream, APNG's), a
    /// stream that starts at 10 s, other codecs. Each is read to the frame ffprobe counts, nothing is called damaged,
    /// and every frame's time is ffprobe's presentation time, measured from the first frame, within half a millisecond.
    /// (`video` reading them from standard input, and printing these times, is VideoCommandTests'.)
    @Test(arguments: [
        ("edited.mp4", ["-ss", "1.3", "-i", "{h264}", "-c", "copy"]),
        ("audio-longer.mkv", ["-i", "{clip}", "-f", "lavfi", "-i", "sine=d=4", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "aac"]),
        ("variable-rate.mkv", ["-i", "{clip}", "-vf", "setpts='if(lt(N,18),N/12,1.5+(N-18)/4)/TB'", "-fps_mode", "vfr", "-c:v", "libx264"]),
        ("second-stream-longer.mkv", ["-i", "{clip}", "-stream_loop", "1", "-i", "{clip}", "-map", "0:v", "-map", "1:v", "-c:v", "libx264"]),
        ("empty-leading-chunks.avi", ["-i", "{clip}", "-vf", "select=gte(n\\,20)", "-c:v", "mjpeg"]),
        ("b-frames.mp4", ["-i", "{clip}", "-c:v", "libx264", "-bf", "3"]),
        ("animated.apng", ["-i", "{clip}", "-plays", "0", "-f", "apng"]),
        ("animated.gif", ["-i", "{clip}"]),
        ("offset.ts", ["-i", "{clip}", "-c:v", "libx264", "-bf", "0", "-output_ts_offset", "10", "-f", "mpegts"]),
        // VP9 at libvpx's fastest settings: its default took 3 CPU-seconds here, what the test reads is the same.
        ("vp9.webm", ["-i", "{clip}", "-c:v", "libvpx-vp9", "-b:v", "500k", "-deadline", "realtime", "-cpu-used", "8"]),
    ])
    func oddValidVideosAreReadWholeAtTheirTimes(name: String, recipe: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-odd-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = fixture("video/pan-zoom.avi"), h264 = directory.appendingPathComponent("h264.mp4").path
        if recipe.contains("{h264}") {
            let made = try tool("/usr/bin/ffmpeg", ["-v", "error", "-i", clip, "-c:v", "libx264", h264])
            try #require(made.status == 0, "\(made.errors)")
        }
        let path = directory.appendingPathComponent(name).path
        let arguments = recipe.map { $0.replacingOccurrences(of: "{clip}", with: clip).replacingOccurrences(of: "{h264}", with: h264) }
        let made = try tool("/usr/bin/ffmpeg", ["-v", "error"] + arguments + [path])
        try #require(made.status == 0, "\(made.errors)")
        let probed = try tool("/usr/bin/ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        let stamps = probed.output.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        try #require(!stamps.isEmpty, "\(probed.output) \(probed.errors)")
        // The frames ffprobe decodes (MPEG-TS lists the stream again in its program; some containers add a comma).
        let counted = try tool("/usr/bin/ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        try #require(counted.output.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
            == stamps.count, "\(counted.output) against \(stamps.count) frames listed")
        let expected = stamps.map { $0 - stamps[0] }

        let reader = try VideoReader(path: FilePath(path))
        var times: [Double] = []
        while let read = try reader.next() {
            #expect(read.index == times.count && read.frame != nil, "\(name)")
            times.append(read.time)
        }
        #expect(reader.damage == nil && reader.lostFrames.isEmpty, "\(name)")
        #expect(times.count == expected.count, "\(name)")
        // ffprobe's times are in the container's time base (a millisecond in Matroska), facecam's from the frame rate.
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) <= 0.0005 }, "\(name): \(times) against \(expected)")
    }

    /// Passwords stay out of what is shown and out of file names, whatever characters they hold.
    @Test(arguments: [
        ("http://user:s3cret@host:8080/clips/a.mp4?x=1", "http://user:***@host:8080/clips/a.mp4?x=1", "a"),
        ("http://user:p@ss@127.0.0.1:8080", "http://user:***@127.0.0.1:8080", "127.0.0.1:8080"),
        ("rtsp://cam.local/stream", "rtsp://cam.local/stream", "stream"),
        ("rtsp://admin@cam.local:554/", "rtsp://admin@cam.local:554/", "cam.local:554"),
        ("http://host/a@b/c.ts", "http://host/a@b/c.ts", "c"),
    ])
    func urlsAreShownAndNamedWithoutTheirPassword(url: String, shown: String, stem: String) {
        let input = VideoInput(FilePath(url))
        #expect(input.description == shown)
        #expect(input.nameStem == stem)
    }

    @Test func aMissingFileNamesTheCall() {
        #expect {
            _ = try VideoReader(path: FilePath("/nonexistent/clip.mp4"))
        } throws: { error in
            "\(error)" == "/nonexistent/clip.mp4: cannot read (stat: No such file or directory)"
        }
    }
}
