/// A run's marked pictures: each rendered preview marked as `marking` says, saved as an annotated
/// JPEG when it has a name, and appended to the frame output (an annotated or redacted video, a
/// redacted image), which is replaced between inputs and given up after its first failure.
public final class PreviewOutput {
    let marking: PreviewMarking
    private var annotator: Annotator?
    private var frames: FrameOutput?
    /// Redaction's lookahead: how many previews are held back (0: none).
    private let lookahead: Int
    /// The previews held back, oldest first.
    private var held: [Held] = []

    private struct Held {
        var rendered: Result<Frame, FaceCamError>
        var time: Double
        var marks: PreviewMarks
        var annotationName: String?
    }

    /// What showing previews came to, counted in the run's summary.
    struct Shown {
        /// Redacting: faces hidden, pixels whose hiding changed and pixels of the previews.
        var masks = 0
        var hiddenPixels = 0
        var redactedPixels = 0
        /// Previews that went to the frame output; the frame output failed (and was given up).
        var written = 0
        var outputFailed = false

        mutating func add(_ other: Shown) {
            masks += other.masks
            hiddenPixels += other.hiddenPixels
            redactedPixels += other.redactedPixels
            written += other.written
            outputFailed = outputFailed || other.outputFailed
        }
    }

    /// Redaction may look ahead, marking and saving each preview `lookahead` frames late, to hide a face found at one
    /// frame alone (most often a detector's mistake) at that frame, and over the frames after it only if it is found
    /// again: the masks of a track seen once are dropped when it has ended and no later preview held finds its face
    /// (`releaseOldest`). A face that may still be found again past the previews held keeps its masks.
    public init(marking: PreviewMarking = .outline, annotator: Annotator? = nil, frames: FrameOutput? = nil, lookahead: Int = 0) {
        self.marking = marking
        self.annotator = annotator
        self.frames = frames
        self.lookahead = lookahead
        precondition(lookahead >= 0 && (lookahead == 0 || hidesPredicted), "only redaction looks ahead")
    }

    /// True when the faces the tracker predicts but the detector missed are hidden too (redaction).
    var hidesPredicted: Bool {
        if case .redact = marking { true } else { false }
    }

    /// Marks a rendered preview and saves it, or holds it back and releases those held past the lookahead;
    /// `openTracks` are the tracks still open once its frame was tracked. Each failure goes to `fail`; one of the frame
    /// output's is its last.
    func show(
        _ rendered: Result<Frame, FaceCamError>, at time: Double, marks: PreviewMarks, annotationName: String?,
        openTracks: Set<Int> = [], fail: (FaceCamError) -> Void
    ) -> Shown {
        guard lookahead > 0 else { return mark(rendered, at: time, marks: marks, annotationName: annotationName, fail: fail) }
        held.append(Held(rendered: rendered, time: time, marks: marks, annotationName: annotationName))
        var shown = Shown()
        while held.count > lookahead { shown.add(releaseOldest(openTracks: openTracks, fail: fail)) }
        return shown
    }

    /// Marks and saves the previews held back: call when the source ended (or the run stopped, which leaves its output
    /// unfinished), when every track has.
    func release(fail: (FaceCamError) -> Void) -> Shown {
        var shown = Shown()
        while !held.isEmpty { shown.add(releaseOldest(openTracks: [], fail: fail)) }
        return shown
    }

    /// The oldest preview held, marked and saved without the masks of the tracks seen once that are no longer open
    /// and whose face was not found again in a later preview held: no face there has their id, nor is centred in their
    /// place or holds its centre (a face the tracker took for someone new, moving or growing fast, is still that face).
    private func releaseOldest(openTracks: Set<Int>, fail: (FaceCamError) -> Void) -> Shown {
        let oldest = held.removeFirst()
        var marks = oldest.marks
        marks.predicted.removeAll { predicted in
            predicted.seenOnce && !openTracks.contains(predicted.id)
                && !held.contains { later in
                    later.marks.faces.contains { face in
                        face.id == predicted.id || predicted.box.contains(face.preview.centre) || face.preview.contains(predicted.box.centre)
                    }
                }
        }
        return mark(oldest.rendered, at: oldest.time, marks: marks, annotationName: oldest.annotationName, fail: fail)
    }

    /// Marks a rendered preview and saves it: as an annotated JPEG when it has a name, and to the frame output.
    private func mark(
        _ rendered: Result<Frame, FaceCamError>, at time: Double, marks: PreviewMarks, annotationName: String?,
        fail: (FaceCamError) -> Void
    ) -> Shown {
        var shown = Shown()
        var preview: Frame
        do {
            preview = try rendered.get()
            try Annotator.mark(&preview, with: marks, as: marking)
        } catch {
            fail(error)
            return shown
        }
        if case .redact(let settings, _) = marking {
            shown.masks = marks.hidden.count
            shown.hiddenPixels = settings.hiddenPixels(marks.hidden, width: preview.width, height: preview.height)
            shown.redactedPixels = preview.width * preview.height
        }
        if let annotationName, annotator != nil {
            do {
                try annotator?.save(preview, name: annotationName)
            } catch {
                fail(error)
            }
        }
        guard let output = frames else { return shown }
        do {
            try output.append(preview, time: time)
            shown.written = 1
        } catch {
            // One line, not one per frame: the output is given up, the results go on.
            fail(error)
            frames = nil
            shown.outputFailed = true
        }
        return shown
    }

    /// Frames from here on go to `output`: call between sources, with no frame in flight and none held.
    func redirect(frames output: FrameOutput?) {
        precondition(held.isEmpty, "previews held back are released before the output changes")
        frames = output
    }

    /// Finishes the frame output, so that it plays, and lets it go: call with none held.
    func finish() throws(FaceCamError) {
        precondition(held.isEmpty, "previews held back are released before the output is finished")
        guard let output = frames else { return }
        frames = nil
        try output.finish()
    }
}
