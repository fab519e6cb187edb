#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// What runs the DNN models' networks (YuNet, CenterFace). The models' pre- and post-processing
/// are the same on both; the outputs agree to about 1e-5.
public enum InferenceEngine: String, Sendable, CaseIterable {
    /// OpenVINO's CPU runtime (2026.4), shipped beside facecam: about twice OpenCV's frames a second.
    case openvino
    /// OpenCV's dnn module (Debian 12's 4.6): always there.
    case opencv

    public var name: String {
        switch self {
        case .openvino: "OpenVINO"
        case .opencv: "OpenCV dnn"
        }
    }

    /// The OpenCV version facecam was built with, such as "4.6.0".
    public static var openCVVersion: String { String(cString: cfd_opencv_version()) }
}

/// The arithmetic a network runs in.
public enum InferencePrecision: String, Sendable, CaseIterable {
    /// Single precision: the models' own, within about 1e-5 of OpenCV's outputs.
    case f32
    /// bfloat16, on OpenVINO and CPUs that have it (others run f32): faster, scores move by up to a few hundredths.
    case bf16

    /// Whether this CPU does bfloat16 arithmetic itself (AVX-512 BF16 or AMX): elsewhere OpenVINO emulates it, at two
    /// to three times f32's time.
    public static var cpuHasBF16: Bool {
        hasBF16(cpuinfo: (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "")
    }

    /// Whether the first processor's flags in `cpuinfo` (/proc/cpuinfo's text) name bfloat16 arithmetic.
    static func hasBF16(cpuinfo: String) -> Bool {
        guard let flags = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        return !Set(flags.split(separator: " ").map(String.init)).isDisjoint(with: ["avx512_bf16", "amx_bf16"])
    }
}

/// An engine, its precision and the threads one inference may use.
public struct EngineSettings: Hashable, Sendable {
    public var engine: InferenceEngine
    public var precision: InferencePrecision
    /// OpenVINO's threads inside one inference; OpenCV's pool is the process's (`OpenCVThreads`).
    public var threads: Int

    public init(engine: InferenceEngine = .opencv, precision: InferencePrecision = .f32, threads: Int = 1) {
        precondition(threads >= 1, "an engine needs a thread")
        self.engine = engine
        self.precision = precision
        self.threads = threads
    }

    var shimSettings: cfd_engine_settings {
        cfd_engine_settings(
            engine: engine == .openvino ? CFD_ENGINE_OPENVINO : CFD_ENGINE_OPENCV,
            precision: precision == .bf16 ? CFD_PRECISION_BF16 : CFD_PRECISION_F32, threads: Int32(clamping: threads))
    }
}

/// OpenVINO's runtime libraries, which facecam loads when it first needs them rather than linking
/// them, so that it starts, and runs on OpenCV, where they are missing.
public enum OpenVINORuntime {
    /// The file facecam loads; the core, the CPU plugin and the ONNX frontend are found beside it.
    public static let library = "libopenvino_c.so.2641"
    /// Written beside the libraries by `make openvino`, as sha256sum writes it: each library's SHA-256 and name. A
    /// library that is missing, damaged or no regular file is refused before anything is loaded, as is the folder when
    /// anything in it is a FIFO, socket or device (the loader would block reading it).
    public static let checksums = "SHA256SUMS"
    /// Names a directory to load OpenVINO from instead of the places `searchDirectories` lists.
    public static let directoryVariable = "FACECAM_OPENVINO_DIR"

    /// Where the libraries are looked for: $FACECAM_OPENVINO_DIR alone when set; else SwiftPM's
    /// resource bundle beside the executable (a build), the private library directory of the prefix
    /// it is installed under, then /usr/local/lib/facecam and /usr/lib/facecam.
    public static func searchDirectories(
        executable: String? = FaceModelFile.executablePath(), environment: String? = getenv(directoryVariable).map { String(cString: $0) }
    ) -> [String] {
        if let environment, !environment.isEmpty { return [environment] }
        var directories: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            let directory = String(executable[..<slash])
            directories += [directory + "/facecam_FaceCam.resources/OpenVINO", directory + "/../lib/facecam"]
        }
        return directories + ["/usr/local/lib/facecam", "/usr/lib/facecam"]
    }

