import Foundation
import Testing
@testable import FaceCamCore

@Suite struct ShardTests {
    /// Paths such as an archive's, some sharing a name in different folders, one given twice.
    static let batch = (0..<23).map { FilePath("archive/day-\($0 % 7)/clip-\($0).mp4") } + [FilePath("archive/day-1/clip-1.mp4")]

    @Test(arguments: 1...9)
    func partsCoverTheBatchOnceAndDifferInSizeByOneAtMost(count: Int) throws {
        let parts = (1...count).map { Shard(index: $0, count: count)!.select(Self.batch) }
        let distinct = Set(Self.batch)
        for (k, part) in parts.enumerated() {
            for (j, other) in parts.enumerated() where j != k {
                #expect(Set(part).isDisjoint(with: other))
            }
        }
        #expect(Set(parts.flatMap { $0 }) == distinct)
        let sizes = parts.map { Set($0).count }
        #expect(sizes.max()! - sizes.min()! <= 1)
        // Both copies of the path given twice are in one part.
        #expect(parts.filter { $0.contains(FilePath("archive/day-1/clip-1.mp4")) }.map { $0.filter { $0 == FilePath("archive/day-1/clip-1.mp4") }.count } == [2])
    }

    @Test func partsDependOnTheSetOfInputsNotTheirOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let shuffled = Self.batch.shuffled(using: &generator)
            for index in 1...4 {
                let shard = Shard(index: index, count: 4)!
                #expect(Set(shard.select(shuffled)) == Set(shard.select(Self.batch)))
            }
        }
    }

    @Test func aPartKeepsTheOrderGiven() {
        let inputs = ["c", "a", "b", "d"].map { FilePath($0) }
        // Sorted: a b c d; the first of two parts takes a and c, in the order given.
        #expect(Shard(index: 1, count: 2)!.select(inputs) == [FilePath("c"), FilePath("a")])
        #expect(Shard(index: 2, count: 2)!.select(inputs) == [FilePath("b"), FilePath("d")])
    }

    @Test(arguments: ["1/1", "3/4", "10/10"])
    func parsesKOverN(text: String) throws {
        let shard = try #require(Shard(text))
        #expect(shard.description == text)
    }

    @Test(arguments: ["0/4", "5/4", "1/0", "-1/4", "1/", "/4", "1/4/2", "a/4", "1 /4", "+1/4", "１/4"])
    func refusesWhatIsNotKOverN(text: String) {
        #expect(Shard(text) == nil)
    }
}

@Suite struct ResultDirectoryTests {
    @Test func namesClashesInTheSortedOrderOfTheInputs() {
        let inputs = ["z/clip.avi", "a/clip.mp4", "m/clip.avi", "clip-2.avi", "other.avi"].map { FilePath($0) }
        let directory = ResultDirectory(path: "out", format: .jsonl, names: InputNames(inputs))
        // Sorted: a/clip.mp4, clip-2.avi, m/clip.avi, other.avi, z/clip.avi.
        #expect(directory.finishedPath(for: FilePath("a/clip.mp4")) == "out/clip.jsonl")
        #expect(directory.finishedPath(for: FilePath("clip-2.avi")) == "out/clip-2.jsonl")
        #expect(directory.finishedPath(for: FilePath("m/clip.avi")) == "out/clip-3.jsonl")
        #expect(directory.finishedPath(for: FilePath("z/clip.avi")) == "out/clip-4.jsonl")
        let reversed = ResultDirectory(path: "out/", format: .jsonl, names: InputNames(inputs.reversed()))
        for input in inputs { #expect(reversed.finishedPath(for: input) == directory.finishedPath(for: input)) }
    }

    @Test(arguments: [(ResultFormat.jsonl, "jsonl"), (.csv, "csv"), (.text, "txt")])
    func extensionFollowsTheFormat(format: ResultFormat, fileExtension: String) {
        #expect(ResultDirectory(path: "d", format: format, names: InputNames([FilePath("v.mp4")])).finishedPath(for: FilePath("v.mp4")) == "d/v." + fileExtension)
    }

    @Test func aFileIsFinishedOnlyOnceRenamed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-results-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = FilePath("clips/a.avi")
        let directory = ResultDirectory(path: root.appendingPathComponent("nested/out").path, format: .csv, names: InputNames([input]))
        try directory.create()
        let out = root.appendingPathComponent("nested/out").path
        let writer = try directory.open(for: input)
        #expect(!directory.isFinished(input))
        let partials = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(partials.count == 1 && partials[0].hasPrefix("a.csv.partial-") && partials[0].count == "a.csv.partial-".count + 8)
        try directory.finish(writer)
        #expect(directory.isFinished(input))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["a.csv"])
        // The CSV header was written, and nothing else.
        #expect(try String(contentsOfFile: directory.finishedPath(for: input), encoding: .utf8) == CSVFormat(context: ExportContext()).opening)
    }
}

