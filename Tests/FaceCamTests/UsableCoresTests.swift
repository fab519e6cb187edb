import Foundation
import Testing
@testable import FaceCam

@Suite struct UsableCoresTests {
    /// The kernel's own account: the CPUs in this process's affinity mask (/proc/self/status).
    static func allowedCPUs() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed:") })
        let mask = line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
        return mask.compactMap { $0.hexDigitValue?.nonzeroBitCount }.reduce(0, +)
    }

    @Test func followTheAffinityMask() throws {
        #expect(OpenCVThreads.usableCores == (try Self.allowedCPUs()))
    }
}
