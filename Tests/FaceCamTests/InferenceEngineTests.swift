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

    /// Each copy of a library is hashed once: the checks after the first find it in the cache; one byte changed in place
    /// (size, name and inode kept) is hashed again and refused; a file changed in the last seconds is not remembered; a
    /// cache of garbage, a FIFO or a folder that cannot be made is no cache, and the check still holds. The listing is
    /// sha256sum's, as `make openvino` writes it. The first check is made now, on files just written; the others as if a
    /// minute later.
    @Test func librariesAreHashedOncePerCopy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checked-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let original = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try original.write(to: URL(fileURLWithPath: folder + "/libfake.so.1"))
        try Data("a second library".utf8).write(to: URL(fileURLWithPath: folder + "/libother.so"))
        let sums = Process()
        sums.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        sums.arguments = ["libfake.so.1", "libother.so"]
        sums.currentDirectoryURL = URL(fileURLWithPath: folder)
        let listing = Pipe()
        sums.standardOutput = listing
        try sums.run()
        let listed = listing.fileHandleForReading.readDataToEndOfFile()
        sums.waitUntilExit()
        try listed.write(to: URL(fileURLWithPath: folder + "/" + OpenVINORuntime.checksums))
        var hashed = 0
        let counting = { (path: String) -> String? in
            hashed += 1
            return OpenVINORuntime.sha256(path)
        }
        let cache = folder + "/cache/facecam/checked-libraries"
        let later = time(nil) + 60
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: cache), hash: counting) == nil)
        #expect(hashed == 2 && !FileManager.default.fileExists(atPath: cache))
        hashed = 0
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: cache, now: later), hash: counting) == nil)
        #expect(hashed == 2 && CheckedLibraries(file: cache).entries.count == 2)
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: cache, now: later), hash: counting) == nil)
        #expect(hashed == 2)

        // Past a tick of the kernel's file clock (a few ms), so that the write changes the times stat gives.
        usleep(20_000)
        let library = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/libfake.so.1"))
        try library.seek(toOffset: 100)
        try library.write(contentsOf: Data([original[100] ^ 1]))
        try library.close()
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: cache, now: later), hash: counting)
            == "libfake.so.1 is not the library SHA256SUMS lists (damaged, or another version)")
        #expect(hashed == 3)
        try original.write(to: URL(fileURLWithPath: folder + "/libfake.so.1"))

        try Data("garbage\n\0\0 1 2 3 4 5\n".utf8).write(to: URL(fileURLWithPath: cache))
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: cache, now: later), hash: counting) == nil)
        #expect(hashed == 5 && CheckedLibraries(file: cache).entries.count == 2)
        let fifo = folder + "/cache/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(CheckedLibraries(file: fifo).entries.isEmpty)
        #expect(OpenVINORuntime.check(folder, remembering: CheckedLibraries(file: folder + "/libother.so/facecam/x", now: later), hash: counting) == nil)
        #expect(hashed == 7)
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
