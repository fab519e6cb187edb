import Foundation
import FaceCam
import Testing

/// captured, processed and dropped from the summary line on standard error.
func summaryCounts(_ run: Run) -> (captured: Int, processed: Int, dropped: Int)? {
    guard let line = run.errorLines.first(where: { $0.contains("captured") }) else { return nil }
    let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    return numbers.count >= 3 ? (numbers[0], numbers[1], numbers[2]) : nil
}

struct LiveCommandTests {
    /// `devices` prints a device per line; with none (this machine's case, or CI's), nothing on
    /// standard output and one line on standard error saying so, status 0.
    @Test func devicesSaysWhenThereIsNone() throws {
        let result = try facecam("devices")
        #expect(result.status == 0)
        if CaptureDevice.all().isEmpty {
            #expect(result.stdout.isEmpty)
            #expect(result.errorLines.count == 1 && result.stderr.hasPrefix("facecam: no V4L2 capture device:"), "\(result.stderr)")
        } else {
            #expect(result.lines.count == CaptureDevice.all().count && result.stderr.isEmpty)
        }
    }

    @Test func aVideoPlayedInRealTimeIsLoggedFrameByFrame() throws {
        let result = try facecam("live", "--detector", "haar", "--source", "Fixtures/video/pan-zoom.avi", "--realtime")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result))
        #expect(counts.captured == 36)
        #expect(counts.processed + counts.dropped == 36)
        let records = try result.records()
        #expect(records.count == counts.processed)
        let sequences = records.map { $0["sequence"] as! Int }
        #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
        // Each processed frame has OpenCV's boxes for that frame of the file.
        let expected = Dictionary(uniqueKeysWithValues: try videoExpectations("video/pan-zoom.avi").map { ($0.frame, $0.boxes) })
        for record in records {
            #expect(boxes(record) == expected[record["sequence"] as! Int], "frame \(record["sequence"]!)")
            #expect(record["frame"] as? Int == record["sequence"] as? Int)
        }
    }

    @Test func aSourceFasterThanTheDetectorDropsToTheNewestFrame() throws {
        let result = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--frames", "30")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result))
        #expect(counts.captured == 30)
        #expect(counts.processed + counts.dropped == 30)
        let sequences = try result.records().map { $0["sequence"] as! Int }
        #expect(sequences.first == 0 && sequences.last == 29)
        #expect(sequences == sequences.sorted())
    }

    @Test func aLoopedFilePlaysAgainWithItsFrameNumbersGoingOn() throws {
        // pan-zoom.avi has 36 frames: 80 captured frames are two rounds and part of a third.
        let result = try facecam("live", "--detector", "haar", "--source", "Fixtures/video/pan-zoom.avi", "--loop", "--frames", "80")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result))
        #expect(counts.captured == 80)
        let records = try result.records()
        let sequences = records.map { $0["sequence"] as! Int }
        #expect(sequences == sequences.sorted() && sequences.last == 79)
        #expect(sequences.contains { $0 >= 72 })
        let expected = Dictionary(uniqueKeysWithValues: try videoExpectations("video/pan-zoom.avi").map { ($0.frame, $0.boxes) })
        for record in records {
            let sequence = record["sequence"] as! Int
            #expect(boxes(record) == expected[sequence % 36], "frame \(sequence)")
        }
        // Times go on too: the file is 12 frames/s.
        let last = try #require(records.last)
        #expect(abs((last["time"] as! Double) - Double(last["sequence"] as! Int) / 12) < 0.01)
    }

    @Test func interruptFlushesEverythingAndSummarises() throws {
        // Played again and again at 12 frames/s: only the signal, sent after the 4th record, ends it, however loaded the
        // machine is.
        let (run, signalled) = try interrupt(
            facecamBinary, ["live", "--source", "Fixtures/video/pan-zoom.avi", "--realtime", "--loop"]) { $0.outputLines >= 4 }
        try #require(signalled, "\(run.stderr)")
        // Exited normally with 0 (a process killed by SIGINT would report the signal instead).
        #expect(run.status == 0)
        let counts = try #require(summaryCounts(run), "\(run.stderr)")
        #expect(counts.captured > 3)
        #expect(counts.processed + counts.dropped == counts.captured)
        // Every processed frame's record is there, whole.
        #expect(try run.records().count == counts.processed)
        #expect(run.stdout.hasSuffix("\n"))
    }

    @Test(arguments: [
        ("/dev/null", Int32(8), "/dev/null is not a V4L2 capture device (it does not answer VIDIOC_QUERYCAP)"),
        ("/etc/hostname", Int32(8), "/etc/hostname is not a V4L2 capture device (not a character device)"),
        ("/nonexistent/video0", Int32(4), "/nonexistent/video0 does not exist"),
    ])
    func devicesThatCannotBeUsedGetTheirStatus(device: String, status: Int32, message: String) throws {
        let result = try facecam("live", "--device", device)
        #expect(result.status == status)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("facecam: " + message) == true, "\(result.stderr)")
    }

    /// crossing.avi is 640x360: an aperture of 5000x5000 cannot be cut from it. Said once, before any frame.
    @Test func geometryThatDoesNotFitTheSourceIsSaidOnce() throws {
        let result = try facecam("live", "--source", "Fixtures/video/crossing.avi", "--aperture", "0,0,5000,5000")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines == [
            "facecam: Fixtures/video/crossing.avi: --aperture does not fit: aperture 0,0,5000,5000 is not inside the 640x360 frame",
        ], "\(result.stderr)")
    }


    @Test func annotatedFramesAreSavedAlongside() throws {
        let directory = try temporaryDirectory("live-annotate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try facecam(
            "live", "--source", "Fixtures/video/rotated.mp4", "--realtime", "--annotate", directory.path, "--annotate-every", "4")
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("frame-") && $0.hasSuffix(".jpg") })
        let processed = try #require(summaryCounts(result)).processed
        #expect(names.count <= (processed + 3) / 4)
    }
}
