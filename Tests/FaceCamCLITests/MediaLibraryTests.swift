import Foundation
import Testing

/// libFaceCamMedia.so, which facecam loads from beside itself (or ../lib/facecam/media) to read and write videos and
/// photographs other than JPEG: a binary without it still reads JPEGs, and says, for each input that needs it, in
/// one line naming the input, that the library cannot be loaded and what to do.
struct MediaLibraryTests {
    @Test func aBinaryWithoutItNamesEachInputThatNeedsItAndReadsTheRest() throws {
        let directory = try temporaryDirectory("media")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A copy, not a link: facecam looks beside the program the kernel ran.
        let binary = directory.appendingPathComponent("facecam")
        try FileManager.default.copyItem(at: facecamBinary, to: binary)
        let (png, jpeg, clip) = (fixture("images/astronaut.png"), fixture("images/two-faces.jpg"), fixture("video/pan-zoom.avi"))
        // facecam names the folder the kernel ran it from, symbolic links resolved.
        let missing = "facecam's media library cannot be loaded: \(directory.resolvingSymlinksInPath().path)/libFaceCamMedia.so (cannot open shared object file: "

        let photos = try run(binary, ["detect", "--detector", "haar", png, jpeg])
        #expect(photos.status == 1)
        #expect(photos.errorLines.count == 1 && photos.errorLines[0].hasPrefix("facecam: \(png): " + missing)
            && photos.errorLines[0].hasSuffix(") (reinstall facecam, or run make release in a source tree)"), "\(photos.stderr)")
        #expect(try photos.records().map { $0["source"] as? String } == [jpeg])

        let video = try run(binary, ["video", "--detector", "haar", clip])
        #expect(video.status == 1)
        #expect(video.errorLines.count == 1 && video.errorLines[0].hasPrefix("facecam: \(clip): " + missing), "\(video.stderr)")
        #expect(video.stdout.isEmpty)
    }

    /// A library of that name that is not facecam's own (libjpeg here) is loaded but not used.
    @Test func anotherLibraryUnderItsNameIsNotCalled() throws {
        let directory = try temporaryDirectory("media-other")
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appendingPathComponent("facecam")
        try FileManager.default.copyItem(at: facecamBinary, to: binary)
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libjpeg.so.62").resolvingSymlinksInPath(), to: directory.appendingPathComponent("libFaceCamMedia.so"))
        let png = fixture("images/astronaut.png")
        let photo = try run(binary, ["detect", "--detector", "haar", png])
        #expect(photo.status == 1)
        #expect(photo.errorLines.count == 1 && photo.errorLines[0].hasPrefix(
            "facecam: \(png): facecam's media library cannot be loaded: \(directory.resolvingSymlinksInPath().path)/libFaceCamMedia.so (not facecam's media library, or one built for another facecam); "),
            "\(photo.stderr)")
    }
}
