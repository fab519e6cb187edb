@testable import FaceCamCLI
import FaceCam
import Foundation
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

    /// detect on one photograph runs one job (on every core's threads: `aJobPerCoreWithOneThreadEachAndOneJobWithEveryCore`);
    /// on a folder, or more than one input, a job per core; --jobs as given.
    @Test func detectOnOnePhotographRunsOneJob() throws {
        let photograph = FilePath(argument: fixture("images/grace_hopper.jpg"))
        let folder = FilePath(argument: fixture("images"))
        try #require(FileManager.default.fileExists(atPath: photograph.description) && FileManager.default.fileExists(atPath: folder.description))
        #expect(Detect.jobs(given: nil, inputs: [photograph]) == 1)
        #expect(Detect.jobs(given: nil, inputs: [folder]) == nil)
        #expect(Detect.jobs(given: nil, inputs: [photograph, photograph]) == nil)
        #expect(Detect.jobs(given: 3, inputs: [photograph]) == 3)
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
        #expect(haar.warnings == ["warning: --jobs 4 runs 1 job: Haar's fast mode follows the faces from one frame to the next"])
        #expect(try Self.plan("--detector", "haar", fast: true).warnings.isEmpty)
        // Live searches in full in the background, on a core of its own: its detector takes one thread.
        let live = try Self.plan("--detector", "haar", jobs: 1, fast: true, live: true)
        #expect(live.jobs == 1 && live.fast?.searchInBackground == true && live.threads == 1)
        // YuNet's fast mode shrinks each frame alone: its frames go to every job.
        let yunet = try Self.plan(jobs: 4, fast: true)
        #expect(yunet.jobs == min(4, 2 * Self.cores) && yunet.fast?.searchInBackground == false)
    }

    /// What `build` refuses, `plan`'s detectors that cannot be loaded: a line naming the model or cascade and where it
    /// was looked for (that the binary prints it alone: `YuNetCommandTests.aCorruptModelIsOneLineOnTheDefaultEngine`).
    private static func refusal(_ plan: DetectorPlan) -> Refusal? {
        do {
            // OpenCV's pool is left to this process, whose tests run side by side.
            _ = try FaceCamCommand.$ownsProcess.withValue(false) { try plan.build() }
            return nil
        } catch {
            return error as? Refusal
        }
    }

    @Test func anUnknownCascadeNamesEveryPathTried() throws {
        #expect(Self.refusal(try Self.plan("--detector", "haar", "--cascade", "no_such_cascade", jobs: 1)) == .usage(
            "cascade 'no_such_cascade' not found; tried no_such_cascade, "
                + "/usr/share/opencv4/haarcascades/no_such_cascade.xml, /usr/share/opencv4/lbpcascades/no_such_cascade.xml, "
                + "/usr/local/share/opencv4/haarcascades/no_such_cascade.xml, /usr/local/share/opencv4/lbpcascades/no_such_cascade.xml "
                + "(install opencv-data, or pass --cascade a path to a cascade XML file)"))
    }

    @Test func aMissingCorruptOrOtherModelIsRefusedNamingIt() throws {
        let directory = try temporaryDirectory("model")
        defer { try? FileManager.default.removeItem(at: directory) }
        let corrupt = directory.appendingPathComponent("corrupt.onnx").path
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: corrupt))
        for model in [corrupt, directory.appendingPathComponent("missing.onnx").path] {
            let refused = Self.refusal(try Self.plan("--detector", "yunet", "--model", model, jobs: 1))
            #expect(refused?.status == Status.usage && refused?.line.contains(model) == true, "\(String(describing: refused))")
        }
        let yunet = repository.appendingPathComponent("Sources/FaceCam/Resources/YuNet/face_detection_yunet_2022mar.onnx").path
        let notCenterFace = Self.refusal(try Self.plan("--detector", "centerface", "--model", yunet, jobs: 1))
        #expect(notCenterFace?.status == Status.usage, "\(String(describing: notCenterFace))")
        #expect(notCenterFace?.line.contains("cannot load CenterFace model \(yunet)") == true, "\(String(describing: notCenterFace))")
    }
}