@Suite struct InputListTests {
    @Test func onePathPerLineAsBytesSkippingEmptyLines() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-list-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data([UInt8]("a b.mp4\n\n/x/\u{e9}.avi\nlatin-".utf8) + [0xE9] + Array(".avi\n\n".utf8)).write(to: url)
        let paths = try InputList.read(FilePath(url.path))
        #expect(paths == [FilePath("a b.mp4"), FilePath("/x/\u{e9}.avi"), FilePath(bytes: Array("latin-".utf8) + [0xE9] + Array(".avi".utf8))])
    }

    /// A link planted under the very name a partial file would take is not written through: the
    /// name is taken exclusively, so the next one is tried, and the rename replaces a link at the
    /// destination instead of following it.
    @Test func aLinkUnderThePartialNameIsNeverFollowed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-planted-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let victim = root.appendingPathComponent("victim.txt").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let destination = root.appendingPathComponent("a.jsonl").path
        for link in [destination + ".partial-AAAAAAAA", destination] {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        }
        var names = ["AAAAAAAA", "BBBBBBBB"].makeIterator()
        let file = try PartialFile(for: destination) { names.next()! }
        #expect(file.path == destination + ".partial-BBBBBBBB")
        #expect(write(file.descriptor, "results", 7) == 7)
        try file.commit()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try FileManager.default.attributesOfItem(atPath: destination)[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "results")
    }

    /// --resume removes what SIGKILL left: partial files of eight letters and digits that are this
    /// user's regular files; anything else under a like name is not facecam's and stays.
    @Test func onlyLeftoverPartialFilesAreRemoved() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-leftovers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a.jsonl.partial-dirABC12"), withIntermediateDirectories: true)
        for name in ["a.jsonl.partial-abcDEF12", "a.jsonl.partial-2024-01-", "a.jsonl.partial-abcdefghi", "b.jsonl.partial-abcdefgh", "a.jsonl"] {
            try Data().write(to: root.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("a.jsonl.partial-linkABCD").path, withDestinationPath: root.appendingPathComponent("a.jsonl").path)
        try PartialFile.removeLeftovers(of: root.appendingPathComponent("a.jsonl").path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == [
            "a.jsonl", "a.jsonl.partial-2024-01-", "a.jsonl.partial-abcdefghi", "a.jsonl.partial-dirABC12", "a.jsonl.partial-linkABCD",
            "b.jsonl.partial-abcdefgh",
        ])
    }

    /// A legal name of 239 to 255 bytes is written: its partial name is cut short, at a character
    /// (a two-byte é here), to 255 bytes, and --resume still finds what SIGKILL left of it.
    @Test func theLongestNamesAreWritten() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let name = String(repeating: "é", count: 124) + "x.jsonl" // 255 bytes
        let destination = root.appendingPathComponent(name).path
        let file = try PartialFile(for: destination) { "ABCDEFGH" }
        let partialName = String(file.path.dropFirst(root.path.count + 1))
        #expect(partialName == String(repeating: "é", count: 119) + ".partial-ABCDEFGH")
        #expect(partialName.utf8.count == 255)
        try file.commit()
        #expect(FileManager.default.fileExists(atPath: destination))
        try Data().write(to: root.appendingPathComponent(String(repeating: "é", count: 119) + ".partial-leftover"))
        try PartialFile.removeLeftovers(of: destination)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == [name])
    }

    @Test func aMissingListNamesItself() {
        #expect(throws: InputList.Failure.self) { try InputList.read(FilePath("/nonexistent/list")) }
        do {
            _ = try InputList.read(FilePath("/nonexistent/list"))
        } catch {
            guard case .unreadable(let error) = error else { Issue.record("\(error)"); return }
            #expect(error.path == "/nonexistent/list" && error.errno == ENOENT)
        }
    }
}

@Suite struct FileNamesTests {
    @Test func eachNameOnceWithCountersAfterTheFirst() {
        var names = FileNames()
        #expect(["a", "a", "a/b", "", "a", "a-2"].map { names.claim($0) } == ["a", "a-2", "a_b", "frame", "a-3", "a-2-2"])
    }
}
