#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FaceCamCore

/// The libraries whose SHA-256 facecam has checked, each remembered by what `fstat` said of the file it hashed (device,
/// inode, size, modification and change times), so that OpenVINO's 90 MB are hashed about once a day for each copy of
/// them rather than at every start (80 to 100 ms of CPU of a half-second start). Writing to a file, replacing or copying it, or
/// setting its times changes its inode or its change time, which only the system clock's owner can set, and the file
/// is hashed again; what leaves the times as they were (the disk's own corruption, a file system that keeps no change
/// time) is noticed at the next day's hash. Kept in `$XDG_CACHE_HOME/facecam` (else `~/.cache/facecam`), and read and
/// written only there where the user running facecam owns it; a cache that cannot be read or written is none.
struct CheckedLibraries {
    /// The cache's file, nil for none.
    let file: String?
    /// The time of the check, seconds since the epoch.
    let now: Int
    /// "SHA256 DEVICE INODE SIZE MTIME CTIME" of each library checked, and when it was hashed; the newest last.
    private(set) var entries: [(file: String, hashed: Int)]
    private var changed = false

    /// A file changed less than this many seconds before its hash is not remembered, as git's index does not trust
    /// "racily clean" entries: the file clock moves in ticks of a few milliseconds, so a file written again within the
    /// tick of its hash, or another made in its place at once (its inode reused), could show the same times.
    static let settledSeconds = 2
    /// How long a hash is trusted.
    static let trustedSeconds = 86_400
    /// At most this many entries are kept: five libraries in a few places, a few versions each.
    static let capacity = 64
    static let fileName = "checked-libraries"

    /// The cache of the user running facecam, as the XDG base directories name it.
    static func user(environment: [String: String] = UserCache.environment()) -> CheckedLibraries {
        CheckedLibraries(file: UserCache.folder(environment: environment).map { $0 + "/" + fileName })
    }

    /// `now`: the tests' seam.
    init(file: String?, now: Int = time(nil)) {
        self.file = file
        self.now = now
        entries = file.flatMap { path in
            // O_NONBLOCK, and a regular file of this user's only: a FIFO planted there would block the start, and another
            // user's list (a HOME kept through sudo) is not this user's word.
            guard let descriptor = try? FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY),
                  let info = try? descriptor.status(), FileKind(info) == .regular, info.st_uid == geteuid(),
                  let bytes = try? descriptor.readAll(limit: 65_536)
            else { return nil }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap(Self.entry)
        } ?? []
    }

    /// Whether the file `info` describes was found to have `sha256`, as it is, within the last `trustedSeconds`.
    func holds(_ sha256: String, _ info: stat) -> Bool {
        let file = Self.key(sha256, info)
        return entries.contains { $0.file == file && $0.hashed <= now && $0.hashed > now - Self.trustedSeconds }
    }

    /// Remembers that the file `before` describes has `sha256`, when it was the same file with the same times `after`
    /// its hash, and had not changed for `settledSeconds` before it.
    mutating func add(_ sha256: String, _ before: stat, unchangedIn after: stat) {
        let file = Self.key(sha256, before)
        guard file == Self.key(sha256, after), before.st_ctim.tv_sec < now - Self.settledSeconds,
              !holds(sha256, before) else { return }
        entries = Array((entries.filter { $0.file != file } + [(file, now)]).suffix(Self.capacity))
        changed = true
    }

    /// Writes what was added, whole or not at all (PartialFile), into a folder of this user's (made if missing, in a
    /// folder of theirs); a failure (no home, a full disk, a read-only folder) leaves the next start to hash again.
    func save() {
        guard changed, let file, let slash = file.lastIndex(of: "/") else { return }
        guard UserCache.made(String(file[..<slash])) != nil, let partial = try? PartialFile(for: file) else { return }
        do {
            try writeAll(Array(entries.map { "\($0.file) \($0.hashed)\n" }.joined().utf8), to: partial.descriptor, path: partial.path)
            try partial.commit(durably: false)
        } catch {
            partial.discard()
        }
    }

    private static func key(_ sha256: String, _ info: stat) -> String {
        "\(sha256) \(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) "
            + "\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
    }

    private static func entry(_ line: Substring) -> (file: String, hashed: Int)? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 7, fields[0].count == 64, fields[0].allSatisfy(\.isHexDigit), let hashed = Int(fields[6]) else { return nil }
        return (fields[0..<6].joined(separator: " "), hashed)
    }
}

/// facecam's folder in the cache of the user running it, as the XDG base directories name it: `$XDG_CACHE_HOME/facecam`,
/// else `~/.cache/facecam`. What is kept there can be deleted at any time, and is made again as it is needed.
enum UserCache {
    static func folder(environment: [String: String] = environment()) -> String? {
        userFolder("XDG_CACHE_HOME", else: ".cache", environment: environment)
    }

    /// Networks OpenVINO compiled, which later runs import rather than compile again: a folder `made`, or nil.
    static func compiledNetworks() -> String? {
        folder().flatMap { made($0 + "/openvino-networks") }
    }

    /// `folder`, made (mode 0700) if missing where its nearest existing parent is this user's, when it is then a
    /// directory of this user's; else nil (no home, a full disk, a read-only or another user's folder).
    static func made(_ folder: String) -> String? {
        var existing = folder
        while (try? fileKind(existing)) == nil, let slash = existing.lastIndex(of: "/"), slash > existing.startIndex {
            existing = String(existing[..<slash])
        }
        guard (try? fileInfo(FilePath(existing)))?.st_uid == geteuid() else { return nil }
        try? makeDirectories(folder, mode: 0o700)
        var info = stat()
        guard lstat(folder, &info) == 0, FileKind(info) == .directory, info.st_uid == geteuid() else { return nil }
        return folder
    }

    /// The variables the folder is named from, those of the process's environment that are set.
    static func environment() -> [String: String] {
        Dictionary(uniqueKeysWithValues: ["XDG_CACHE_HOME", "HOME"].compactMap { name in getenv(name).map { (name, String(cString: $0)) } })
    }
}
