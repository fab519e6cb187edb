import Foundation
import Testing

/// enrol, people and --recognize on the built binary. The truth is the fixtures': two-faces.jpg holds
/// astronaut.png's face (Eileen Collins) on the left and grace_hopper.jpg's on the right
/// (Fixtures/README.md); crossing.avi moves the same two past each other.
struct RecognitionCommandTests {
    /// A new temporary folder (the caller removes it) holding `enrolledGallery`, and the gallery's path.
    static func directoryWithGallery(_ label: String) throws -> (URL, String) {
        let directory = try temporaryDirectory(label)
        do {
            return (directory, try enrolledGallery(directory))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// By list of people (name and photograph): a gallery the binary enrolled them in, in `runFolder`.
    private static let enrolled = OnceARun<[[String]], String> { people in
        let gallery = try runFolder.madeFolder("gallery-\(UUID().uuidString)").appendingPathComponent("gallery.sqlite").path
        for person in people {
            let enrolled = try facecam(["enrol", "--gallery", gallery] + person)
            guard enrolled.status == 0, enrolled.stdout.isEmpty else {
                throw SetupFailure(description: "facecam enrol \(person.joined(separator: " ")): status \(enrolled.status): \(enrolled.stderr)")
            }
        }
        return gallery
    }

    /// A gallery in `directory` with `people` (by default Collins and Hopper) enrolled from their photographs: a copy of
    /// the one the binary made when a test first asked for them.
    static func enrolledGallery(
        _ directory: URL, people: [(name: String, photo: String)] = [("Collins", fixture("images/astronaut.png")), ("Hopper", fixture("images/grace_hopper.jpg"))]
    ) throws -> String {
        let gallery = directory.appendingPathComponent("gallery.sqlite").path
        try FileManager.default.copyItem(atPath: try enrolled(people.map { [$0.name, $0.photo] }), toPath: gallery)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: gallery)
        return gallery
    }

    @Test func detectNamesEachEnrolledFace() throws {
        let (directory, gallery) = try Self.directoryWithGallery("recognize")
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try facecam("detect", "--recognize", "--gallery", gallery, fixture("images/two-faces.jpg"), fixture("images/camera.png"))
        #expect(found.status == 0, "\(found.stderr)")
        let records = try found.records()
        let faces = try #require(records.first?["faces"] as? [[String: Any]])
        let named = faces.sorted { boxes(["faces": [$0]])[0][0] < boxes(["faces": [$1]])[0][0] }.map { $0["identity"] as? String }
        #expect(named == ["Collins", "Hopper"])
        #expect(faces.allSatisfy { ($0["distance"] as? Double ?? 1) < 0.2 })
        // camera.png's photographer is neither: unknown, with the distance to the nearest.
        let stranger = try #require((records.last?["faces"] as? [[String: Any]])?.first)
        #expect(stranger["identity"] is NSNull && (stranger["distance"] as? Double ?? 0) > 0.46, "\(stranger)")
        let text = try facecam("detect", "--recognize", "--gallery", gallery, "--format", "text", fixture("images/grace_hopper.jpg"))
        #expect(text.lines.last?.hasSuffix("; Hopper (distance 0.00)") == true, "\(text.stdout)")
        // CSV's last two columns: the name (empty for a stranger) and the distance, as in JSON Lines.
        let csv = try facecam("detect", "--recognize", "--gallery", gallery, "--format", "csv", fixture("images/two-faces.jpg"),
                              fixture("images/camera.png"))
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first?.suffix(2) == ["identity", "distance"])
        let jsonFaces = records.flatMap { $0["faces"] as? [[String: Any]] ?? [] }
        #expect(rows.dropFirst().map { $0[$0.count - 2] } == jsonFaces.map { $0["identity"] as? String ?? "" })
        #expect(rows.dropFirst().map { Double($0[$0.count - 1]) } == jsonFaces.map { $0["distance"] as? Double })
    }

