import Foundation
import Testing

/// Batches: --output-dir, --resume, --shard and --files-from on the fixture clips.
@Suite struct BatchCommandTests {
    /// The clips of a batch, in their sorted order.
    static let clips = ["crossing.avi", "leave-enter.avi", "pan-zoom.avi", "rotated.mp4"].map { "Fixtures/video/" + $0 }

    /// The files in `directory`, by name, with their contents.
    func files(in directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    /// The JSON Lines records of `text`, grouped by their source.
    func recordsBySource(_ text: String) throws -> [String: [String]] {
        var grouped: [String: [String]] = [:]
        for line in text.split(separator: "\n").map(String.init) {
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            grouped[record["source"] as! String, default: []].append(line)
        }
        return grouped
    }

    @Test(arguments: [("jsonl", "jsonl"), ("csv", "csv"), ("text", "txt")])
    func eachInputGetsTheFileItsOwnRunWouldPrint(format: String, fileExtension: String) throws {
        let directory = try temporaryDirectory("batch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = format == "csv" ? [] : ["--events"]
        let batch = try run(
            facecamBinary, ["video", "--quiet", "--every", "4", "--format", format, "--output-dir", directory.path] + events + Self.clips)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdout.isEmpty)
        let written = try files(in: directory)
        #expect(Set(written.keys) == Set(Self.clips.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent + "." + fileExtension }))
        for clip in Self.clips {
            let alone = try run(facecamBinary, ["video", "--quiet", "--every", "4", "--format", format] + events + [clip])
            let name = URL(fileURLWithPath: clip).deletingPathExtension().lastPathComponent + "." + fileExtension
            #expect(!alone.stdout.isEmpty)
            #expect(written[name] == Data(alone.stdout.utf8), "\(name)")
        }
    }

    @Test func clashingNamesAreGivenInSortedOrderWhateverTheArgumentsAndShard() throws {
        // Two inputs named clip.avi, in folders a and b.
        let root = try temporaryDirectory("clash")
        defer { try? FileManager.default.removeItem(at: root) }
        for (folder, clip) in [("a", "pan-zoom.avi"), ("b", "crossing.avi")] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent("\(folder)/clip.avi").path, withDestinationPath: fixture("video/\(clip)"))
        }
        let (a, b) = (root.appendingPathComponent("a/clip.avi").path, root.appendingPathComponent("b/clip.avi").path)
        let sources = { (directory: URL) throws -> [String: String] in
            try files(in: directory).mapValues { data in
                let first = String(decoding: data, as: UTF8.self).split(separator: "\n")[0]
                return (try JSONSerialization.jsonObject(with: Data(first.utf8)) as! [String: Any])["source"] as! String
            }
        }
        let whole = root.appendingPathComponent("whole")
        #expect(try run(facecamBinary, ["video", "--quiet", "--every", "8", "--output-dir", whole.path, b, a] + readingOnly).status == 0)
        #expect(try sources(whole) == ["clip.jsonl": a, "clip-2.jsonl": b])
        // The second shard holds b alone, and still names its results and annotated frames as the whole batch does.
        let second = root.appendingPathComponent("second"), frames = root.appendingPathComponent("frames")
        let part = try run(facecamBinary, [
            "video", "--quiet", "--every", "8", "--output-dir", second.path, "--annotate", frames.path, "--annotate-every", "100",
            "--shard", "2/2", a, b] + readingOnly)
        #expect(part.status == 0)
        #expect(try sources(second) == ["clip-2.jsonl": b])
        #expect(try FileManager.default.contentsOfDirectory(atPath: frames.path) == ["clip-2-000000.jpg"])
    }

    /// A directory stands for its video files, by extension, in name order, its subdirectories'
    /// only with --recursive; one without any is a usage error that says what is looked for.
    @Test func videoTakesDirectories() throws {
        let directory = try temporaryDirectory("video-folder")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nested = try directory.madeFolder("more")
        for (clip, name) in [("rotated.mp4", "b.mp4"), ("crossing.avi", "A.avi"), ("pan-zoom.avi", "more/c.avi")] {
            try FileManager.default.copyItem(atPath: fixture("video/" + clip), toPath: directory.appendingPathComponent(name).path)
        }
        try Data("{}".utf8).write(to: directory.appendingPathComponent("notes.json"))
        for (options, names) in [([String](), ["A.avi", "b.mp4"]), (["--recursive"], ["A.avi", "b.mp4", "more/c.avi"])] {
            let result = try run(facecamBinary, ["video", "--quiet", "--every", "8"] + readingOnly + options + [directory.path])
            #expect(result.status == 0, "\(result.stderr)")
            var sources: [String] = []
            for record in try result.records() where sources.last != record["source"] as? String {
                sources.append(record["source"] as! String)
            }
            #expect(sources == names.map { directory.path + "/" + $0 }, "\(options)")
        }
        // A named file stays in the batch as given: only the shard it falls to reports it missing.
        let missing = directory.appendingPathComponent("missing.mp4").path
        let shards = try (1...2).map { try run(facecamBinary, ["video", "--quiet", "--every", "8", "--shard", "\($0)/2", directory.path, missing] + readingOnly) }
        #expect(shards.map(\.status).sorted() == [0, 1], "\(shards.map(\.stderr))")
        #expect(shards.filter { $0.stderr.contains("missing.mp4") }.count == 1, "\(shards.map(\.stderr))")
        try FileManager.default.removeItem(at: nested)
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let none = try run(facecamBinary, ["video", nested.path])
        #expect(none.status == 64 && none.errorLines.count == 1, "\(none.stderr)")
        #expect(none.stderr.hasPrefix("facecam: no video files in \(nested.path): give video files, or directories holding some (by extension: 3gp, avi,"))
    }

    @Test(arguments: [2, 3, 5])
    func shardsSplitTheBatchWithoutOverlapWhateverTheArgumentOrder(count: Int) throws {
        let whole = try run(facecamBinary, ["video", "--quiet", "--every", "4"] + readingOnly + Self.clips)
        #expect(whole.status == 0)
        let expected = try recordsBySource(whole.stdout)
        var union: [String: [String]] = [:]
        var sizes: [Int] = []
        for index in 1...count {
            // Each task is given the inputs in another order.
            let order = Array(Self.clips[(index % Self.clips.count)...] + Self.clips[..<(index % Self.clips.count)])
            let part = try run(facecamBinary, ["video", "--quiet", "--every", "4", "--shard", "\(index)/\(count)"] + readingOnly + order.reversed())
            #expect(part.status == 0, "\(part.stderr)")
            let records = try recordsBySource(part.stdout)
            #expect(Set(records.keys).isDisjoint(with: union.keys), "shard \(index)/\(count) repeats an input")
            union.merge(records) { old, _ in old }
            sizes.append(records.count)
            #expect(part.stderr.contains(records.isEmpty
                ? "shard \(index)/\(count) has no inputs"
                : "shard \(index)/\(count): \(records.count) of the batch's \(Self.clips.count) inputs; the other \(count - 1) shards take the rest"),
                "\(part.stderr)")
        }
        #expect(union == expected)
        #expect(sizes.max()! - sizes.min()! <= 1, "parts of \(sizes)")
    }

    /// The second input is cut short by SIGKILL; the run started again with --resume ends byte-identical to a clean one.
    @Test(arguments: [[String](), ["--fast"]])
    func resumeAfterSIGKILLEndsAsACleanRunDoes(options: [String]) throws {
        let root = try temporaryDirectory("resume")
        defer { try? FileManager.default.removeItem(at: root) }
        let (clean, killed) = (root.appendingPathComponent("clean"), root.appendingPathComponent("killed"))
        let arguments = ["video", "--quiet", "--events"] + options
        #expect(try run(facecamBinary, arguments + ["--output-dir", clean.path] + Self.clips).status == 0)

        let process = Process()
        process.executableURL = facecamBinary
        process.arguments = arguments + ["--output-dir", killed.path] + Self.clips
        process.currentDirectoryURL = repository
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let destination = killed.appendingPathComponent("leave-enter.jsonl").path
        func partialSize() -> Int {
            partialFiles(of: destination).map {
                (try? FileManager.default.attributesOfItem(atPath: killed.appendingPathComponent($0).path)[.size] as? Int) ?? 0
            }.reduce(0, +)
        }
        let deadline = Date().addingTimeInterval(120)
        while partialSize() == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = try files(in: killed)
        let partial = try #require(partialFiles(of: destination).first, "no partial file: \(left.keys)")
        #expect(Set(left.keys) == ["crossing.jsonl", partial], "the kill came too late to test resuming")

        let resumed = try run(facecamBinary, arguments + ["--output-dir", killed.path, "--resume"] + Self.clips)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.errorLines == ["facecam: skipping Fixtures/video/crossing.avi: \(killed.path)/crossing.jsonl is finished (--resume)"])
        #expect(try files(in: killed) == files(in: clean))

        // Once more: everything is skipped and nothing is rewritten.
        let modified = try FileManager.default.attributesOfItem(atPath: killed.appendingPathComponent("pan-zoom.jsonl").path)[.modificationDate] as! Date
        let again = try run(facecamBinary, arguments + ["--output-dir", killed.path, "--resume"] + Self.clips)
        #expect(again.status == 0)
        #expect(again.errorLines.count == Self.clips.count && again.errorLines.allSatisfy { $0.contains("is finished (--resume)") })
        #expect(try FileManager.default.attributesOfItem(atPath: killed.appendingPathComponent("pan-zoom.jsonl").path)[.modificationDate] as! Date == modified)
    }

    /// Fast mode follows the faces of the frame before; a new input must start afresh. After
    /// synthetic-1 it did not (found by trying every pair of these clips).
    @Test func fastModeResultsOfAnInputDoNotDependOnTheInputBefore() throws {
        let clips = try SyntheticClips.shared.get()
        let clip = "Fixtures/video/rotated.mp4"
        let alone = try run(facecamBinary, ["video", "--quiet", "--fast", clip])
        let after = try run(facecamBinary, ["video", "--quiet", "--fast", clips.path(1), clip])
        #expect(alone.status == 0 && after.status == 0)
        #expect(try recordsBySource(after.stdout)[clip] == recordsBySource(alone.stdout)[clip])
    }

    @Test func anUnreadableInputLeavesNoFileAndADamagedOneIsFinished() throws {
        let directory = try temporaryDirectory("unreadable")
        defer { try? FileManager.default.removeItem(at: directory) }
        let junk = directory.appendingPathComponent("junk.avi")
        try Data("not a video".utf8).write(to: junk)
        let out = directory.appendingPathComponent("out")
        let batch = try run(facecamBinary, ["video", "--quiet", "--output-dir", out.path, junk.path, "Fixtures/video/damaged.mp4"])
        #expect(batch.status == 1)
        #expect(batch.stderr.contains("junk.avi") && batch.stderr.contains("damaged.mp4"))
        #expect(try Set(files(in: out).keys) == ["damaged.jsonl"])
        // Geometry options that fit no frame of an input leave no file either.
        let outside = directory.appendingPathComponent("outside")
        let misfit = try run(facecamBinary, ["video", "--quiet", "--aperture", "0,0,2000,2000", "--output-dir", outside.path, Self.clips[0]])
        #expect(misfit.status == 1)
        #expect(try files(in: outside).isEmpty)
    }

    @Test func resultsMayBeWrittenBesideTheInputs() throws {
        let directory = try temporaryDirectory("beside")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("clip.avi")
        try FileManager.default.copyItem(atPath: fixture("video/pan-zoom.avi"), toPath: clip.path)
        let batch = try run(facecamBinary, ["video", "--quiet", "--every", "8", "--output-dir", directory.path, clip.path] + readingOnly)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try Set(files(in: directory).keys) == ["clip.avi", "clip.jsonl"])
    }

    @Test func inputsFromAListFileOrStandardInput() throws {
        let directory = try temporaryDirectory("list")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list.txt")
        try Data((["", Self.clips[2], "", Self.clips[0], ""].joined(separator: "\n")).utf8).write(to: list)
        let listed = ["video", "--quiet", "--every", "8"] + readingOnly
        let positional = try run(facecamBinary, listed + [Self.clips[2], Self.clips[0]])
        let fromFile = try run(facecamBinary, listed + ["--files-from", list.path])
        let fromStandardInput = try run(facecamBinary, listed + ["--files-from", "-"], input: list)
        let mixed = try run(facecamBinary, listed + ["--files-from", list.path, Self.clips[1]])
        #expect(positional.status == 0 && !positional.stdout.isEmpty)
        #expect(fromFile.stdout == positional.stdout)
        #expect(fromStandardInput.stdout == positional.stdout)
        #expect(try Set(recordsBySource(mixed.stdout).keys) == Set([Self.clips[1], Self.clips[2], Self.clips[0]]))
    }

    /// A list holds paths as bytes: a video whose name is not UTF-8 is read, and shown escaped.
    @Test func aListedVideoWhoseNameIsNotUTF8IsRead() throws {
        let directory = try temporaryDirectory("bytes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = Array(directory.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".avi".utf8)
        let clip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("video/pan-zoom.avi"))))
        let descriptor = open(name.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
        try #require(descriptor >= 0)
        _ = clip.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let list = directory.appendingPathComponent("list")
        try Data(name + [0x0A]).write(to: list)
        let result = try run(facecamBinary, ["video", "--quiet", "--every", "12", "--files-from", list.path] + readingOnly)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.records().map { $0["source"] as! String } == Array(repeating: directory.path + "/caf\\xE9.avi", count: 3))
    }

    /// A name with an escape sequence and a CR (a CRLF list's) reaches no terminal raw: control
    /// characters show as `\xNN`. A NUL, which no path holds, is refused, not taken as the path's end.
    @Test func controlCharactersAreEscapedAndANulIsRefused() throws {
        let directory = try temporaryDirectory("control")
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = directory.path + "/clip\u{1B}[2J\r.avi"
        try FileManager.default.copyItem(atPath: fixture("video/pan-zoom.avi"), toPath: name)
        let list = directory.appendingPathComponent("list")
        try Data((name + "\n").utf8).write(to: list)
        let result = try run(facecamBinary, ["video", "--quiet", "--format", "text", "--every", "12", "--files-from", list.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\r"))
        #expect(result.lines.first == directory.path + "/clip\\x1B[2J\\x0D.avi: 480x360, 1 face", "\(result.stdout)")

        try Data((Array((name + "\n").utf8) + Array(fixture("video/pan-zoom.avi").utf8) + [0] + Array(".x\n".utf8))).write(to: list)
        let refused = try run(facecamBinary, ["video", "--quiet", "--files-from", list.path])
        #expect(refused.status == 64 && refused.stdout.isEmpty)
        #expect(refused.errorLines == [
            "facecam: cannot read --files-from \(list.path): line 2 holds a NUL byte, which no path can hold; give a readable list, one path per line"
        ], "\(refused.stderr)")
    }

}

/// Batch options that cannot be used together or read, refused in this process (`reportedUsageError`).
struct BatchOptionTests {
    @Test(arguments: [
        (["--files-from", "/nonexistent/list.txt"], "cannot read --files-from /nonexistent/list.txt"),
        (["--files-from", "/dev/null"], "no inputs"),
        (["--resume", "Fixtures/video/pan-zoom.avi"], "--resume needs --output-dir"),
        (["--output-dir", "/tmp/x", "-o", "/tmp/y", "Fixtures/video/pan-zoom.avi"], "--output-dir and --output"),
        (["--shard", "0/2", "Fixtures/video/pan-zoom.avi"], "1 <= K <= N"),
        (["--shard", "3/2", "Fixtures/video/pan-zoom.avi"], "1 <= K <= N"),
        (["--shard", "1/2/3", "Fixtures/video/pan-zoom.avi"], "1 <= K <= N"),
    ])
    func badBatchOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let line = try reportedUsageError(["video"] + arguments)
        #expect(line?.contains(message) == true, "\(line ?? "none")")
    }
}
