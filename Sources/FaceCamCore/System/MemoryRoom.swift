#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How much more memory this process may take before an allocation fails, where something bounds it: the address
/// space left under `ulimit -v` (RLIMIT_AS), and the room left under its cgroup's memory.max. Nil when nothing does.
/// A Swift allocation that fails ends the process: a large image is refused from its header instead, when it would
/// not fit.
package enum MemoryRoom {
    /// The bytes this process may still take, or nil when unbounded.
    package static func bytes() -> Int? {
        [addressSpaceLeft(), cgroupLeft()].compactMap { $0 }.min()
    }

    /// RLIMIT_AS less the address space in use (/proc/self/statm's first field, in pages).
    static func addressSpaceLeft() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        guard let statm = try? readSmallFile("/proc/self/statm"), let pages = statm.split(separator: " ").first.flatMap({ Int($0) })
        else { return nil }
        return max(0, Int(clamping: limit.rlim_cur) - pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The folder of the cgroup (v2) /proc/self/cgroup names, read once: each image asks for the room left.
    private static let cgroupDirectory: String? = {
        guard let cgroups = try? readSmallFile("/proc/self/cgroup"),
              let line = cgroups.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return nil }
        return "/sys/fs/cgroup" + line.dropFirst(3)
    }()

    /// memory.max less memory.current, of this process's cgroup.
    static func cgroupLeft() -> Int? {
        guard let directory = cgroupDirectory,
              let most = (try? readSmallFile(directory + "/memory.max")).flatMap({ Int($0.trimmingWhitespace) }),
              let used = (try? readSmallFile(directory + "/memory.current")).flatMap({ Int($0.trimmingWhitespace) })
        else { return nil } // "max", or no memory controller
        return max(0, most - used)
    }

    /// The text of a small file of the kernel's (read whole, at most 64 KB).
    private static func readSmallFile(_ path: String) throws(SystemError) -> String {
        let file = try FileDescriptor(opening: FilePath(path), flags: O_RDONLY)
        return String(decoding: try file.readAll(limit: 65_536), as: UTF8.self)
    }
}

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
