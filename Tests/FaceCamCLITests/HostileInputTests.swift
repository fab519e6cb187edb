import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Files an attacker or an unlucky user hands facecam, made fresh for each test.
struct HostileFiles {
    let directory: URL

    init(_ name: String) throws {
        directory = try temporaryDirectory(name)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func copy(_ fixtureName: String, to name: String) throws -> String {
        try write(name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(fixtureName)))))
    }

    /// A PNG of `width` x `height` one-bit pixels, all zero: a few hundred kilobytes of zlib that
    /// inflate to `width` x `height` / 8 bytes, and to 4 bytes a pixel once decoded to BGRA.
    func pngBomb(_ name: String, width: Int, height: Int) throws -> String {
        let script = """
            import struct, sys, zlib
            w, h = int(sys.argv[2]), int(sys.argv[3])
            def chunk(kind, data):
                return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
            row = b"\\0" * (1 + (w + 7) // 8)
            z = zlib.compressobj(9)
            idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0)) \\
                + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
            open(sys.argv[1], "wb").write(png)
            """
        let result = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, path(name), "\(width)", "\(height)"])
        try #require(result.status == 0, "\(result.stderr)")
        return path(name)
    }

    /// grace_hopper.jpg with its start-of-frame header claiming `width` x `height`.
    func jpegClaiming(_ name: String, width: UInt16, height: UInt16) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("images/grace_hopper.jpg"))))
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1]) })
        bytes.replaceSubrange(sof + 5..<sof + 9, with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        return try write(name, Array(bytes.prefix(1000)))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// What a hostile run must come to: its status, one `facecam:` line naming the input (or the
/// option), valid results on stdout, unchanged inputs, and a bounded peak memory.
struct HostileRun {
    var status: Int32
    var stdout: String
    var errorLines: [String]
    /// Peak resident memory, in MiB, from /usr/bin/time.
    var peakMiB: Double

    /// Runs facecam under /usr/bin/time; fails the test if any of `inputs` changed.
    init(_ arguments: [String], inputs: [String] = []) throws {
        let before = inputs.map { FileManager.default.contents(atPath: $0) }
        let memory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-memory-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: memory) }
        let result = try run(URL(fileURLWithPath: "/usr/bin/time"), ["-f", "%M", "-o", memory, facecamBinary.path] + arguments)
        status = result.status
        stdout = result.stdout
        errorLines = result.errorLines
        let kilobytes = (try? String(contentsOfFile: memory, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        peakMiB = (kilobytes ?? .infinity) / 1024
        for (path, contents) in zip(inputs, before) {
            #expect(FileManager.default.contents(atPath: path) == contents, "\(path) was changed")
        }
    }

    /// Every line on stdout is a JSON object.
    var stdoutIsJSONLines: Bool {
        stdout.split(separator: "\n").allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] }
    }

    var records: Int { stdout.split(separator: "\n").count }

    /// Exactly one line on stderr, prefixed `facecam:`, containing `text`.
    func saysOneLine(containing text: String) -> Bool {
        errorLines.count == 1 && errorLines[0].hasPrefix("facecam: ") && errorLines[0].contains(text)
    }

    /// Ended with `expected`, saying one line containing `text`, with nothing on stdout.
    func expectRefused(status expected: Int32, saying text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == expected, sourceLocation: sourceLocation)
        #expect(saysOneLine(containing: text), "\(errorLines)", sourceLocation: sourceLocation)
        #expect(stdout.isEmpty, sourceLocation: sourceLocation)
    }
}

/// The cases of the hostile-input report, each ending within seconds with its documented status and
/// one line, no crash, and under 1.5 GB of memory.
struct HostileInputTests {
    static let memoryLimitMiB = 1536.0
    static let image = "Fixtures/images/astronaut.png"

    @Test(arguments: [
        ["detect", "--preview", "100000000x100000000", "--annotate", "/tmp/facecam-never", image],
        ["video", "--preview", "100000000x100000000", "--annotate-video", "/tmp/facecam-never.avi", "Fixtures/video/pan-zoom.avi"],
        ["live", "--source", "Fixtures/video/pan-zoom.avi", "--preview", "100000x100000", "--annotate", "/tmp/facecam-never"],
        ["map", "--frame", "640x480", "--rect", "10,10,10,10", "--preview", "100000000x100000000"],
    ])
    func hugePreviewsAreUsageErrorsNotCrashes(_ arguments: [String]) throws {
        let run = try HostileRun(arguments)
        run.expectRefused(status: 64, saying: "--preview")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/facecam-never.avi"))
    }