    /// crossing.avi moves astronaut.png's and grace_hopper.jpg's faces past each other; tracks.json says
    /// where each is in every frame. Every face found is named after the one whose patch holds it.
    @Test func videoNamesEachFaceAsItCrossesTheOther() throws {
        let (directory, gallery) = try Self.directoryWithGallery("recognize-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try facecam("video", "--recognize", "--gallery", gallery, "--every", "5", fixture("video/crossing.avi"))
        #expect(found.status == 0, "\(found.stderr)")
        let truth = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixture("video/tracks.json")))) as? [String: [[String: [Int]]]])
        let frames = try #require(truth["video/crossing.avi"])
        var named = 0
        for record in try found.records() {
            let patches = frames[record["frame"] as! Int]
            for face in record["faces"] as? [[String: Any]] ?? [] {
                let box = boxes(["faces": [face]])[0]
                let (x, y) = (box[0] + box[2] / 2, box[1] + box[3] / 2)
                let holder = patches.first { $0.value[0] <= x && x < $0.value[0] + $0.value[2] && $0.value[1] <= y && y < $0.value[1] + $0.value[3] }
                let expected = ["astronaut": "Collins", "hopper": "Hopper"][holder?.key ?? ""]
                #expect(face["identity"] as? String == expected, "frame \(record["frame"]!): \(face)")
                named += expected == nil ? 0 : 1
            }
        }
        #expect(named == 16, "two faces in each of the 8 frames searched")
    }

    /// A track is described a few times, not at every frame (--descriptors marks the faces described at their
    /// frame): at its first face and then at most twice more, 10 source frames or more apart; every face of a
    /// track carries the name and distance its descriptions gave, until another description changes them.
    @Test func aTrackIsDescribedAFewTimesNotAtEveryFrame() throws {
        let (directory, gallery) = try Self.directoryWithGallery("recognize-tracks")
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try facecam("video", "--recognize", "--descriptors", "--gallery", gallery, fixture("video/crossing.avi"))
        #expect(found.status == 0, "\(found.stderr)")
        var described: [Int: [Int]] = [:]
        var faces = 0
        for record in try found.records() {
            for face in record["faces"] as? [[String: Any]] ?? [] {
                faces += 1
                let id = try #require(face["id"] as? Int)
                if face["descriptor"] != nil { described[id, default: []].append(record["frame"] as! Int) }
            }
        }
        #expect(described.keys.sorted() == [1, 2] && faces > 60, "\(described), \(faces) faces")
        for frames in described.values {
            #expect(frames.count == 3 && frames.first == 0, "\(frames)")
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 - $0 >= 10 }, "\(frames)")
        }
    }

    /// A clip where astronaut.png's face is replaced by grace_hopper.jpg's at frame 10, in the same place, so that
    /// the track goes on. It is described at frames 0 (Collins), 10 and 20 (Hopper): frames 0-9 are Collins's; the
    /// mean of one description of each, at frame 10, lies about as far from both (named either, or unknown); from
    /// frame 20 two of three are Hopper's, and the track is hers. Each change is a name event carrying the name its
    /// frame's faces carry; live --exit-on name ends at the first.
    @Test func aTrackWhoseFaceChangesIsRenamed() throws {
        let (directory, gallery) = try Self.directoryWithGallery("recognize-rename")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("switch.avi").path
        let made = try run(URL(fileURLWithPath: SharedDataTests.python), [
            "-c", "import sys; sys.path.insert(0, sys.argv[1]); import opencv_faces as o; o.moving_faces_clip(sys.argv[2], sys.argv[3], 30, "
                + "{'astronaut': lambda i: (245, 100) if i < 10 else None, 'hopper': lambda i: (245, 100) if i >= 10 else None})",
            repository.appendingPathComponent("Tests/Reference").path, repository.appendingPathComponent("Fixtures").path, clip])
        try #require(made.status == 0, "\(made.stderr)")
        let found = try facecam("video", "--recognize", "--gallery", gallery, "--events", clip)
        #expect(found.status == 0, "\(found.stderr)")
        let records = try found.records()
        let names = records.filter { $0["event"] == nil }.map { record in
            (record["faces"] as? [[String: Any]] ?? []).map { $0["identity"] as? String ?? "-" }.joined()
        }
        try #require(names.count == 30, "\(names)")
        #expect(names[0..<10].allSatisfy { $0 == "Collins" } && names[20...].allSatisfy { $0 == "Hopper" }, "\(names)")
        #expect(Set(names[10..<20]).count == 1, "one name from frame 10 to 19: \(names)")
        let events = records.filter { $0["event"] != nil }
        let renames = events.filter { $0["event"] as? String == "name" }
        #expect(events.first.map { "\($0["event"]!) \($0["frame"]!) \($0["identity"]!)" } == "enter 0 Collins")
        #expect(events.last.map { "\($0["event"]!) \($0["frame"]!) \($0["identity"]!)" } == "leave 29 Hopper")
        #expect((1...2).contains(renames.count) && renames.last?["identity"] as? String == "Hopper", "\(renames)")
        for rename in renames {
            let frame = rename["frame"] as! Int
            #expect([10, 20].contains(frame) && (rename["identity"] as? String ?? "-") == names[frame], "\(rename)")
        }
        let text = try facecam("video", "--recognize", "--gallery", gallery, "--events", "--format", "text", clip)
        #expect(text.lines.contains { $0.range(of: #"frame (10 at 1|20 at 2) s: id 1 renamed; Hopper \(distance 0\.\d\d\)$"#, options: .regularExpression) != nil },
                "\(text.stdout)")
        let live = try facecam("live", "--source", clip, "--recognize", "--gallery", gallery, "--exit-on", "name", "--events")
        #expect(live.status == 0, "\(live.stderr)")
        let liveEvents = try live.records().filter { $0["event"] != nil }
        #expect(liveEvents.map { $0["event"] as! String } == ["enter", "name"] && liveEvents.first?["identity"] as? String == "Collins",
                "\(liveEvents)")
        #expect(try reportedUsageError(["live", "--source", clip, "--exit-on", "name"])?.contains("--recognize") == true)
    }

    /// Each face's cluster, in output order, with the cluster dlib's own Chinese whispers gives it over the
    /// descriptors facecam wrote (Tests/Reference/dlib_clusters.py, dlib's Python bindings).
    static func clustersBesideDlibs(_ run: Run, in directory: URL) throws -> [(facecam: Int?, dlib: Int?)] {
        let written = directory.appendingPathComponent("clustered.jsonl")
        try Data(run.stdout.utf8).write(to: written)
        let reference = try dlibClusters(written)
        let records = try run.records().filter { $0["faces"] != nil }
        try #require(reference.count == records.count)
        return zip(records, reference).flatMap { record, labels in
            zip(record["faces"] as! [[String: Any]], labels).map { ($0["cluster"] as? Int, $1) }
        }
    }

    static func dlibClusters(_ path: URL) throws -> [[Int?]] {
        let reference = try run(repository.appendingPathComponent(".build/dlib-venv/bin/python"), [
            repository.appendingPathComponent("Tests/Reference/dlib_clusters.py").path, path.path, "0.33"])
        try #require(reference.status == 0, "\(reference.stderr)")
        return try reference.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed) as? [Any]).map { $0 as? Int }
        }
    }

    /// Whether two labellings split the faces the same way (labels may differ).
    static func samePartition(_ pairs: [(facecam: Int?, dlib: Int?)]) -> Bool {
        var forward: [Int: Int] = [:], backward: [Int: Int] = [:]
        for pair in pairs {
            guard let a = pair.facecam, let b = pair.dlib else {
                if (pair.facecam == nil) != (pair.dlib == nil) { return false }
                continue
            }
            if forward[a, default: b] != b || backward[b, default: a] != a { return false }
            forward[a] = b
            backward[b] = a
        }
        return true
    }

    /// --cluster with no one enrolled: the fixtures' photographs of Hopper (grace_hopper.jpg, two-faces.jpg's right face,
    /// face-1080p.jpg) share a cluster, Collins's (astronaut.png, the left face, face-720p.jpg) another, camera.png's
    /// photographer a third; in two clips, each patch's tracks share one (tracks.json). Clusters split the faces as dlib's
    /// own Chinese whispers does over the same descriptors.
    @Test func clusterGroupsEachPersonsFacesAsDlibDoes() throws {
        let directory = try temporaryDirectory("cluster")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photos = ["images/grace_hopper.jpg", "images/two-faces.jpg", "large-faces/face-1080p.jpg", "images/astronaut.png",
                      "large-faces/face-720p.jpg", "images/camera.png"]
        let found = try facecam(["detect", "--cluster", "--descriptors"] + photos.map(fixture))
        #expect(found.status == 0, "\(found.stderr)")
        let clusters = try found.records().map { ($0["faces"] as! [[String: Any]]).sorted { boxes(["faces": [$0]])[0][0] < boxes(["faces": [$1]])[0][0] }
            .map { $0["cluster"] as? Int ?? 0 } }
        // In the photographs' order: Hopper, Collins and Hopper, Hopper, Collins, Collins, the photographer.
        #expect(clusters.count == 6 && clusters[1].count == 2, "\(clusters)")
        let (hopper, collins) = (clusters[0][0], clusters[1][0])
        #expect(clusters == [[hopper], [collins, hopper], [hopper], [collins], [collins], [clusters[5][0]]], "\(clusters)")
        #expect(Set([hopper, collins, clusters[5][0]]).count == 3 && !Set([hopper, collins]).contains(0))
        #expect(Self.samePartition(try Self.clustersBesideDlibs(found, in: directory)))

        let video = try facecam("video", "--cluster", "--descriptors", fixture("video/crossing.avi"), fixture("video/leave-enter.avi"))
        #expect(video.status == 0, "\(video.stderr)")
        let truth = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixture("video/tracks.json")))) as? [String: [[String: [Int]]]])
        var byPatch: [String: Set<Int>] = [:]
        for record in try video.records() {
            let source = (record["source"] as! String).replacingOccurrences(of: repository.appendingPathComponent("Fixtures").path + "/", with: "")
            let patches = try #require(truth[source])[record["frame"] as! Int]
            for face in record["faces"] as? [[String: Any]] ?? [] {
                let box = boxes(["faces": [face]])[0]
                let (x, y) = (box[0] + box[2] / 2, box[1] + box[3] / 2)
                guard let holder = patches.first(where: { $0.value[0] <= x && x < $0.value[0] + $0.value[2] && $0.value[1] <= y && y < $0.value[1] + $0.value[3] })
                else { continue }
                byPatch[holder.key, default: []].insert(face["cluster"] as? Int ?? 0)
            }
        }
        #expect(byPatch.count == 2 && byPatch.values.allSatisfy { $0.count == 1 } && Set(byPatch.values).count == 2, "\(byPatch)")
        #expect(Self.samePartition(try Self.clustersBesideDlibs(video, in: directory)))

        // The descriptors stay out unless asked for; clusters need a run's end and JSON Lines.
        let plain = try facecam("detect", "--cluster", fixture("images/two-faces.jpg"))
        #expect(plain.status == 0 && !plain.stdout.contains("descriptor") && plain.stdout.contains("\"cluster\":1"), "\(plain.stdout)")
        for (arguments, says) in [(["detect", "--cluster", "--format", "csv", fixture("images/two-faces.jpg")], "no place for the clusters"),
                                  (["detect", "--cluster", "--descriptors", "--format", "coco", fixture("images/two-faces.jpg")], "JSON Lines only"),
                                  (["live", "--source", fixture("video/crossing.avi"), "--cluster"], "it is an option of detect and video"),
                                  (["detect", "--cluster-threshold", "0.3", fixture("images/two-faces.jpg")], "--cluster"),
                                  (["detect", "--cluster", "--cluster-threshold", "0", fixture("images/two-faces.jpg")], "more than 0"),
                                  (["video", "--cluster", "--output-dir", directory.path, fixture("video/crossing.avi")], "--output-dir"),
                                  (["video", "--cluster", "--shard", "1/2", fixture("video/crossing.avi")], "--shard"),
                                  (["video", "--cluster", "-"], "stream")] {
            let line = try reportedUsageError(arguments)
            #expect(line?.contains(says) == true, "\(arguments): \(line ?? "no usage error")")
        }
    }

    /// A track's events carry who its face was taken for: in JSON Lines, in text, and to --on-event as FACECAM_IDENTITY.
    @Test func eventsSayWhoEnteredAndLeft() throws {
        let (directory, gallery) = try Self.directoryWithGallery("recognize-events")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("events.txt").path
        let run = try facecam("video", "--recognize", "--gallery", gallery, "--every", "5", "--events",
                              "--on-event", "echo \"$FACECAM_EVENT $FACECAM_ID $FACECAM_IDENTITY\" >> '\(log)'", fixture("video/crossing.avi"))
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.records().filter { $0["event"] != nil }
        #expect(Set(events.filter { $0["event"] as? String == "enter" }.compactMap { $0["identity"] as? String }) == ["Collins", "Hopper"])
        #expect(events.allSatisfy { ["Collins", "Hopper"].contains($0["identity"] as? String ?? "") && $0["distance"] is Double }, "\(events)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let expected = events.map { "\($0["event"]!) \($0["id"]!) \($0["identity"]!)" }
        #expect(lines.sorted() == expected.sorted())
        let text = try facecam("video", "--recognize", "--gallery", gallery, "--every", "5", "--events", "--format", "text",
                               fixture("video/crossing.avi"))
        let entered = text.lines.filter { $0.contains(" entered") }
        #expect(entered.count == events.filter { $0["event"] as? String == "enter" }.count)
        #expect(entered.allSatisfy { $0.range(of: #"entered; (Collins|Hopper) \(distance 0\.\d\d\)$"#, options: .regularExpression) != nil },
                "\(entered)")
        // Without --recognize the variable is not set at all.
        let plain = directory.appendingPathComponent("plain.txt").path
        let unnamed = try facecam("video", "--every", "5", "--events", "--on-event",
                                  "echo \"${FACECAM_IDENTITY-unset}\" >> '\(plain)'", fixture("video/crossing.avi"))
        #expect(unnamed.status == 0)
        #expect(Set(try String(contentsOfFile: plain, encoding: .utf8).split(separator: "\n")) == ["unset"])
    }

    /// --descriptors: each face's descriptor in JSON Lines, equal within 1e-4 to dlib's own (its Python bindings,
    /// Tests/Reference/dlib_descriptors.py) on the same pixels and box; refused without --recognize or --cluster, or in another format.
    @Test func descriptorsAreDlibsOwn() throws {
        let (directory, gallery) = try Self.directoryWithGallery("descriptors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try facecam("detect", "--recognize", "--descriptors", "--gallery", gallery, fixture("images/astronaut.png"))
        #expect(found.status == 0, "\(found.stderr)")
        let face = try #require((try found.records().first?["faces"] as? [[String: Any]])?.first)
        let descriptor = try #require(face["descriptor"] as? [Double])
        #expect(descriptor.count == 128)
        let ppm = directory.appendingPathComponent("astronaut.ppm").path
        let converted = try run(URL(fileURLWithPath: SharedDataTests.python), [
            "-c", "import cv2, sys; cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1]))", fixture("images/astronaut.png"), ppm])
        try #require(converted.status == 0, "\(converted.stderr)")
        let models = repository.appendingPathComponent("Sources/FaceCamRecognition/Resources/Dlib").path
        let request = directory.appendingPathComponent("request.json")
        try JSONSerialization.data(withJSONObject: [
            "image": ppm, "boxes": [face["box"] as! [Int]], "shape_predictor": models + "/shape_predictor_5_face_landmarks.dat",
            "network": models + "/dlib_face_recognition_resnet_model_v1.dat",
        ]).write(to: request)
        let reference = try run(repository.appendingPathComponent(".build/dlib-venv/bin/python"),
                                [repository.appendingPathComponent("Tests/Reference/dlib_descriptors.py").path, request.path])
        try #require(reference.status == 0, "\(reference.stderr)")
        let expected = try #require((try reference.records().first?["faces"] as? [[String: Any]])?.first?["descriptor"] as? [Double])
        let worst = zip(descriptor, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(expected.count == 128 && worst <= 1e-4, "worst difference \(worst)")
        for arguments in [["detect", "--descriptors", fixture("images/astronaut.png")],
                          ["detect", "--recognize", "--descriptors", "--format", "csv", fixture("images/astronaut.png")]] {
            #expect(try reportedUsageError(arguments)?.contains("--descriptors") == true)
        }
    }

    /// The boxes OpenCV's FaceDetectorYN finds in each upright frame of `path` (Tests/Reference/redaction_check.py).
    static func referenceFaces(_ path: String) throws -> [[[Int]]] {
        let script = repository.appendingPathComponent("Tests/Reference/redaction_check.py").path
        let result = try run(URL(fileURLWithPath: SharedDataTests.python), [script, "faces", path])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[[Int]]])
    }

    /// redact --spare hides everyone but the people named, judged by OpenCV's own detector on the output:
    /// in two-faces.jpg Hopper's face (the right one) is still found and Collins's is not; in crossing.avi every
    /// face found is inside Hopper's patch (tracks.json), never Collins's, and hers is found in most frames.
    @Test func spareLeavesOnlyThePeopleNamedVisible() throws {
        let (directory, gallery) = try Self.directoryWithGallery("spare")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = fixture("images/two-faces.jpg")
        let before = try #require(try Self.referenceFaces(photo).first)
        let hopper = try #require(before.first { $0[0] + $0[2] / 2 > 512 })
        let spareHopper = directory.appendingPathComponent("hopper.png").path
        let run = try facecam("redact", "--spare", "Hopper", "--gallery", gallery, "--mode", "solid", "-o", spareHopper, photo)
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try run.records().first)
        #expect(line["faces"] as? Int == 1 && line["masks"] as? Int == 1 && line["spared"] as? Int == 1, "\(line)")
        let after = try #require(try Self.referenceFaces(spareHopper).first)
        #expect(before.count == 2 && after.count == 1 && after.allSatisfy { iou($0, hopper) > 0.9 }, "\(before) then \(after)")
        // Both named: both left as they were; names given as a list.
        let spareBoth = directory.appendingPathComponent("both.png").path
        let both = try facecam("redact", "--spare", "Collins,Hopper", "--gallery", gallery, "--mode", "solid", "-o", spareBoth, photo)
        let bothLine = try both.records().first
        #expect(both.status == 0 && bothLine?["spared"] as? Int == 2, "\(both.stderr)")
        #expect(try Self.referenceFaces(spareBoth).first?.count == 2)

        let clip = fixture("video/crossing.avi")
        let truth = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixture("video/tracks.json")))) as? [String: [[String: [Int]]]])
        let patches = try #require(truth["video/crossing.avi"])
        let video = directory.appendingPathComponent("hopper.mkv").path
        let redacted = try facecam("redact", "--quiet", "--spare", "Hopper", "--gallery", gallery, "--mode", "solid", "-o", video, clip)
        #expect(redacted.status == 0, "\(redacted.stderr)")
        func inside(_ box: [Int], _ patch: [Int]) -> Bool {
            let (x, y) = (box[0] + box[2] / 2, box[1] + box[3] / 2)
            return patch[0] <= x && x < patch[0] + patch[2] && patch[1] <= y && y < patch[1] + patch[3]
        }
        let frames = try Self.referenceFaces(video)
        #expect(frames.count == patches.count)
        for (index, faces) in frames.enumerated() {
            #expect(faces.allSatisfy { inside($0, patches[index]["hopper"]!) && !inside($0, patches[index]["astronaut"]!) },
                    "frame \(index): \(faces) against \(patches[index])")
        }
        let inputFrames = try Self.referenceFaces(clip)
        let hopperBefore = inputFrames.indices.filter { i in inputFrames[i].contains { inside($0, patches[i]["hopper"]!) } }.count
        let hopperAfter = frames.filter { !$0.isEmpty }.count
        #expect(hopperAfter * 10 >= hopperBefore * 8, "Hopper found in \(hopperAfter) frames of the output, \(hopperBefore) of the input")
    }


    @Test func spareRefusesNamesNoOneHas() throws {
        let (directory, gallery) = try Self.directoryWithGallery("spare-unknown")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png").path
        #expect(try reportedUsageError(["redact", "--spare", "Hopper,Lovelace", "--gallery", gallery, "-o", output, fixture("images/two-faces.jpg")])
            == "facecam: --spare 'Lovelace': no one is enrolled under that name in \(gallery) "
            + "(facecam people lists who is; facecam enrol NAME PHOTO adds someone)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Reading commands never make or change a gallery: an empty file given to --recognize or people reads as no one and
    /// stays empty, with no log beside it.
    @Test func aReadingCommandLeavesAnEmptyFileEmpty() throws {
        let directory = try temporaryDirectory("empty-gallery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = directory.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: gallery, contents: Data(), attributes: [.posixPermissions: 0o600]))
        let detect = try facecam("detect", "--recognize", "--gallery", gallery, fixture("images/grace_hopper.jpg"))
        #expect(detect.status == 0, "\(detect.stderr)")
        #expect(detect.errorLines == ["facecam: warning: no one is enrolled in \(gallery): every face is unknown (facecam enrol NAME PHOTO)"])
        let people = try facecam("people", "--gallery", gallery)
        #expect(people.status == 0 && people.stdout.isEmpty, "\(people.stderr)")
        #expect(FileManager.default.contents(atPath: gallery) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["empty.sqlite"])
    }

    /// A gallery made by hand with facecam's marks and a looser layout: a person without a name is one line, not a
    /// trap; names with escape sequences and line breaks are shown on one line each.
    @Test func aHandMadeGalleryIsReadSafely() throws {
        let directory = try temporaryDirectory("hand-made-gallery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = directory.appendingPathComponent("g.sqlite").path
        let make = { (rows: String) throws in
            try? FileManager.default.removeItem(atPath: gallery)
            let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()"
            let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, gallery, """
                PRAGMA application_id = \(0x6663_6731); PRAGMA user_version = 1;
                CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, added TEXT);
                CREATE TABLE descriptors (id INTEGER PRIMARY KEY, person INTEGER, descriptor BLOB, added TEXT);
                \(rows)
                """])
            try #require(made.status == 0, "\(made.stderr)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: gallery)
        }
        try make("INSERT INTO people (id, name) VALUES (1, NULL); INSERT INTO descriptors (person, descriptor) VALUES (1, zeroblob(512));")
        let damaged = "facecam: \(gallery): the gallery is damaged (a person without a name)"
        let people = try facecam("people", "--gallery", gallery)
        #expect(people.status == 1 && people.errorLines == [damaged], "\(people.stderr)")
        let detect = try facecam("detect", "--recognize", "--gallery", gallery, fixture("images/grace_hopper.jpg"))
        #expect(detect.status == 64 && detect.errorLines == [damaged], "\(detect.stderr)")
        try make("INSERT INTO people (id, name) VALUES (1, 'Ada' || char(27) || '[2J' || char(10) || 'Fake: 9 photographs');")
        let listed = try facecam("people", "--gallery", gallery)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "Ada\\x1B[2J\\x0AFake: 9 photographs: 0 photographs\n")
    }

    static let lfw = repository.deletingLastPathComponent().appendingPathComponent("shared/data/faces/lfw")

    /// A portrait in which YuNet at enrol's 0.9 finds no face (as OpenCV's FaceDetectorYN scores it) is enrolled from
    /// CenterFace's face rather than refused.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: RecognitionCommandTests.lfw.path), "../shared/data/faces is absent"))
    func enrolFallsBackToCenterFace() throws {
        let directory = try temporaryDirectory("enrol-fallback")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = Self.lfw.appendingPathComponent("Andre_Agassi/Andre_Agassi_0012.jpg").path
        let yunet = try facecam("detect", "--detector", "yunet", "--engine", "opencv", photo)
        try #require(try yunet.records().first?["faces"] as? [Any] != nil)
        #expect((try yunet.records()[0]["faces"] as! [Any]).isEmpty, "the premise: YuNet finds no face")
        let gallery = directory.appendingPathComponent("g.sqlite").path
        let enrolled = try facecam("enrol", "--gallery", gallery, "Agassi", photo)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(try facecam("people", "--gallery", gallery).stdout == "Agassi: 1 photograph\n")
    }

    /// Results written over the gallery --recognize reads would lose everyone enrolled: refused before any work.
    @Test func anOutputOverTheGalleryIsRefused() throws {
        let (directory, gallery) = try Self.directoryWithGallery("output-over-gallery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: URL(fileURLWithPath: gallery))
        for command in [["detect", "--recognize", "--gallery", gallery, "-o", gallery, fixture("images/two-faces.jpg")],
                        ["video", "--recognize", "--gallery", gallery, "-o", gallery, fixture("video/crossing.avi")]] {
            #expect(try reportedUsageError(command) == "facecam: --output \(gallery) is the gallery of enrolled people: results written "
                + "there would erase them; choose another file", "\(command)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: gallery)) == before)
    }

    /// A photograph with no face or several is refused by name; the others are enrolled (status 1), and none
    /// at all leaves no gallery behind.
    @Test func enrolRefusesPhotographsWithoutOneFaceAndKeepsTheRest() throws {
        let directory = try temporaryDirectory("enrol")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = directory.appendingPathComponent("g.sqlite").path
        // Every photograph refused: no gallery is made.
        let none = try facecam("enrol", "--gallery", gallery, "Collins", fixture("images/coffee.png"))
        #expect(none.status == 1)
        #expect(none.errorLines == [
            "facecam: \(fixture("images/coffee.png")): no face found: give a photograph where Collins's face is clear and upright",
        ])
        #expect(!FileManager.default.fileExists(atPath: gallery))
        let run = try facecam("enrol", "--gallery", gallery, "Collins", fixture("images/coffee.png"), fixture("images/astronaut.png"),
                              fixture("images/two-faces.jpg"))
        #expect(run.status == 1)
        #expect(run.errorLines == [
            "facecam: \(fixture("images/coffee.png")): no face found: give a photograph where Collins's face is clear and upright",
            "facecam: \(fixture("images/two-faces.jpg")): 2 faces: give one of Collins alone, or add --largest to take the largest",
            "facecam: enrolled Collins from 1 photograph in \(gallery)",
        ])
        let listed = try facecam("people", "--gallery", gallery, "--format", "jsonl")
        #expect(listed.status == 0)
        #expect(listed.stdout == "{\"name\":\"Collins\",\"photographs\":1}\n")
        // Enrolled already: refused unless added to; --largest takes two-faces.jpg's larger face (Hopper's).
        let again = try facecam("enrol", "--gallery", gallery, "Collins", fixture("images/astronaut.png"))
        #expect(again.status == 64 && again.errorLines.count == 1 && again.stderr.contains("--add"), "\(again.stderr)")
        let hopper = try facecam("enrol", "--gallery", gallery, "--largest", "Hopper", fixture("images/two-faces.jpg"))
        #expect(hopper.status == 0, "\(hopper.stderr)")
        let found = try facecam("detect", "--recognize", "--gallery", gallery, fixture("images/grace_hopper.jpg"))
        #expect((try found.records().first?["faces"] as? [[String: Any]])?.first?["identity"] as? String == "Hopper")
    }

    @Test func peopleRenamesAndForgets() throws {
        let (directory, gallery) = try Self.directoryWithGallery("people")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try facecam("people", "rename", "--gallery", gallery, "Hopper", "Grace Hopper").status == 0)
        #expect(try facecam("people", "--gallery", gallery).stdout == "Collins: 1 photograph\nGrace Hopper: 1 photograph\n")
        let forgot = try facecam("people", "forget", "--gallery", gallery, "Collins")
        #expect(forgot.status == 0 && forgot.stderr == "facecam: forgot Collins: their descriptors are deleted from \(gallery)\n")
        let unknown = try facecam("people", "forget", "--gallery", gallery, "Collins")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "facecam: no one called 'Collins' is enrolled in \(gallery) (facecam people lists who is)\n")
        let found = try facecam("detect", "--recognize", "--gallery", gallery, fixture("images/astronaut.png"))
        #expect((try found.records().first?["faces"] as? [[String: Any]])?.first?["identity"] is NSNull)
        // A gallery others may read (copied, or made by hand) is warned about; the command goes on.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: gallery)
        let shared = try facecam("people", "--gallery", gallery)
        #expect(shared.status == 0 && shared.stdout == "Grace Hopper: 1 photograph\n")
        #expect(shared.errorLines == ["facecam: warning: \(gallery) may be read by others (mode 644): chmod 600 \(gallery) keeps it its owner's"])
    }

    /// A gallery that is not one, or is missing, is one line and 64, and the file is left as it was.
    @Test func aBadGalleryIsOneLineAndNothingChanges() throws {
        let directory = try temporaryDirectory("bad-gallery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let notes = directory.appendingPathComponent("notes.txt")
        try Data("shopping: milk\n".utf8).write(to: notes)
        for arguments in [["enrol", "--gallery", notes.path, "X", fixture("images/astronaut.png")],
                          ["detect", "--recognize", "--gallery", notes.path, fixture("images/astronaut.png")],
                          ["people", "--gallery", notes.path]] {
            #expect(try reportedUsageError(arguments)
                == "facecam: \(notes.path): not a facecam gallery (give --gallery a new file, or one facecam enrol made)", "\(arguments)")
        }
        #expect(try Data(contentsOf: notes) == Data("shopping: milk\n".utf8))
        // A folder given as the gallery, and a gallery that could not be made (below a file): one line, before any work.
        for arguments in [["enrol", "--gallery", directory.path, "X", fixture("images/astronaut.png")],
                          ["people", "--gallery", directory.path]] {
            #expect(try reportedUsageError(arguments) == "facecam: \(directory.path): a directory, not a gallery (give --gallery a file "
                + "in it, such as \(directory.path)/gallery.sqlite)", "\(arguments)")
        }
        let below = notes.appendingPathComponent("g.sqlite").path
        #expect(try reportedUsageError(["enrol", "--gallery", below, "X", fixture("images/coffee.png")])
            == "facecam: \(below): cannot make the gallery: \(notes.path) is not a folder you may write "
            + "(give --gallery a file in a folder you may write)", "the path is refused before coffee.png is searched")
        let missing = directory.appendingPathComponent("missing.sqlite").path
        #expect(try reportedUsageError(["detect", "--recognize", "--gallery", missing, fixture("images/astronaut.png")])
            == "facecam: \(missing): cannot open the gallery: no such file (facecam enrol makes it) "
            + "(give --gallery a file in a folder you may write)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// Two processes enrolling into one gallery at once: both wait their turn, neither is lost.
    @Test func twoEnrolmentsAtOnceBothLand() throws {
        let directory = try temporaryDirectory("enrol-together")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = directory.appendingPathComponent("g.sqlite").path
        let processes = try (1...4).map { index in
            try BackgroundProcess(facecamBinary, ["enrol", "--gallery", gallery, "Person \(index)", fixture("images/grace_hopper.jpg")])
        }
        for process in processes {
            let finished = try process.wait()
            #expect(finished.status == 0, "\(finished.stderr)")
        }
        #expect(try facecam("people", "--gallery", gallery).lines.count == 4)
    }
}

func facecam(_ arguments: [String]) throws -> Run {
    try run(facecamBinary, arguments)
}

