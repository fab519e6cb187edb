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
