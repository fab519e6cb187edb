import Foundation
import Testing

/// --engine, --precision and --threads on the built binary, and what happens where OpenVINO's
/// libraries are missing or broken ($FACECAM_OPENVINO_DIR points the search at one directory).
struct EngineCommandTests {
    static let photos = ["images/grace_hopper.jpg", "images/two-faces.jpg"].map(fixture)

    /// The runtime the build ships, in its resource bundle.
    static let shipped = facecamBinary.deletingLastPathComponent().appendingPathComponent("facecam_FaceCam.resources/OpenVINO")

    /// A copy of the shipped runtime (links to its files) with one library changed by `damage`.
    static func brokenRuntime(_ damage: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-openvino-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: shipped.path) where name.hasPrefix("lib") || name == "SHA256SUMS" {
            try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(name), withDestinationURL: shipped.appendingPathComponent(name))
        }
        let (name, kind) = (damage.split(separator: ":").map(String.init)[0], damage.split(separator: ":").map(String.init)[1])
        let library = directory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: library)
        switch kind {
        case "text": try Data("not a library".utf8).write(to: library)
        case "truncated": try Data(try Data(contentsOf: shipped.appendingPathComponent(name)).prefix(100_000)).write(to: library)
        case "overwritten":
            // 4 KB of its code overwritten, its size unchanged: the loader would map it and crash.
            var bytes = try Data(contentsOf: shipped.appendingPathComponent(name))
            bytes.replaceSubrange(bytes.count / 2..<bytes.count / 2 + 4096, with: Data(repeating: 0xCC, count: 4096))
            try bytes.write(to: library)
        case "fifo": #expect(mkfifo(library.path, 0o600) == 0)
        default: break // missing
        }
        return directory.path
    }

    /// OpenVINO loads but cannot read the models (its ONNX frontend is gone, and not listed): the models are sound, as
    /// OpenCV reading them shows, so the run goes on with OpenCV's engine after one line, not a usage error.
    @Test func aRuntimeThatCannotReadTheModelFallsBackToOpenCV() throws {
        let directory = try Self.brokenRuntime("libopenvino_onnx_frontend.so.2641:missing")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sums = directory + "/SHA256SUMS"
        let listed = try String(contentsOfFile: sums, encoding: .utf8).split(separator: "\n").filter { !$0.hasSuffix("onnx_frontend.so.2641") }
        try FileManager.default.removeItem(atPath: sums)
        try (listed.joined(separator: "\n") + "\n").write(toFile: sums, atomically: true, encoding: .utf8)
        for detector in modelDetectors {
            let fallback = try run(facecamBinary, ["detect", "--detector", detector] + Self.photos, environment: ["FACECAM_OPENVINO_DIR": directory])
            #expect(fallback.status == 0, "\(fallback.stderr)")
            #expect(fallback.errorLines.count == 1 && fallback.errorLines[0].hasPrefix("facecam: OpenVINO could not run the model (")
                && fallback.errorLines[0].hasSuffix("); running on OpenCV's dnn, at about half the speed"), "\(fallback.stderr)")
            let opencv = try run(facecamBinary, ["detect", "--detector", detector, "--engine", "opencv"] + Self.photos)
            #expect(fallback.stdout == opencv.stdout)
        }
    }

    /// The networks OpenVINO compiles are kept in the user's cache folder and imported by later runs, which leave the
    /// files as they are. The faces are the same byte for byte from a run that compiles, one that imports, and runs
    /// whose kept files are truncated, garbage or FIFOs, or whose folder cannot be made: those compile, replace what they
    /// could not read, and say nothing of it.
    @Test func compiledNetworksAreKeptAndImportedAsTheSameFaces() throws {
        let cache = try temporaryDirectory("compiled-networks")
        defer { try? FileManager.default.removeItem(at: cache) }
        let networks = cache.appendingPathComponent("facecam/openvino-networks")
        let detectBoth = {
            try modelDetectors.map { detector in
                let result = try run(facecamBinary, ["detect", "--detector", detector] + Self.photos, environment: ["XDG_CACHE_HOME": cache.path])
                #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
                return result.stdout
            }
        }
        let kept = { () throws -> [String: Date] in
            let names = try FileManager.default.contentsOfDirectory(atPath: networks.path)
            return try Dictionary(uniqueKeysWithValues: names.map { name in
                (name, try #require(try FileManager.default.attributesOfItem(atPath: networks.appendingPathComponent(name).path)[.modificationDate] as? Date))
            })
        }
        let compiled = try detectBoth()
        let files = try kept()
        #expect(files.count == 2 && files.keys.allSatisfy { $0.hasSuffix(".blob") }, "\(files.keys)")
        let folderMode = try FileManager.default.attributesOfItem(atPath: networks.path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        Thread.sleep(forTimeInterval: 0.05) // a file written again would show a later time
        #expect(try detectBoth() == compiled)
        #expect(try kept() == files, "an import leaves the files as they are")

        for damage in ["truncated", "garbage", "fifo"] {
            for name in files.keys {
                let path = networks.appendingPathComponent(name).path
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                try FileManager.default.removeItem(atPath: path)
                switch damage {
                case "truncated": try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
                case "garbage": try Data("not a network".utf8).write(to: URL(fileURLWithPath: path))
                default: #expect(mkfifo(path, 0o600) == 0)
                }
            }
            #expect(try detectBoth() == compiled, "\(damage)")
            #expect(try Set(kept().keys) == Set(files.keys), "\(damage): replaced")
            for name in files.keys {
                let size = try FileManager.default.attributesOfItem(atPath: networks.appendingPathComponent(name).path)[.size] as? Int
                #expect((size ?? 0) > 100_000, "\(damage): \(name) is \(size ?? 0) bytes")
            }
        }
        try FileManager.default.removeItem(at: networks)
        try Data().write(to: networks)
        #expect(try detectBoth() == compiled, "no folder to keep them in")
    }

    @Test func versionNamesTheEngine() throws {
        let version = try facecam("--version")
        #expect(version.status == 0)
        #expect(version.lines.count == 2 && version.lines[1].hasPrefix("inference: OpenVINO 2026.4.1"), "\(version.stdout)")
        let without = try run(facecamBinary, ["--version"], environment: ["FACECAM_OPENVINO_DIR": "/nonexistent"])
        #expect(without.lines.count == 2 && without.lines[1].hasPrefix("inference: OpenCV 4.6.0 (OpenVINO is not available"))
    }

    /// Without OpenVINO, one line says so and the faces are OpenCV's engine's, byte for byte;
    /// --engine openvino makes it a usage error, before any input is read.
    @Test(arguments: [
        "/nonexistent", "libopenvino_c.so.2641:text", "libopenvino_c.so.2641:truncated", "libopenvino.so.2641:fifo",
        "libopenvino_onnx_frontend.so.2641:missing", "libopenvino_intel_cpu_plugin.so:truncated",
        "libopenvino_intel_cpu_plugin.so:overwritten", "plugins.xml:fifo",
        // A plugins.xml names libraries anywhere, and OpenVINO finds frontends in the folder by name: neither is listed.
        "plugins.xml:text", "libopenvino_tensorflow_frontend.so.2641:text",
    ])
    func aMissingOrBrokenRuntimeFallsBackToOpenCV(_ damage: String) throws {
        // Made here rather than among the arguments, which are made whenever the tests are listed, and never removed.
        let directory = damage.hasPrefix("/") ? damage : try Self.brokenRuntime(damage)
        defer { if directory != damage { try? FileManager.default.removeItem(atPath: directory) } }
        // Whether the runtime loads is found before any detector is made: one detector each way is enough here (both are
        // run on a runtime that loads and cannot read the models above).
        let environment = ["FACECAM_OPENVINO_DIR": directory]
        let fallback = try run(facecamBinary, ["detect", "--detector", "yunet"] + Self.photos, environment: environment)
        #expect(fallback.status == 0)
        #expect(fallback.errorLines.count == 1 && fallback.stderr.contains("OpenVINO is not available")
            && fallback.stderr.contains(directory) && fallback.stderr.contains("running on OpenCV"), "\(fallback.stderr)")
        let opencv = try Self.openCVReference.get()
        #expect(opencv.stderr.isEmpty && fallback.stdout == opencv.stdout && fallback.lines.count == 2)
        let refused = try run(
            facecamBinary, ["detect", "--detector", "centerface", "--engine", "openvino"] + Self.photos, environment: environment)
        #expect(refused.status == 64 && refused.stdout.isEmpty && refused.errorLines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--engine opencv"))
        // Haar runs no network: no word of OpenVINO.
        let haar = try run(facecamBinary, ["detect", "--detector", "haar"] + Self.photos, environment: environment)
        #expect(haar.status == 0 && haar.stderr.isEmpty)
    }

    /// YuNet's faces in `photos` on OpenCV's engine, which every fallback must give byte for byte: run once for all cases.
    static let openCVReference = Result { try run(facecamBinary, ["detect", "--detector", "yunet", "--engine", "opencv"] + photos) }

    /// bf16 where the CPU has it (f32 elsewhere, as on CPUs without avx512_bf16 or AMX): the same
    /// faces as f32, boxes within a few pixels.
    @Test func bf16FindsTheSameFaces() throws {
        let f32 = try run(facecamBinary, ["detect"] + Self.photos)
        let bf16 = try run(facecamBinary, ["detect", "--precision", "bf16"] + Self.photos)
        #expect(f32.status == 0 && bf16.status == 0, "\(bf16.stderr)")
        try #require(try f32.records().count == Self.photos.count && bf16.records().count == Self.photos.count)
        for (a, b) in zip(try f32.records(), try bf16.records()) {
            let (boxesA, boxesB) = (boxes(a), boxes(b))
            try #require(boxesA.count == boxesB.count, "\(boxesA) against \(boxesB)")
            for (x, y) in zip(boxesA, boxesB) {
                #expect(zip(x, y).allSatisfy { abs($0 - $1) <= max(3, x[2] / 20) }, "\(x) against \(y)")
            }
        }
    }

    /// YuNet on OpenCV's engine: FaceDetectorYN's faces, on every fixture expectation (the default
    /// engine's are checked by DetectCommandTests.boxesEqualOpenCVsOwn).
    @Test(arguments: try Expectation.all().filter { $0.faces != nil })
    func openCVsEngineEqualsFaceDetectorYN(_ expectation: Expectation) throws {
        let result = try run(facecamBinary, ["detect", "--engine", "opencv"] + expectation.arguments + [fixture(expectation.file)])
        #expect(result.status == 0, "\(result.stderr)")
        let record = try #require(try result.records().first)
        #expect(facesMatch(record, expectation.faces!), "\(record) against \(expectation.faces!)")
    }
}
