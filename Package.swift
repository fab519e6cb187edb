// swift-tools-version:6.0
import PackageDescription

/// OpenCV's headers live under /usr/include/opencv4 on Debian; only the modules
/// facecam calls are linked, not everything `pkg-config opencv4 --libs` lists.
let openCVFlags: [CXXSetting] = [.unsafeFlags(["-I/usr/include/opencv4"])]
/// highgui is not among them: the shim loads it for `live --show` only (cfd_window.cpp), so that facecam needs no Qt.
/// imgcodecs and videoio are not among them either: they are libFaceCamMedia.so's (CFaceMedia).
// OpenSSL's libcrypto: the SHA-256s of OpenVINO's libraries, checked before they are loaded.
let openCVLibraries: [LinkerSetting] = ["opencv_core", "opencv_imgproc", "opencv_calib3d", "opencv_objdetect", "opencv_dnn", "crypto"]
    .map { .linkedLibrary($0) }
/// libavutil (FFmpeg's, which OpenCV's videoio runs on) for its log callback: what FFmpeg reports
/// while a video is read is how damage is told from a container's estimate; libavformat to say why a
/// video cannot be opened, which OpenCV does not (cfd_video.cpp).
let mediaLibraries: [LinkerSetting] = ["opencv_core", "opencv_imgproc", "opencv_imgcodecs", "opencv_videoio", "avformat", "avutil"]
    .map { .linkedLibrary($0) }

/// swift-nio's modules by name.
func nio(_ modules: String...) -> [Target.Dependency] { modules.map { .product(name: $0, package: "swift-nio") } }

/// The tests compile unoptimized and file by file in every configuration: make test builds them beside the release
/// library (with -enable-testing), and optimizing 13,000 lines of tests would cost more than it saves; a release build
/// compiles a module whole, on one core, where the files of a test module are shared out among the cores.
let unoptimized: [SwiftSetting] = [.unsafeFlags(["-Onone", "-no-whole-module-optimization"])]

