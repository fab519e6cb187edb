@testable import FaceCamCLI
import FaceCam
import Testing

/// The detectors a run will make, planned from the parsed options in this process: nothing is loaded to plan them.
struct DetectorPlanTests {
    static func plan(_ arguments: String..., jobs: Int? = nil, fast: Bool = false, live: Bool = false) throws -> DetectorPlan {
        let options = try DetectorOptions.parse(arguments)
        return DetectorPlan(options, jobs: jobs, fast: fast ? FastSettings() : nil, live: live)
    }

    private static let cores = DetectorPlan.cores

    @Test func aJobPerCoreWithOneThreadEachAndOneJobWithEveryCore() throws {
        let byDefault = try Self.plan()
        #expect(byDefault.jobs == Self.cores && byDefault.warnings.isEmpty)
        #expect(byDefault.threads == (Self.cores > 1 ? 1 : Self.cores))
        let one = try Self.plan(jobs: 1)
        #expect(one.jobs == 1 && one.threads == Self.cores)
        #expect(try Self.plan("--threads", "1", jobs: 1).threads == 1)
    }

    @Test func jobsAndThreadsBeyondTheCoresAreCappedSayingSo() throws {
        let many = try Self.plan("--threads", "256", jobs: 1000)
        #expect(many.jobs == 2 * Self.cores && many.threads == Self.cores)
        #expect(many.warnings == [
            "warning: --jobs 1000 runs \(2 * Self.cores) jobs, twice the \(Self.cores) cores this process may use: more would only take memory",
            "warning: --threads 256 runs \(Self.cores), the cores this process may use",
        ])
        // Twice the cores is taken as given, without a word.
        #expect(try Self.plan(jobs: 2 * Self.cores).warnings.isEmpty)
    }

    @Test func haarsFastModeFollowsFacesOneFrameAfterAnother() throws {
        let haar = try Self.plan("--detector", "haar", jobs: 4, fast: true)
        #expect(haar.jobs == 1 && haar.fast?.searchInBackground == false && haar.threads == Self.cores)
        // Live searches in full in the background, on a core of its own: its detector takes one thread.
        let live = try Self.plan("--detector", "haar", jobs: 1, fast: true, live: true)
        #expect(live.jobs == 1 && live.fast?.searchInBackground == true && live.threads == 1)
        // YuNet's fast mode shrinks each frame alone: its frames go to every job.
        let yunet = try Self.plan(jobs: 4, fast: true)
        #expect(yunet.jobs == min(4, 2 * Self.cores) && yunet.fast?.searchInBackground == false)
    }
}
