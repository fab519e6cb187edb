import Foundation
import Testing
@testable import FaceCam

/// The two engines behind the DNN models. Each is held to OpenCV's own FaceDetectorYN and to the
/// CenterFace reference by the command tests (DetectCommandTests, CenterFaceCommandTests); here,
/// loading OpenVINO, and the two engines against each other on every fixture photograph.
struct InferenceEngineTests {
    @Test func openVINOLoadsFromTheBuildsResourceBundle() throws {
        let (version, directory) = try OpenVINORuntime.load()
        #expect(version.hasPrefix("2026.4.1"), "\(version)")
        #expect(directory.hasSuffix("/facecam_FaceCam.resources/OpenVINO"), "\(directory)")
    }

    /// bf16 is taken where the CPU's flags name it (AVX-512 BF16 on AMD Zen 4 and Intel Cooper Lake, AMX on Sapphire
    /// Rapids); an AVX2-only CPU, or one with AVX-512 alone, has none.
    @Test func bf16IsFoundInTheCPUsFlags() {
        let cpu = { (flags: String) in "processor\t: 0\nvendor_id\t: X\nflags\t\t: fpu sse2 \(flags)\nbogomips\t: 1\n\nprocessor\t: 1\nflags\t\t: avx512_bf16\n" }
        #expect(InferencePrecision.hasBF16(cpuinfo: cpu("avx2 avx512f avx512_bf16 avx512_vnni")))
        #expect(InferencePrecision.hasBF16(cpuinfo: cpu("avx2 amx_bf16 amx_tile")))
        #expect(!InferencePrecision.hasBF16(cpuinfo: cpu("avx2 fma")))
        #expect(!InferencePrecision.hasBF16(cpuinfo: cpu("avx2 avx512f avx512bw avx512_vnni")))
        #expect(!InferencePrecision.hasBF16(cpuinfo: ""))
    }

