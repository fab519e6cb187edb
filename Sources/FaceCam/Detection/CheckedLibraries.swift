#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FaceCamCore

/// The libraries whose SHA-256 facecam has checked, each remembered by what `stat` says of the file (device, inode,
/// size, modification and change times), so that OpenVINO's 90 MB are hashed once for each copy of them rather than at
/// every start (about 90 ms of a half-second start). Writing to a file, replacing or copying it, or setting its
/// times changes its inode or its change time, which only the system clock's owner can set, and the file is hashed
/// again. Kept in `$XDG_CACHE_HOME/facecam` (else `~/.cache/facecam`); a cache that cannot be read or written is none.
struct CheckedLibraries {
    /// The cache's file, nil for none.
    let file: String?
    /// "SHA256 DEVICE INODE SIZE MTIME CTIME" of each library checked, the newest last.
    private(set) var entries: [String]
    private var changed = false

    /// The time of the check, seconds since the epoch.
    let now: Int
    /// A file changed less than this many seconds before its check is not remembered, as git's index does not trust
    /// "racily clean" entries: the file clock moves in ticks of a few milliseconds, so a file written again within the
    /// tick of its check, or another made in its place at once (its inode reused), could show the same times.
    static let settledSeconds = 2

    /// At most this many entries are kept: four libraries in a few places, a few versions each.
    static let capacity = 64
    static let fileName = "checked-libraries"

    /// The cache of the user running facecam, as the XDG base directories name it.
    static func user(environment: [String: String] = processEnvironment("XDG_CACHE_HOME", "HOME")) -> CheckedLibraries {
        CheckedLibraries(file: userFolder("XDG_CACHE_HOME", else: ".cache", environment: environment).map { $0 + "/" + fileName })
    }

    /// The variables of the process's environment that are set, of `names`.
    private static func processEnvironment(_ names: String...) -> [String: String] {
        Dictionary(uniqueKeysWithValues: names.compactMap { name in getenv(name).map { (name, String(cString: $0)) } })
    }

    /// `now`: the tests' seam.
    init(file: String?, now: Int = time(nil)) {
        self.file = file
        self.now = now
        entries = file.flatMap { path in
            // O_NONBLOCK and a regular file only: a FIFO planted there would block the start.
            guard let descriptor = try? FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK),
                  (try? FileKind(descriptor.status())) == .regular, let bytes = try? descriptor.readAll(limit: 65_536)
            else { return nil }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter(Self.isEntry)
        } ?? []
    }

    /// Whether the file `info` describes was found to have `sha256` while it was as it is.
    func holds(_ sha256: String, _ info: stat) -> Bool {
        entries.contains(Self.entry(sha256, info))
    }

    /// Remembers that the file `info` describes has `sha256`, once it has not changed for `settledSeconds`.
    mutating func add(_ sha256: String, _ info: stat) {
        let entry = Self.entry(sha256, info)
        guard info.st_ctim.tv_sec + Self.settledSeconds < now, !entries.contains(entry) else { return }
        entries = Array((entries + [entry]).suffix(Self.capacity))
        changed = true
    }

    /// Writes what was added, whole or not at all (PartialFile); a failure (no home, a full disk, a read-only folder)
    /// leaves the next start to hash again.
    func save() {
        guard changed, let file, let slash = file.lastIndex(of: "/") else { return }
        try? makeDirectories(String(file[..<slash]), mode: 0o700)
        guard let partial = try? PartialFile(for: file) else { return }
        do {
            try writeAll(Array(entries.map { $0 + "\n" }.joined().utf8), to: partial.descriptor, path: partial.path)
            try partial.commit(durably: false)
        } catch {
            partial.discard()
        }
    }

    private static func entry(_ sha256: String, _ info: stat) -> String {
        "\(sha256) \(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) "
            + "\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
    }

    private static func isEntry(_ line: String) -> Bool {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        return fields.count == 6 && fields[0].count == 64 && fields[0].allSatisfy(\.isHexDigit)
    }
}
