@testable import FaceCamCLI
import ArgumentParser
import Testing

/// live's --serve options, parsed and validated in this process: the people panel's options need the page, changes
/// need --recognize and the panel, and a token file needs changes.
struct ServeOptionsTests {
    static func validated(_ arguments: [String]) throws -> Live {
        let live = try Live.parse(["--source", "clip.avi"] + arguments)
        try live.validate()
        return live
    }

    @Test func thePanelIsOnWithTheServerAndChangesAreOff() throws {
        let live = try Self.validated(["--serve", "0", "--recognize"])
        #expect(live.serving.servePeople && !live.serving.serveAllowChanges && live.serving.serveTokenFile == nil)
        let changing = try Self.validated(["--serve", "0", "--recognize", "--serve-allow-changes", "--serve-token-file", "t"])
        #expect(changing.serving.serveAllowChanges && changing.serving.serveTokenFile == "t")
        #expect(try !Self.validated(["--serve", "0", "--no-serve-people"]).serving.servePeople)
    }

    @Test(arguments: [
        (["--serve-allow-changes", "--recognize"], "--serve-allow-changes is about the page --serve serves: add --serve [HOST:]PORT"),
        (["--no-serve-people"], "--no-serve-people is about the page --serve serves: add --serve [HOST:]PORT"),
        (["--serve", "0", "--serve-allow-changes"], "--serve-allow-changes names the faces --recognize finds unknown: add --recognize"),
        (["--serve", "0", "--recognize", "--serve-allow-changes", "--no-serve-people"],
         "--serve-allow-changes changes the people panel, which --no-serve-people hides: leave one out"),
        (["--serve", "0", "--recognize", "--serve-token-file", "t"],
         "--serve-token-file gives the token of --serve-allow-changes: add it, or leave --serve-token-file out"),
    ])
    func optionsWithoutWhatTheyNeedAreUsageErrors(arguments: [String], message: String) {
        #expect(throws: (any Error).self) { try Self.validated(arguments) }
        do {
            _ = try Self.validated(arguments)
        } catch {
            #expect(Live.message(for: error) == message)
        }
    }
}