    @Test func openVINOIsLookedForBesideTheExecutableThenInTheSystem() {
        #expect(OpenVINORuntime.searchDirectories(executable: "/opt/facecam/bin/facecam", environment: nil) == [
            "/opt/facecam/bin/facecam_FaceCam.resources/OpenVINO", "/opt/facecam/bin/../lib/facecam",
            "/usr/local/lib/facecam", "/usr/lib/facecam",
        ])
        #expect(OpenVINORuntime.searchDirectories(executable: "/opt/facecam/bin/facecam", environment: "/srv/ov") == ["/srv/ov"])
        #expect(OpenVINORuntime.searchDirectories(executable: "/opt/facecam/bin/facecam", environment: "").count == 4)
    }

    @Test func aMissingRuntimeNamesEveryPlaceTried() {
        #expect {
            _ = try OpenVINORuntime.load(from: ["/nonexistent/a", "/nonexistent/b"])
        } throws: { error in
            guard case FaceCamError.engineUnavailable("OpenVINO", let tried, let reason) = error else { return false }
            return tried == ["/nonexistent/a", "/nonexistent/b"] && reason.contains(OpenVINORuntime.library)
        }
    }

    /// Each copy of a library is hashed about once a day: the checks after the first find it in the cache, while its
    /// listed SHA-256 is the one found; a listing naming another version, one byte changed in place (size, name, inode and
    /// modification time kept), a copy, or a day past are hashed again; a file changed in the seconds before its hash (its
    /// modification time old) is not remembered; a cache of garbage, another user's, a FIFO or in a folder that cannot be
    /// made is none, and the check still holds. The listing is sha256sum's, as `make openvino` writes it.
    @Test func librariesAreHashedOncePerCopy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checked-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/libs"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let original = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try original.write(to: URL(fileURLWithPath: library + "/libfake.so.1"))
        try Data("a second library".utf8).write(to: URL(fileURLWithPath: library + "/libother.so"))
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        for name in ["libfake.so.1", "libother.so"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: library + "/" + name)
        }
        let sums = try tool("/bin/sh", ["-c", "cd \"$0\" && sha256sum libfake.so.1 libother.so", library])
        try #require(sums.status == 0, "\(sums.errors)")
        let listing = Data(sums.output.utf8)
        try listing.write(to: URL(fileURLWithPath: library + "/" + OpenVINORuntime.checksums))
        var hashed = 0
        let counting = { (descriptor: Int32) -> String? in
            hashed += 1
            return OpenVINORuntime.sha256(descriptor)
        }
        let cache = folder + "/cache/facecam/checked-libraries"
        let check = { (directory: String, now: Int, cache: String) in
            OpenVINORuntime.check(directory, remembering: CheckedLibraries(file: cache, now: now), hash: counting)
        }
        let changed = ["libfake.so.1", "libother.so"].map { name in
            var info = stat()
            return stat(library + "/" + name, &info) == 0 ? info.st_ctim.tv_sec : Int.max / 2
        }.max()!
        #expect(check(library, changed + 1, cache) == nil)
        #expect(hashed == 2 && !FileManager.default.fileExists(atPath: cache), "changed a second ago: not remembered")
        let later = changed + 60
        #expect(check(library, later, cache) == nil)
        #expect(hashed == 4 && CheckedLibraries(file: cache, now: later).entries.count == 2)
        #expect(check(library, later, cache) == nil)
        #expect(hashed == 4)

        let otherVersion = String(decoding: listing, as: UTF8.self).split(separator: "\n").map { line in
            line.hasSuffix("  libother.so") ? String(repeating: "0", count: 64) + "  libother.so" : String(line)
        }.joined(separator: "\n") + "\n"
        try Data(otherVersion.utf8).write(to: URL(fileURLWithPath: library + "/" + OpenVINORuntime.checksums))
        #expect(check(library, later, cache) == "libother.so is not the library SHA256SUMS lists (damaged, or another version)")
        try listing.write(to: URL(fileURLWithPath: library + "/" + OpenVINORuntime.checksums))

        // Past a tick of the kernel's file clock (a few ms), so that the write changes the change time.
        usleep(20_000)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library + "/libfake.so.1"))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data([original[100] ^ 1]))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: library + "/libfake.so.1")
        let before = hashed
        #expect(check(library, later, cache) == "libfake.so.1 is not the library SHA256SUMS lists (damaged, or another version)")
        #expect(hashed == before + 1)
        try original.write(to: URL(fileURLWithPath: library + "/libfake.so.1"))
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: library + "/libfake.so.1")
        #expect(check(library, later, cache) == nil)
        #expect(hashed == before + 2, "libother.so is still remembered")

        #expect(try tool("/bin/cp", ["-p", "-R", library, folder + "/copy"]).status == 0)
        #expect(check(folder + "/copy", later, cache) == nil)
        #expect(hashed == before + 4, "a copy is hashed")
        #expect(check(library, later + CheckedLibraries.trustedSeconds, cache) == nil)
        #expect(hashed == before + 6, "a day on, hashed again")

        try Data("garbage\n\0\0 1 2 3 4 5 6\n".utf8).write(to: URL(fileURLWithPath: cache))
        #expect(check(library, later, cache) == nil)
        #expect(hashed == before + 8 && CheckedLibraries(file: cache, now: later).entries.count == 2)
        if geteuid() == 0 {
            #expect(chown(cache, 1, 1) == 0)
            #expect(CheckedLibraries(file: cache, now: later).entries.isEmpty, "another user's cache")
        }
        let fifo = folder + "/cache/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(CheckedLibraries(file: fifo, now: later).entries.isEmpty)
        #expect(check(library, later, library + "/libother.so/facecam/x") == nil)
    }

    @Test func theCacheIsWhereXDGSays() {
        let user = { (variables: [String: String]) in CheckedLibraries.user(environment: variables).file }
        #expect(user(["XDG_CACHE_HOME": "/c", "HOME": "/h"]) == "/c/facecam/checked-libraries")
        #expect(user(["XDG_CACHE_HOME": "relative", "HOME": "/h"]) == "/h/.cache/facecam/checked-libraries")
        #expect(user([:]) == nil)
    }

    /// Every fixture photograph, at scales 1 and 2: the same faces on both engines, boxes and landmarks
    /// within a pixel and scores within 0.01 (f32), for YuNet and CenterFace.
    @Test(arguments: FaceModelKind.allCases)
    func bothEnginesFindTheSameFaces(_ kind: FaceModelKind) throws {
        try OpenVINORuntime.load()
        let parameters = ModelParameters(scoreThreshold: kind == .yunet ? 0.5 : 0.3)
        let detectors = try [InferenceEngine.opencv, .openvino].map { (engine) throws(FaceCamError) in
            try ModelFaceDetector(
                model: FaceModelFile(shipped: kind), parameters: parameters, scales: [1, 2],
                engine: EngineSettings(engine: engine, threads: 2))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("images").path).sorted()
        var faces = 0
        for file in files {
            let frame = try ImageFile.load(fixture("images/" + file)).frame
            let geometry = try PreviewGeometry(frameSize: frame.size)
            let (opencv, openvino) = (try detectors[0].detect(in: frame, geometry: geometry), try detectors[1].detect(in: frame, geometry: geometry))
            try #require(opencv.count == openvino.count, "\(file): \(opencv.map(\.box)) against \(openvino.map(\.box))")
            for (a, b) in zip(opencv, openvino) {
                let corners = [(a.box.x, b.box.x), (a.box.y, b.box.y), (a.box.width, b.box.width), (a.box.height, b.box.height)]
                #expect(corners.allSatisfy { abs($0 - $1) <= 1 }, "\(file): \(a.box) against \(b.box)")
                #expect(abs((a.score ?? 0) - (b.score ?? 0)) <= 0.01, "\(file): \(a.score ?? 0) against \(b.score ?? 0)")
                let points = zip(a.landmarks?.points ?? [], b.landmarks?.points ?? [])
                #expect(points.allSatisfy { abs($0.x - $1.x) <= 1 && abs($0.y - $1.y) <= 1 }, "\(file)")
            }
            faces += opencv.count
        }
        #expect(faces >= 5)
    }
}
