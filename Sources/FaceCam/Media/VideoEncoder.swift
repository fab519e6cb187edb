#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization

/// A video written by Debian's ffmpeg, fed BGRA frames and their times through a socket: H.264 (libx264) in
/// .mp4, .mkv and .mov, MJPEG in .avi, with the audio of another file copied as it is.
///
/// The file is written as a `PartialFile`, which ffmpeg gets as its standard output, and renamed by
/// `finish()` once ffmpeg has written it all; a failure or a run that stops early removes it, so
/// `PATH` only ever names a whole file.
public final class VideoEncoder: FrameOutput {
    public struct Settings: Sendable {
        /// libx264's constant rate factor: 0 lossless, 18 visually lossless, 51 worst.
        public var crf: Int
        /// The file whose audio streams are copied; nil for none.
        public var audioFrom: FilePath?
        /// How long after that file's audio its video starts (`VideoInput.videoStartOffset`): the frames'
        /// times count from the video's start.
        public var videoDelay: Double

        public init(crf: Int = 18, audioFrom: FilePath? = nil, videoDelay: Double = 0) {
            self.crf = crf
            self.audioFrom = audioFrom
            self.videoDelay = videoDelay
        }
    }

    /// Free space below which a written video is not trusted (see `checkWhole`).
    static let leastRoomLeft = 1 << 20

    /// Containers by extension, and ffmpeg's name for each muxer.
    public static let containers: [String: String] = ["mp4": "mp4", "mkv": "matroska", "mov": "mov", "avi": "avi"]

    public let path: String
    public let size: PixelSize
    private let process: Process
    private let frames: Int32
    private let errors: Pipe
    private let errorText = ErrorText()
    private var finished = false
    /// Frames sent to ffmpeg: the packets its file must hold.
    private var appended = 0
    /// The stream's header goes before the first frame.
    private var headerSent = false
    /// Where ffmpeg writes until the file is finished.
    private let partial: PartialFile
    /// The file whose audio is copied, open: ffmpeg reads it as /proc/PID/fd/N, so that a name that is not UTF-8 or
    /// holds control characters reaches it byte for byte. -1 for none.
    private let audio: Int32

