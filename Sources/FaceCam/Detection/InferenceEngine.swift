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
    /// Written beside the libraries by `make openvino`: each library's name and size, a tab apart.
    /// A library that is missing, truncated or no regular file (a FIFO would block the loader) is
    /// refused before anything is loaded.
    public static let manifest = "manifest.tsv"
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
    /// and the directory it was loaded from.
    @discardableResult
    public static func load(from directories: [String] = searchDirectories()) throws(FaceCamError) -> (version: String, directory: String) {
        guard let directory = directories.first(where: { (try? fileKind($0 + "/" + library)) == .regular }) else {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: directories, reason: "\(library) not found")
        }
        if let damage = checkManifest(in: directory) {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: [directory], reason: damage)
        }
        var version = [CChar](repeating: 0, count: 128)
        var loadedFrom = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        var error = cfd_error()
        guard cfd_openvino_load(directory, &version, version.count, &loadedFrom, loadedFrom.count, &error) == CFD_OK else {
            throw .engineUnavailable(InferenceEngine.openvino.name, tried: [directory], reason: error.text)
        }
        let text = { (chars: [CChar]) in String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (text(version), text(loadedFrom))
    }

    /// What is wrong with the libraries `manifest` lists in `directory`, or nil when each is a
    /// regular file of its listed size.
    static func checkManifest(in directory: String) -> String? {
        let path = directory + "/" + manifest
        guard (try? fileKind(path)) == .regular, let listing = try? String(contentsOfFile: path, encoding: .utf8) else {
            return "\(manifest) not found"
        }
        let entries = listing.split(separator: "\n").map { $0.split(separator: "\t") }
        guard !entries.isEmpty, entries.allSatisfy({ $0.count == 2 && Int($0[1]) != nil }) else { return "\(manifest) is damaged" }
        for entry in entries {
            let name = String(entry[0]), size = Int(entry[1])!
            guard let info = try? fileInfo(FilePath(directory + "/" + name)) else { return "\(name) is missing" }
            guard FileKind(info) == .regular, Int(info.st_size) == size else {
                return "\(name) is not the \(size)-byte library \(manifest) lists"
            }
        }
        return nil
    }
}