let package = Package(
    name: "facecam",
    products: [
        .executable(name: "facecam", targets: ["FaceCamMain"]),
        .executable(name: "facecam-fuzz", targets: ["facecam-fuzz"]),
        .library(name: "FaceCam", targets: ["FaceCam"]),
        // Still images and videos through OpenCV's imgcodecs and videoio and FFmpeg, which bring over two hundred
        // libraries: CFaceDetect loads this library the first time it needs one, so that a start does not load them.
        .library(name: "FaceCamMedia", type: .dynamic, targets: ["CFaceMedia"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The live preview's HTTP server (live --serve) and its /metrics.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "CFaceDetect",
            // media.hpp: what libFaceCamMedia.so offers (its table of entry points), which this target loads.
            cxxSettings: openCVFlags + [.unsafeFlags(["-I", Context.packageDirectory + "/Sources/CFaceMedia/include"])],
            linkerSettings: openCVLibraries
        ),
        // CFaceDetect's media entry points, built from its headers (cfd.h, shim.hpp); hidden but for the one table
        // the shim looks up (include/media.hpp).
        .target(
            name: "CFaceMedia",
            exclude: ["exports.map"],
            cxxSettings: openCVFlags + [.unsafeFlags([
                "-I", Context.packageDirectory + "/Sources/CFaceDetect", "-I", Context.packageDirectory + "/Sources/CFaceDetect/include",
                "-fvisibility=hidden",
            ])],
            // C++ alone: swiftc links every product, and would add its start files and so the Swift runtime, which the
            // library does not use (and the binary has linked in).
            // exports.map: the table alone (the C++ templates it instantiates would be exported too).
            linkerSettings: mediaLibraries + [.unsafeFlags([
                "-nostartfiles", "-static-stdlib", "-Xlinker", "--version-script=" + Context.packageDirectory + "/Sources/CFaceMedia/exports.map",
            ])]
        ),
        .target(
            name: "CJPEG",
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        .target(
            name: "CV4L2",
            linkerSettings: [.linkedLibrary("v4l2")]
        ),
        // live --mqtt: libmosquitto, with its callbacks funnelled into one so that none of its types reach Swift.
        .target(
            name: "CMQTT",
            linkerSettings: [.linkedLibrary("mosquitto")]
        ),
        // Face descriptors for recognition: dlib's shape predictor and ResNet (Debian's libdlib, on OpenBLAS).
        .target(
            name: "CFaceRecognition",
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("blas"), .linkedLibrary("lapack")]
        ),
        // What needs no C library: geometry, faces, tracking, zones, the formats, evaluation, batches.
        .target(name: "FaceCamCore"),
        .target(
            name: "FaceCam",
            dependencies: ["FaceCamCore", "CFaceDetect", "CJPEG", "CV4L2"],
            // The YuNet and CenterFace models, their licences and provenance; found at run time by FaceModelFile.
            // CenterFace's model file is fetched by `make models`. OpenVINO's runtime, fetched by `make openvino`,
            // is loaded at run time (OpenVINORuntime), so that facecam runs on OpenCV without it.
            resources: [.copy("Resources/YuNet"), .copy("Resources/CenterFace"), .copy("Resources/OpenVINO")]
        ),
        // Who a face is: descriptors (dlib's models, fetched by `make models`); a target of its own so
        // that only what recognises links dlib.
        // The gallery of enrolled people: SQLite, Debian's libsqlite3.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "FaceCamRecognition", dependencies: ["FaceCam", "CFaceRecognition", "CSQLite"], resources: [.copy("Resources/Dlib")]),
        // live --mqtt: the broker connection, the topics and Home Assistant's discovery; a target of its own so that
        // only what publishes links libmosquitto (not the library, nor its fuzz build).
        .target(name: "FaceCamMQTT", dependencies: ["FaceCam", "CMQTT"]),
        // The live preview served over HTTP; a target of its own so that the library (and its fuzz build) needs no NIO.
        .target(
            name: "FaceCamServe",
            dependencies: ["FaceCam", .product(name: "Prometheus", package: "swift-prometheus")] + nio("NIOCore", "NIOPosix", "NIOHTTP1")
        ),
        // The command line: the ArgumentParser commands, a library so that the tests link it without the binary's
        // statically linked Swift runtime.
        .target(
            name: "FaceCamCLI",
            dependencies: [
                "FaceCam",
                "FaceCamMQTT",
                "FaceCamServe",
                "FaceCamRecognition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The binary, facecam: FaceCamCLI's entry point. A release build links the Swift runtime and Foundation statically, so
        // that facecam runs without the toolchain; its one file is compiled against the static modules, whose
        // objects name every archive they need.
        .executableTarget(
            name: "FaceCamMain", dependencies: ["FaceCamCLI"],
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
        // libFuzzer targets with -sanitize=fuzzer -DFUZZING (make fuzz); built plainly, a corpus replayer.
        .executableTarget(name: "facecam-fuzz", dependencies: ["FaceCam"], path: "Tests/Fuzz", exclude: ["corpus", "run.sh"]),
        .testTarget(name: "CFaceDetectTests", dependencies: ["CFaceDetect"], swiftSettings: unoptimized),
        .testTarget(name: "CJPEGTests", dependencies: ["CJPEG"], swiftSettings: unoptimized),
        .testTarget(name: "CV4L2Tests", dependencies: ["CV4L2"], swiftSettings: unoptimized),
        .testTarget(name: "FaceCamCoreTests", dependencies: ["FaceCamCore"], swiftSettings: unoptimized),
        .testTarget(name: "FaceCamTests", dependencies: ["FaceCam"], swiftSettings: unoptimized),
        .testTarget(name: "FaceCamRecognitionTests", dependencies: ["FaceCamRecognition"], swiftSettings: unoptimized),
        .testTarget(name: "FaceCamMQTTTests", dependencies: ["FaceCamMQTT"], swiftSettings: unoptimized),
        .testTarget(name: "FaceCamServeTests", dependencies: ["FaceCamServe"] + nio("NIOEmbedded", "NIOHTTP1"), swiftSettings: unoptimized),
        .testTarget(name: "FaceCamCLITests", dependencies: ["FaceCamCLI"], swiftSettings: unoptimized),
    ],
    cxxLanguageStandard: .cxx17
)