    /// Starts ffmpeg writing `path`, whose extension picks the container (see `containers`).
    public init(path: String, size: PixelSize, framesPerSecond: Double, settings: Settings) throws(FaceCamError) {
        guard let muxer = FilePath(path).fileExtension.flatMap({ Self.containers[$0] }) else {
            throw .videoEncoder(path: path, reason: "the extension names no container facecam writes: use .mp4, .mkv, .mov or .avi")
        }
        guard let ffmpeg = Self.executable() else {
            throw .videoEncoder(path: path, reason: "ffmpeg is not installed (or not on PATH): apt-get install ffmpeg, or make deps")
        }
        self.path = path
        self.size = size
        do {
            partial = try PartialFile(for: path)
        } catch {
            throw .videoEncoder(path: path, reason: "\(error.call) failed: \(error.reason)")
        }
        if let source = settings.audioFrom {
            audio = source.withCString { open($0, O_RDONLY | O_CLOEXEC) }
            guard audio >= 0 else {
                throw .videoEncoder(path: path, reason: "cannot read \(source) for its audio: \(String(cString: strerror(errno)))")
            }
        } else {
            audio = -1
        }
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            if audio >= 0 { close(audio) }
            throw .videoEncoder(path: path, reason: "socketpair failed: \(String(cString: strerror(errno)))")
        }
        frames = sockets[0]
        process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = Self.arguments(
            framesPerSecond: framesPerSecond, muxer: muxer, settings: settings, audioPath: audio >= 0 ? "/proc/\(getpid())/fd/\(audio)" : nil)
        process.standardInput = FileHandle(fileDescriptor: sockets[1], closeOnDealloc: true)
        process.standardOutput = FileHandle(fileDescriptor: partial.descriptor, closeOnDealloc: false)
        errors = Pipe()
        process.standardError = errors
        let errorText = errorText
        let reader = errors.fileHandleForReading
        Thread.detachNewThread { errorText.collect(from: reader) }
        do {
            try process.run()
        } catch {
            close(sockets[0])
            if audio >= 0 { close(audio) }
            throw .videoEncoder(path: path, reason: "ffmpeg could not be started: \(error.localizedDescription)")
        }
        // The child has its own copy; ours would keep ffmpeg's input open after we close ours.
        try? errors.fileHandleForWriting.close()
        try? (process.standardInput as? FileHandle)?.close()
    }

    deinit {
        if !finished { abandon() }
        close(frames)
        if audio >= 0 { close(audio) }
    }

    /// ffmpeg's arguments: frames with their times on standard input (`MatroskaFrames`), video from them
    /// and audio from `settings.audioFrom`, read at `audioPath`, written to standard output. Each frame keeps its time (a
    /// variable-rate source stays one), except in AVI, which has a fixed rate: there each frame is one
    /// frame at the source's rate. Standard output is opened again as `/dev/stdout`, which names the
    /// open file itself, not a path someone could swap, and is seekable, as MP4's index needs.
    static func arguments(framesPerSecond: Double, muxer: String, settings: Settings, audioPath: String?) -> [String] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
        if settings.audioFrom != nil, settings.videoDelay > 0 { arguments += ["-itsoffset", String(format: "%.6f", settings.videoDelay)] }
        arguments += ["-f", "matroska", "-i", "pipe:0"]
        if let audioPath {
            arguments += ["-i", "file:" + audioPath, "-map", "0:v:0", "-map", "1:a?", "-c:a", "copy"]
        }
        if muxer == "avi" {
            // A rate the container does not say gets the commonest one.
            let rate = framesPerSecond > 0 && framesPerSecond.isFinite ? String(format: "%.6f", framesPerSecond) : "25"
            arguments += ["-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-fps_mode", "passthrough", "-r", rate]
        } else {
            // The frames' own times, in the microseconds they come in, not rounded to a guessed rate. x264's veryfast
            // preset encodes 2.6 times as fast as its default at the same CRF, for 0.03 dB of PSNR (the bench clip).
            arguments += ["-c:v", "libx264", "-preset", "veryfast", "-crf", String(settings.crf), "-pix_fmt", "yuv420p",
                          "-fps_mode", "passthrough", "-enc_time_base:v", "-1"]
        }
        if muxer == "mp4" || muxer == "mov" { arguments += ["-movflags", "+faststart"] }
        return arguments + ["-f", muxer, "file:/dev/stdout"]
    }

    public func append(_ frame: Frame, time: Double) throws(FaceCamError) {
        precondition(frame.size == size, "a frame of another size than the video's")
        let rowBytes = frame.width * 4
        do {
            if !headerSent {
                try sendAll(MatroskaFrames.header(size: size))
                headerSent = true
            }
            try sendAll(MatroskaFrames.frameHeader(time: time, byteCount: rowBytes * frame.height))
            // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
            try frame.pixels.withUnsafeBytes { pixels in
                Result { () throws(SystemError) in
                    for row in 0..<frame.height {
                        try sendAll(pixels.baseAddress! + row * frame.bytesPerRow, count: rowBytes)
                    }
                }
            }.get()
            appended += 1
        } catch {
            // ffmpeg stopped reading: it failed, and says why on its standard error.
            throw failure(otherwise: "\(error.call) failed: \(error.reason)")
        }
    }

    public func finish() throws(FaceCamError) {
        guard !finished else { return }
        finished = true
        shutdown(frames, Int32(SHUT_WR))
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw failure(otherwise: "ffmpeg exited with status \(process.terminationStatus)")
        }
        do throws(FaceCamError) {
            try checkWhole()
        } catch {
            partial.discard()
            throw error
        }
        do {
            try partial.commit()
        } catch {
            partial.discard()
            throw .videoEncoder(path: path, reason: "\(error.call) failed: \(error.reason)")
        }
    }

    /// Checks that the file ffmpeg wrote is whole: on a full disk ffmpeg 5.1 may exit 0, saying nothing, having written an
    /// MP4 without its index, a Matroska file without its last frames, or an AVI whose header and index it could not
    /// write at the end. The disk must have room left (under 1 MiB free, the last writes may have failed), and the file
    /// must hold every frame sent, its video packets counted by ffprobe (demuxing alone: a second or two for an hour).
    private func checkWhole() throws(FaceCamError) {
        var disk = statvfs()
        if fstatvfs(partial.descriptor, &disk) == 0 {
            // root writes into the blocks reserved for it.
            let free = Int(geteuid() == 0 ? disk.f_bfree : disk.f_bavail) * Int(disk.f_frsize)
            if free < Self.leastRoomLeft {
                throw .videoEncoder(path: path, reason: "the disk it is on filled up (\(free / 1024) KB left), so ffmpeg's last "
                    + "writes may have failed without a word; nothing was kept")
            }
        }
        let probe = Process()
        probe.executableURL = process.executableURL?.deletingLastPathComponent().appendingPathComponent("ffprobe")
        probe.arguments = ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
                           "-of", "csv=p=0", "file:" + partial.path]
        let output = Pipe()
        probe.standardOutput = output
        probe.standardError = FileHandle.nullDevice
        probe.standardInput = FileHandle.nullDevice
        do {
            try probe.run()
        } catch {
            throw .videoEncoder(path: path, reason: "ffprobe, which checks the written file, could not be started: \(error.localizedDescription)")
        }
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        let packets = Int(said.trimmingCharacters(in: .whitespacesAndNewlines))
        guard probe.terminationReason == .exit, probe.terminationStatus == 0, packets == appended else {
            let found = packets.map { "\($0) of its \(appended) frames" } ?? "no readable video"
            throw .videoEncoder(
                path: path, reason: "ffmpeg ended without error, but the file it wrote holds \(found) (a full disk?); nothing was kept")
        }
    }

    /// Stops ffmpeg and removes what it wrote: the run stopped, or failed, before the video was whole.
    public func abandon() {
        finished = true
        if process.isRunning { process.terminate() }
        shutdown(frames, Int32(SHUT_RDWR))
        process.waitUntilExit()
        partial.discard()
    }

    private func sendAll(_ bytes: [UInt8]) throws(SystemError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try sendAll(buffer.baseAddress!, count: buffer.count) }
        }.get()
    }

    private func sendAll(_ start: UnsafeRawPointer, count: Int) throws(SystemError) {
        var offset = 0
        while offset < count {
            // MSG_NOSIGNAL: ffmpeg gone means EPIPE here, not a SIGPIPE that ends facecam.
            offset += try blockingSyscall("send", path: "ffmpeg's input") {
                send(frames, start + offset, count - offset, Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// ffmpeg's own last line of error when it wrote one, else `reason`.
    private func failure(otherwise reason: String) -> FaceCamError {
        if process.isRunning { process.waitUntilExit() }
        let said = errorText.lines(waiting: 2)
        partial.discard()
        if let codec = said.lazy.compactMap(Self.codecTheContainerCannotHold).first {
            let container = FilePath(path).fileExtension ?? "this container"
            return .videoEncoder(
                path: path, reason: "the source's \(codec) stream cannot go into .\(container) as it is: write .mkv, which holds any codec")
        }
        return .videoEncoder(path: path, reason: said.last.map { "ffmpeg: \($0)" } ?? reason)
    }

    /// The codec in ffmpeg's "Could not find tag for codec pcm_s16le in stream #1, codec not currently
    /// supported in container" (the audio copied as it is), which its last line ("Error initializing
    /// output stream 0:0 --") hides.
    static func codecTheContainerCannotHold(_ line: String) -> String? {
        guard line.contains("not currently supported in container"),
              let start = line.range(of: "Could not find tag for codec ")?.upperBound,
              let end = line[start...].firstIndex(of: " ")
        else { return nil }
        return String(line[start..<end])
    }

    /// The first `ffmpeg` on PATH.
    static func executable() -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { $0 + "/ffmpeg" }.first { access($0, X_OK) == 0 }
    }

    /// What ffmpeg wrote on its standard error, read on a thread of its own so that ffmpeg never blocks on it.
    private final class ErrorText: Sendable {
        private let text = Mutex(Data())
        /// Signalled when ffmpeg closed its standard error (it ended), and again by each waiter that saw it.
        private let ended = DispatchSemaphore(value: 0)

        func collect(from handle: FileHandle) {
            while let chunk = try? handle.read(upToCount: 4096), !chunk.isEmpty {
                text.withLock { $0.append(chunk) }
            }
            ended.signal()
        }

        /// Its lines, once ffmpeg has ended (or `seconds` have passed).
        func lines(waiting seconds: Double) -> [String] {
            if ended.wait(timeout: .now() + seconds) == .success { ended.signal() }
            return text.withLock { String(decoding: $0, as: UTF8.self) }.split(whereSeparator: \.isNewline).map(String.init)
        }
    }
}