    @Test func aPreviewTooLargeToDrawFailsThatFrameAloneAndKeepsItsResults() throws {
        let files = try HostileFiles("preview")
        defer { files.remove() }
        // 8000 x 8000 is a valid preview size but more than the 50 megapixels facecam draws.
        let run = try HostileRun(["detect", "--preview", "8000x8000", "--annotate", files.path("out"), Self.image])
        #expect(run.status == 1)
        #expect(run.saysOneLine(containing: "\(Self.image): the preview would be 8000x8000"), "\(run.errorLines)")
        #expect(run.records == 1 && run.stdoutIsJSONLines)
    }

    @Test func decompressionBombsAreRefusedFromTheirHeaders() throws {
        let files = try HostileFiles("bombs")
        defer { files.remove() }
        let png = try files.pngBomb("bomb.png", width: 30000, height: 30000)
        let jpeg = try files.jpegClaiming("bomb.jpg", width: 16000, height: 16000)
        #expect((try FileManager.default.attributesOfItem(atPath: png)[.size] as! Int) < 300_000)
        let run = try HostileRun(["detect", png, jpeg, Self.image], inputs: [png, jpeg])
        #expect(run.status == 1)
        #expect(run.errorLines == [
            "facecam: \(png): 30000x30000 is 900.0 megapixels, more than the limit of 250 (raise --max-megapixels for a file you trust)",
            "facecam: \(jpeg): 16000x16000 is 256.0 megapixels, more than the limit of 250 (raise --max-megapixels for a file you trust)",
        ])
        #expect(run.records == 1 && run.stdoutIsJSONLines)
        #expect(run.peakMiB < Self.memoryLimitMiB, "\(run.peakMiB) MiB")
        // The limit can be lowered, and a file under it is read as usual.
        let lowered = try HostileRun(["detect", "--max-megapixels", "1", "Fixtures/large-faces/face-1080p.jpg", Self.image])
        #expect(lowered.status == 1 && lowered.records == 1)
        #expect(lowered.saysOneLine(containing: "face-1080p.jpg: 1920x1080 is 2.1 megapixels, more than the limit of 1"))
    }

    /// eval holds a JSON input as plain values, a few times its size (it took about 40 times in
    /// Foundation's objects, so that its 1 GiB input limit allowed some 40 GB): a COCO results list and
    /// Label Studio tasks of about 12 MB each stay under 10 times their size plus the program's own.
    @Test func evalsJSONInputsTakeAFewTimesTheirSize() throws {
        let files = try HostileFiles("eval-memory")
        defer { files.remove() }
        let images = (0..<1000).map { #"{"id":\#($0),"file_name":"p\#($0).jpg"}"# }.joined(separator: ",")
        let truth = try files.write("gt.json", Array(#"{"images":[\#(images)],"annotations":[{"image_id":0,"bbox":[1,2,30,40]}]}"#.utf8))
        let results = (0..<130_000).map { #"{"image_id":\#($0 % 1000),"category_id":1,"bbox":[12.5,40.25,33.75,41.5],"score":0.\#($0 % 9973)}"# }
        let coco = try files.write("results.json", Array("[\(results.joined(separator: ","))]".utf8))
        let rectangle = #"{"type":"rectanglelabels","original_width":640,"original_height":480,"value":{"x":10.5,"y":20.25,"width":5.5,"height":7.25,"rectanglelabels":["face"]}}"#
        let rectangles = Array(repeating: rectangle, count: 60).joined(separator: ",")
        let tasks = (0..<1000).map { #"{"data":{"image":"/data/local-files/?d=p\#($0).jpg"},"predictions":[{"score":0.9,"result":[\#(rectangles)]}]}"# }
        let labelStudio = try files.write("tasks.json", Array("[\(tasks.joined(separator: ","))]".utf8))
        for input in [coco, labelStudio] {
            let megabytes = Double(try FileManager.default.attributesOfItem(atPath: input)[.size] as! Int) / 1_048_576
            let run = try HostileRun(["eval", "--ground-truth", truth, input], inputs: [input])
            #expect(run.status == 0, "\(run.errorLines)")
            #expect(run.peakMiB < 10 * megabytes + 100, "\(input): \(run.peakMiB) MiB for \(megabytes) MB")
        }
    }

    @Test func aJPEGCutInHalfWithItsEndMarkerPutBackIsAnError() throws {
        let files = try HostileFiles("half")
        defer { files.remove() }
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("images/grace_hopper.jpg"))))
        let half = try files.write("half.jpg", Array(whole.prefix(whole.count / 2)) + [0xFF, 0xD9])
        let run = try HostileRun(["detect", half], inputs: [half])
        run.expectRefused(status: 1, saying: "\(half): not a readable image: damaged or truncated JPEG")
    }

    @Test func aDamagedPNGIsOneLineWithoutLibpngsOwn() throws {
        let files = try HostileFiles("png")
        defer { files.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("images/astronaut.png"))))
        for offset in stride(from: 5000, to: 6000, by: 50) { bytes[offset] ^= 0x5A }
        let damaged = try files.write("damaged.png", bytes)
        let run = try HostileRun(["detect", damaged, Self.image], inputs: [damaged])
        #expect(run.status == 1)
        #expect(run.saysOneLine(containing: "\(damaged): not a readable image: damaged PNG (its IDAT chunk fails its CRC check)"),
                "\(run.errorLines)")
        #expect(run.records == 1)
    }

    @Test func aFIFOIsRefusedAtOnceNotWaitedOn() throws {
        let files = try HostileFiles("fifo")
        defer { files.remove() }
        let fifo = files.path("frames.jpg")
        try #require(mkfifo(fifo, 0o644) == 0)
        for command in [["detect", fifo, Self.image], ["video", "--quiet", fifo, "Fixtures/video/pan-zoom.avi"]] {
            let run = try HostileRun(command)
            #expect(run.status == 1)
            #expect(run.saysOneLine(containing: "\(fifo): not a regular file"), "\(run.errorLines)")
            #expect(run.records >= 1 && run.stdoutIsJSONLines)
        }
        // Found in a directory, a FIFO with an image's name is refused the same way.
        let listed = try HostileRun(["detect", files.directory.path])
        #expect(listed.status == 1 && listed.saysOneLine(containing: "not a regular file"))
    }

    @Test func symbolicLinkLoopsEndAndEachFileIsReportedOnce() throws {
        let files = try HostileFiles("loops")
        defer { files.remove() }
        let tree = files.path("tree")
        try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
        _ = try files.copy("images/astronaut.png", to: "tree/a.png")
        _ = try files.copy("images/grace_hopper.jpg", to: "tree/sub/b.jpg")
        try FileManager.default.createSymbolicLink(atPath: tree + "/sub/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: tree + "/sub/again", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: tree + "/loop", withDestinationPath: ".")
        let run = try HostileRun(["detect", "--recursive", tree])
        #expect(run.status == 0, "\(run.errorLines)")
        let sources = try run.stdout.split(separator: "\n").map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["source"] as! String
        }
        #expect(sources == [tree + "/a.png", tree + "/sub/b.jpg"])
    }

    @Test func aFileNameThatIsNotUTF8IsReadAndShownEscaped() throws {
        let files = try HostileFiles("names")
        defer { files.remove() }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("images/astronaut.png"))))
        // "face-\xFF.png": not valid UTF-8, written by its bytes.
        let name = Array(files.directory.path.utf8) + Array("/face-".utf8) + [0xFF] + Array(".png".utf8)
        let descriptor = open(name.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let shown = files.directory.path + "/face-\\xFF.png"
        let run = try HostileRun(["detect", files.directory.path])
        #expect(run.status == 0, "\(run.errorLines)")
        let record = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(record?["source"] as? String == shown)
        #expect((record?["faces"] as? [Any])?.count == 1)
    }

    /// eval opens its inputs by their bytes, as the other commands do, and shows such names escaped;
    /// a chart's name that is not UTF-8 is refused rather than written under another.
    @Test func evalReadsFilesWhoseNamesAreNotUTF8() throws {
        let files = try HostileFiles("eval-names")
        defer { files.remove() }
        func write(_ name: String, _ text: String) throws {
            // NAME's "?" is the byte 0xFF.
            let path = Array(files.directory.path.utf8) + [UInt8(ascii: "/")] + name.utf8.map { $0 == UInt8(ascii: "?") ? 0xFF : $0 }
            let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
            try #require(descriptor >= 0)
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        try write("gt-?.jsonl", "{\"source\":\"a.jpg\",\"faces\":[{\"box\":[10,20,30,40]}]}\n")
        try write("run-?.jsonl", "{\"source\":\"a.jpg\",\"faces\":[{\"box\":[10,20,30,40],\"score\":0.9}]}\n")
        let directory = Array(files.directory.path.utf8) + Array("/wider-".utf8) + [0xFF]
        try #require(mkdir(directory.map { CChar(bitPattern: $0) } + [0], 0o755) == 0)
        try write("wider-?/a.txt", "a.jpg\n1\n10 20 30 40 0.9\n")
        // The shell makes the byte: Foundation passes arguments as strings.
        let script = #"b=$(printf '\377'); exec "$0" eval --ground-truth "$1/gt-$b.jsonl" "$1/run-$b.jsonl" "$1/wider-$b""#
        func facecamViaShell(_ script: String) throws -> Run {
            try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, facecamBinary.path, files.directory.path])
        }
        let scored = try facecamViaShell(script)
        #expect(scored.status == 0, "\(scored.stderr)")
        let rows = scored.lines.filter { $0.hasPrefix("all") }
        #expect(rows.count == 2 && rows.allSatisfy { $0.contains("1.000") }, "\(scored.stdout)")
        #expect(scored.stdout.contains("gt-\\xFF.jsonl (jsonl)") && scored.stdout.contains("run-\\xFF.jsonl:") && scored.stdout.contains("wider-\\xFF:"), "\(scored.stdout)")
        let plotted = try facecamViaShell(script + #" --plot "$1/p-$b.svg""#)
        #expect(plotted.status == 64 && plotted.stderr.contains("p-\\xFF.svg: not UTF-8: give the chart a UTF-8 name"), "\(plotted.stderr)")
    }

    @Test func anOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten() throws {
        let files = try HostileFiles("overwrite")
        defer { files.remove() }
        let input = try files.copy("images/astronaut.png", to: "photo.png")
        let clip = try files.copy("video/pan-zoom.avi", to: "clip.avi")
        for (arguments, option) in [
            (["detect", "-o", input, input], "--output"),
            (["detect", "--annotate", files.directory.path, input], "--annotate"),
            (["video", "--quiet", "--annotate-video", clip, clip], "--annotate-video"),
            (["video", "--quiet", "-o", clip, clip], "--output"),
        ] {
            let run = try HostileRun(arguments, inputs: [input, clip])
            run.expectRefused(status: 64, saying: option)
        }
    }

    @Test func anAnnotatedVideoThatCannotBeWrittenIsOneLineBeforeAnyWork() throws {
        let run = try HostileRun(["video", "--quiet", "--annotate-video", "/nonexistent/x.avi", "Fixtures/video/pan-zoom.avi"])
        run.expectRefused(status: 1, saying: "cannot write annotated video /nonexistent/x.avi")
    }

    /// File names with a colon are the files they name, not FFmpeg protocols (`pipe:0` would read
    /// standard input, `concat:` other files).
    @Test func fileNamesWithAColonAreFiles() throws {
        let files = try HostileFiles("colons")
        defer { files.remove() }
        let names = ["2024-01-01T10:00:00.avi", "pipe:0", "concat:" + fixture("video/rotated.mp4") + "|x.avi"]
        let paths = try names.map { try files.copy("video/pan-zoom.avi", to: $0.replacingOccurrences(of: "/", with: "_")) }
        let result = try run(facecamBinary, ["video", "--quiet", "--every", "12"] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        #expect(records.map { $0["source"] as! String } == paths.flatMap { [$0, $0, $0] })
        #expect(records.allSatisfy { $0["size"] as? [Int] == [480, 360] })
    }

    /// Links planted in a shared output folder, under the partial names earlier versions used and under
    /// the finished names: nothing is written through them, and each output ends a regular file.
    @Test func linksInTheOutputFolderAreNeverWrittenThrough() throws {
        let files = try HostileFiles("links")
        defer { files.remove() }
        let out = files.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let victim = try files.write("victim.txt", Array("precious\n".utf8))
        let outputs = ["pan-zoom.jsonl", "two-faces.jpg", "clip.mp4"].map { out + "/" + $0 }
        for output in outputs {
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: victim)
            try FileManager.default.createSymbolicLink(atPath: output + ".partial", withDestinationPath: victim)
        }
        // What is found does not matter here, only where it is written: the cheapest search.
        let results = try facecam(["video", "--quiet", "--output-dir", out, "Fixtures/video/pan-zoom.avi"] + readingOnly)
        #expect(results.status == 0, "\(results.stderr)")
        let image = try facecam(["redact", "--quiet", "-o", outputs[1], "Fixtures/images/two-faces.jpg"] + readingOnly)
        #expect(image.status == 0, "\(image.stderr)")
        let video = try facecam(["redact", "--quiet", "-o", outputs[2], "Fixtures/video/pan-zoom.avi"] + readingOnly)
        #expect(video.status == 0, "\(video.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        for output in outputs {
            let type = try FileManager.default.attributesOfItem(atPath: output)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(output) is \(String(describing: type))")
            #expect(partialFiles(of: output).isEmpty)
        }
        #expect(try String(contentsOfFile: outputs[0], encoding: .utf8).split(separator: "\n").count == 36)
    }

    /// Two runs redacting into one file at once: each writes a partial file of its own, so the file
    /// that is left is one run's whole video, not a mix of both.
    @Test func twoRunsWritingOneFileLeaveAWholeOne() throws {
        let files = try HostileFiles("same-output")
        defer { files.remove() }
        let output = files.path("same.mp4")
        let arguments = ["redact", "--quiet", "-o", output, "Fixtures/video/pan-zoom.avi"] + readingOnly
        let first = try BackgroundProcess(facecamBinary, arguments)
        let second = try BackgroundProcess(facecamBinary, arguments)
        let (a, b) = (try first.wait(), try second.wait())
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        #expect(try probedFrameCount(output) == 36)
        #expect(partialFiles(of: output).isEmpty)
    }

    @Test func anInvalidCascadeIsOneLine() throws {
        let files = try HostileFiles("cascade")
        defer { files.remove() }
        let broken = try files.write("broken.xml", Array("<?xml version=\"1.0\"?><opencv_storage><cascade>".utf8))
        let run = try HostileRun(["detect", "--detector", "haar", "--cascade", broken, Self.image])
        #expect(run.status == 64)
        #expect(run.saysOneLine(containing: "cannot load cascade \(broken)"), "\(run.errorLines)")
    }

    @Test(arguments: [
        (["--rect", "1e308,0,10,10"], "--rect"), (["--rect", "1e20,0,10,10"], "--rect"), (["--rect", "0x10,0,10,10"], "--rect"),
        (["--rect", "nan,0,1,1"], "--rect"), (["--rect", "inf,0,1,1"], "--rect"), (["--rect", "2000000,0,10,10"], "--rect"),
        (["--rect", "1,2,3,4", "--aperture", "0,0,9999999,10"], "--aperture"),
    ])
    func mapRefusesValuesOutOfRange(_ arguments: [String], option: String) throws {
        let run = try HostileRun(["map", "--frame", "640x480"] + arguments)
        run.expectRefused(status: 64, saying: option)
    }

    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func anInterruptedVideoFinishesItsFramesAndClosesItsVideo(signal: Int32, status: Int32, name: String) throws {
        let files = try HostileFiles("interrupt")
        defer { files.remove() }
        let annotated = files.path("annotated.avi")
        // A tiny scale step makes each frame slow, so the signal, sent after the first result, comes mid-file.
        let (result, signalled) = try interrupt(
            facecamBinary,
            ["video", "--quiet", "--jobs", "1", "--detector", "haar", "--scale-factor", "1.01", "--annotate-video", annotated, "Fixtures/video/pan-zoom.avi"],
            signal: signal) { $0.outputLines >= 1 }
        try #require(signalled, "\(result.stderr)")
        #expect(result.status == status)
        let records = try result.records()
        #expect(records.count > 0 && records.count < 36)
        #expect(result.errorLines == [
            "facecam: stopped by \(name) at Fixtures/video/pan-zoom.avi frame \(records.count - 1); every result before it was written",
        ])
        // The video is finished: OpenCV reads as many frames from it as results were written.
        let check = try run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", "import cv2, sys\nc = cv2.VideoCapture(sys.argv[1])\nn = 0\nwhile c.read()[0]: n += 1\nprint(n)", annotated])
        #expect(Int(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == records.count, "\(check.stderr)")
    }

    @Test func anInterruptedDetectSaysWhereItStopped() throws {
        let inputs = Array(repeating: "Fixtures/images/two-faces.jpg", count: 200)
        let (result, signalled) = try interrupt(facecamBinary, ["detect", "--jobs", "1"] + inputs) { $0.outputLines >= 1 }
        try #require(signalled, "\(result.stderr)")
        #expect(result.status == 130)
        let records = try result.records()
        #expect(records.count > 0 && records.count < 200)
        #expect(result.errorLines == ["facecam: stopped by SIGINT after Fixtures/images/two-faces.jpg; every result before it was written"])
    }

    /// Banners and thumbnails: FaceDetectorYN once returned infinite boxes on wide, short frames (a
    /// crash) and threw under 64 pixels a side; under about 100 rows it returns garbage boxes in about
    /// half its runs (OpenCV 4.6, called directly, does too), so each frame is searched four times
    /// here. A frame too small or too thin to search has no face.
    @Test(arguments: modelDetectors)
    func wideShortAndTinyImagesHaveNoFaces(_ detector: String) throws {
        let files = try HostileFiles("thin")
        defer { files.remove() }
        let sizes = [(2000, 64), (1920, 80), (4000, 64), (100, 20), (8192, 48), (30, 30), (63, 500), (15, 15)]
        let script = "import cv2, numpy as np, sys\nfor a in sys.argv[1:]:\n    p, w, h = a.split(':')\n"
            + "    cv2.imwrite(p, np.full((int(h), int(w), 3), 128, np.uint8))"
        let paths = sizes.map { files.path("\($0.0)x\($0.1).png") }
        let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script] + zip(paths, sizes).map { "\($0):\($1.0):\($1.1)" })
        try #require(made.status == 0, "\(made.stderr)")
        let result = try run(facecamBinary, ["detect", "--detector", detector, "--scales", "1,2"] + paths + paths + paths + paths
            + ["Fixtures/images/astronaut.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 4 * sizes.count + 1)
        #expect(records.dropLast().allSatisfy { ($0["faces"] as! [Any]).isEmpty })
        #expect((records.last!["faces"] as! [Any]).count == 1)
    }

    /// A disk that fills mid-run (here a 40 KB file size limit, SIGXFSZ ignored so that writes fail
    /// with EFBIG): each annotated image and crop is whole under its name or absent, never cut, and no
    /// partial file stays; each failure names the kind of file it was.
    @Test func aFullDiskLeavesNoCutImages() throws {
        let files = try HostileFiles("full-disk")
        defer { files.remove() }
        let (annotated, crops) = (files.path("annotated"), files.path("crops"))
        let script = "trap '' XFSZ; ulimit -f 80; exec \"$0\" detect --annotate \"$1\" --crops \"$2\" Fixtures/images"
        let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, facecamBinary.path, annotated, crops])
        #expect(result.status == 1)
        #expect(result.errorLines.contains { $0.hasPrefix("facecam: cannot write annotated image \(annotated)/") }, "\(result.stderr)")
        var whole = 0
        for directory in [annotated, crops] {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                #expect(!name.contains(".partial-"), "\(name)")
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                #expect(bytes.prefix(2) == [0xFF, 0xD8] && bytes.suffix(2) == [0xFF, 0xD9], "\(name) is cut")
                whole += 1
            }
        }
        #expect(whole > 0)
    }

    /// A real full disk (a tmpfs) under a redacted video: ffmpeg 5.1 exits 0 there having written an MP4 or a MOV
    /// without its index, a Matroska file without its last frames, or an AVI without its header's sizes and index. Each
    /// is one line and status 1, with nothing under the final name and no partial file, whether the disk fills early
    /// (300 KB) or during the last 16 KB of the file. Needs root, for mount.
    @Test(arguments: ["mp4", "mkv", "mov", "avi"])
    func aFullDiskLeavesNoCutVideo(_ container: String) throws {
        let files = try HostileFiles("full-disk-video-\(container)")
        defer { files.remove() }
        // What is found does not matter here, only what is written: the cheapest search.
        let arguments = ["redact"] + readingOnly + ["-o"]
        let whole = files.path("whole." + container)
        try #require(try run(facecamBinary, arguments + [whole, fixture("video/pan-zoom.avi")]).status == 0)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: whole)[.size] as? Int)
        for room in [300 << 10, (size - (16 << 10)) / 4096 * 4096] {
            let disk = files.path("disk-\(room)")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
            let mounted = try run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(room)", "tmpfs", disk])
            guard mounted.status == 0 else {
                print("SKIPPED: a full disk needs a tmpfs, and mount failed (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
                return
            }
            defer { _ = try? run(URL(fileURLWithPath: "/bin/umount"), [disk]) }
            let output = disk + "/out." + container
            let result = try run(facecamBinary, arguments + [output, fixture("video/pan-zoom.avi")])
            #expect(result.status == 1, "\(room) bytes: \(result.stderr)")
            #expect(result.errorLines.count == 1 && result.errorLines[0].hasPrefix("facecam: cannot write the video \(output): "), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
        }
    }

    /// A video whose name is not UTF-8 and holds an escape sequence: its audio is copied into the redacted file all the
    /// same (ffmpeg reads it through the descriptor facecam opened, not a name shown escaped).
    @Test func aVideoWithAnOddNameKeepsItsAudio() throws {
        let files = try HostileFiles("odd-name-audio")
        defer { files.remove() }
        var name = Array(files.directory.path.utf8) + Array("/clip\u{1B}[2J".utf8) + [0xE9] + Array(".mkv".utf8)
        let source = try Data(contentsOf: URL(fileURLWithPath: fixture("video/pan-zoom-audio.mkv")))
        name.append(0)
        let descriptor = open(name.map { CChar(bitPattern: $0) }, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(descriptor >= 0)
        _ = source.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let output = files.path("out.mkv")
        let script = "exec \"$0\" redact --detector yunet -o \"$1\" \"$2\"/clip*.mkv"
        let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, facecamBinary.path, output, files.directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", output])
        #expect(streams.stdout.split(separator: "\n").sorted() == ["audio", "video"], "\(streams.stdout)")
    }

    /// Standard output on a full disk (/dev/full): redact's lines, and the lines of the commands that print a result, are
    /// never lost silently: one line, status 1, and the redacted file is still written.
    @Test func aFullStandardOutputIsSaid() throws {
        let files = try HostileFiles("full-stdout")
        defer { files.remove() }
        let output = files.path("redacted.png")
        let commands = [
            ["redact", "--detector", "yunet", "-o", output, fixture("images/astronaut.png")],
            ["map", "--frame", "640x480", "--rect", "10,10,20,20"],
            ["--version"], ["--help"], ["redact", "--help"], ["help", "detect"],
        ]
        for command in commands {
            let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" >/dev/full", facecamBinary.path] + command)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.errorLines == ["facecam: cannot write results to standard output: No space left on device"], "\(command)")
        }
        #expect(FileManager.default.fileExists(atPath: output))
    }

    /// Large pictures under a bound on memory: a 240-megapixel PNG (within --max-megapixels) under `ulimit -v` 3 GB is
    /// refused from its header, saying what it needs, instead of ending in a failed allocation; video frames of
    /// 8000x8000 are over the video default of 40 megapixels. One line, status 1, nothing written.
    @Test func largePicturesAreRefusedBeforeTheyAreDecoded() throws {
        let files = try HostileFiles("large-pictures")
        defer { files.remove() }
        let png = try files.pngBomb("large.png", width: 15492, height: 15492)
        let output = files.path("out.png")
        let limited = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -v 3000000; exec \"$0\" \"$@\"", facecamBinary.path, "redact", "-o", output, png])
        #expect(limited.status == 1, "\(limited.stderr)")
        #expect(limited.errorLines.count == 1 && limited.errorLines[0].hasPrefix("facecam: \(png): 15492x15492 needs about 3.8 GB to read and mark, more than the ")
            && limited.errorLines[0].hasSuffix(" this process may still take (ulimit -v, or its cgroup's memory.max): raise that limit, or give a smaller image"),
            "\(limited.stderr)")
        let video = files.path("large.avi")
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:s=8000x8000", "-frames:v", "2", "-c:v", "mjpeg", video])
        let redacted = try HostileRun(["redact", "--detector", "yunet", "-o", files.path("out.mp4"), video], inputs: [video])
        #expect(redacted.status == 1)
        #expect(redacted.saysOneLine(containing: "\(video): 8000x8000 is 64.0 megapixels, more than the limit of 40 (raise --max-megapixels"))
        #expect(redacted.peakMiB < Self.memoryLimitMiB)
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path).sorted() == ["large.avi", "large.png"])
    }

    /// Paths and files far larger than any sane one: a message keeps the start and end of a 100,000-character path; a
    /// --model file of 300 MB (sparse) is refused from its size rather than read (a 3 GB one took 26 s and 8.5 GB).
    @Test func hugePathsAndModelsAreCutShort() throws {
        let files = try HostileFiles("huge-paths")
        defer { files.remove() }
        let missing = "/" + String(repeating: "d", count: 100_000) + ".png"
        let detect = try HostileRun(["detect", missing])
        #expect(detect.status == 1 && detect.errorLines.count == 1 && detect.errorLines[0].count < 2_200, "\(detect.errorLines.first?.count ?? 0)")
        #expect(detect.errorLines.first?.contains(" characters ...] ") == true)
        let model = files.path("huge.onnx")
        #expect(FileManager.default.createFile(atPath: model, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: model))
        try handle.truncate(atOffset: 300 << 20)
        try handle.close()
        let run = try HostileRun(["detect", "--detector", "yunet", "--model", model, fixture("images/astronaut.png")])
        #expect(run.status == 64)
        #expect(run.saysOneLine(containing: "\(model): 314 MB, larger than any face model (at most 256 MB)"))
    }

    /// --jobs and --threads far beyond the cores are capped there (a job is a model's memory each), with a warning
    /// each and no line of a library's own (TBB warned of 256 threads).
    @Test func jobsAndThreadsBeyondTheCoresAreCapped() throws {
        let result = try HostileRun(["video", "--quiet", "--jobs", "256", "--threads", "256", "--detector", "yunet", fixture("video/pan-zoom.avi")])
        #expect(result.status == 0)
        #expect(result.errorLines.count == 2, "\(result.errorLines)")
        #expect(result.errorLines.first?.hasPrefix("facecam: warning: --jobs 256 runs ") == true)
        #expect(result.errorLines.last?.hasPrefix("facecam: warning: --threads 256 runs ") == true)
        #expect(result.records == 36 && result.peakMiB < Self.memoryLimitMiB)
    }

    /// enrol says a photograph that is not there, or a folder, before any model loads, and enrols the rest.
    @Test func enrolSaysMissingPhotographsFirst() throws {
        let files = try HostileFiles("enrol-missing")
        defer { files.remove() }
        let gallery = files.path("g.sqlite")
        let missing = files.path("missing.jpg")
        let result = try run(facecamBinary, ["enrol", "--gallery", gallery, "Hopper", missing, fixture("images"), fixture("images/grace_hopper.jpg")])
        #expect(result.status == 1)
        #expect(result.errorLines == [
            "facecam: \(missing): cannot read (stat: No such file or directory)",
            "facecam: \(fixture("images")): a folder, not a file: name the files in it",
            "facecam: enrolled Hopper from 1 photograph in \(gallery)",
        ], "\(result.stderr)")
        #expect(try facecam("people", "--gallery", gallery).stdout == "Hopper: 1 photograph\n")
    }

    /// A video file whose video stream holds no frame: redact and video say so (status 1) rather than ending silently.
    @Test func aVideoWithoutFramesIsSaid() throws {
        let files = try HostileFiles("no-frames")
        defer { files.remove() }
        let empty = files.path("empty.avi")
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=64x64", "-frames:v", "0", "-c:v", "mjpeg", empty])
        let output = files.path("out.mp4")
        let result = try run(facecamBinary, ["redact", "--detector", "yunet", "-o", output, empty])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.errorLines == ["facecam: \(empty): its video stream holds no frame"])
        #expect(result.stdout.isEmpty)
        let video = try run(facecamBinary, ["video", "--quiet", empty])
        #expect(video.status == 1 && video.errorLines == ["facecam: \(empty): its video stream holds no frame"], "\(video.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path) == ["empty.avi"])
    }

    /// --annotate or --crops naming a file that is not a directory is a usage error before any work,
    /// not a line per image; the file stays as it was.
    @Test(arguments: ["--annotate", "--crops"])
    func anOutputDirectoryThatIsAFileIsOneLine(_ option: String) throws {
        let files = try HostileFiles("not-a-directory")
        defer { files.remove() }
        let file = try files.write("results.txt", Array("precious".utf8))
        let result = try run(facecamBinary, ["detect", option, file, "Fixtures/images"])
        #expect(result.status == 64)
        #expect(result.errorLines == ["facecam: \(option) \(file) is a file, not a folder: give a folder (made when missing)"], "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "precious")
    }
}