    /// Loads the runtime, once for the process, and returns its version (such as "2026.4.1-22982-...")
    /// and the directory it was loaded from. The networks it compiles are kept in the user's cache
    /// (`UserCache.compiledNetworks`), where later runs import them: YuNet's start takes 0.04 s of CPU rather than 0.2,
    /// CenterFace's 0.09 rather than 0.2.
    @discardableResult
    public static func load(from directories: [String] = searchDirectories()) throws(FaceCamError) -> (version: String, directory: String) {
        guard let directory = directories.first(where: { (try? fileKind($0 + "/" + library)) == .regular }) else {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: directories, reason: "\(library) not found")
        }
        if let damage = check(directory) {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: [directory], reason: damage)
        }
        var version = [CChar](repeating: 0, count: 128)
        var loadedFrom = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        var error = cfd_error()
        let compiledNetworks = UserCache.compiledNetworks()
        guard cfd_openvino_load(directory, compiledNetworks, &version, version.count, &loadedFrom, loadedFrom.count, &error) == CFD_OK
        else {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: [directory], reason: error.text)
        }
        let text = { (chars: [CChar]) in String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (text(version), text(loadedFrom))
    }

    /// What is wrong with `directory`, or nil when each library `checksums` lists is a regular file of the SHA-256 it
    /// lists, and nothing else there is something OpenVINO would load or wait on: a library it does not list (OpenVINO
    /// looks for its plugins and frontends in the folder by name), a plugins.xml (which names libraries elsewhere), a
    /// FIFO, socket or device. Hashing the 90 MB takes 80 to 100 ms of CPU with SHA instructions: `checked` remembers
    /// the copies already hashed, which are then hashed again only once changed. `hash` gives the SHA-256 of the file
    /// a descriptor holds in hexadecimal, nil when it cannot be read (the tests' seam).
    static func check(
        _ directory: String, remembering checked: CheckedLibraries = .user(), hash: (Int32) -> String? = sha256
    ) -> String? {
        let folder = FilePath(directory)
        let listing: [UInt8]
        do {
            let file = try FileDescriptor(opening: folder.appending(Array(checksums.utf8)), flags: O_RDONLY | O_NONBLOCK)
            guard FileKind(try file.status()) == .regular else { return "\(checksums) is not a regular file" }
            listing = try file.readAll(limit: 65_536)
        } catch {
            return error.errno == EFBIG ? "\(checksums) is damaged (larger than any list of libraries)" : "\(checksums) not found"
        }
        let entries = String(decoding: listing, as: UTF8.self).split(separator: "\n").map { line in
            (sha256: String(line.prefix(64)), name: String(line.dropFirst(66)))
        }
        let hexadecimal = Set("0123456789abcdef")
        guard !entries.isEmpty, entries.allSatisfy({
            $0.sha256.count == 64 && $0.sha256.allSatisfy(hexadecimal.contains) && !$0.name.isEmpty && !$0.name.contains("/")
        }) else { return "\(checksums) is damaged" }
        let listed = Set(entries.map { Array($0.name.utf8) })
        guard let names = try? directoryEntries(folder) else { return "the folder cannot be listed" }
        for name in names {
            let shown = folder.appending(name)
            if (try? fileStatus(shown).kind) == .other { return "\(shown) is a FIFO, socket or device, which the loader would wait on" }
            let text = String(decoding: name, as: UTF8.self)
            if text == "plugins.xml" || (text.hasPrefix("lib") && text.contains(".so") && !listed.contains(name)) {
                return "\(shown) is not among the libraries \(checksums) lists, and OpenVINO would load what it names"
            }
        }
        var checked = checked
        for entry in entries {
            let library = FilePath(directory + "/" + entry.name)
            guard let info = try? fileInfo(library) else { return "\(entry.name) is missing" }
            // The path is looked at first, so that no device or FIFO is opened; then one descriptor: what is looked up,
            // hashed and remembered is the one file it holds, whatever the path comes to name meanwhile.
            guard FileKind(info) == .regular, Int(info.st_size) <= Self.largestLibrary,
                  let file = try? FileDescriptor(opening: library, flags: O_RDONLY | O_NONBLOCK), let before = try? file.status(),
                  FileKind(before) == .regular, Int(before.st_size) <= Self.largestLibrary,
                  checked.holds(entry.sha256, before) || hash(file.rawValue) == entry.sha256
            else {
                return "\(entry.name) is not the library \(checksums) lists (damaged, or another version)"
            }
            // Remembered only as it was throughout the hash.
            if let after = try? file.status() { checked.add(entry.sha256, before, unchangedIn: after) }
        }
        checked.save()
        return nil
    }

    /// The SHA-256 of the file `descriptor` holds in hexadecimal, nil when it cannot be read.
    static func sha256(_ descriptor: Int32) -> String? {
        var hex = [CChar](repeating: 0, count: 65)
        var error = cfd_error()
        guard cfd_sha256_descriptor(descriptor, &hex, &error) == CFD_OK else { return nil }
        return String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Larger than any of OpenVINO's libraries (the CPU plugin, 64 MB): a file past it is not hashed.
    static let largestLibrary = 512 << 20
}
