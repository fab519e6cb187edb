/// A run's marked pictures: each rendered preview marked as `marking` says, saved as an annotated
/// JPEG when it has a name, and appended to the frame output (an annotated or redacted video, a
/// redacted image), which is replaced between inputs and given up after its first failure.
public final class PreviewOutput {
    let marking: PreviewMarking
    private var annotator: Annotator?
    private var frames: FrameOutput?

    /// What showing one preview came to, counted in the run's summary.
    struct Shown {
        /// Redacting: faces hidden, pixels whose hiding changed and pixels of the preview.
        var masks = 0
        var hiddenPixels = 0
        var redactedPixels = 0
        /// It went to the frame output; the frame output failed (and was given up).
        var written = false
        var outputFailed = false
    }

    public init(marking: PreviewMarking = .outline, annotator: Annotator? = nil, frames: FrameOutput? = nil) {
        self.marking = marking
        self.annotator = annotator
        self.frames = frames
    }

    /// True when the faces the tracker predicts but the detector missed are hidden too (redaction).
    var hidesPredicted: Bool {
        if case .redact = marking { true } else { false }
    }

    /// Marks a rendered preview and saves it: as an annotated JPEG when it has a name, and to the frame
    /// output. Each failure goes to `fail`; one of the frame output's is its last.
    func show(
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
            shown.masks = marks.faces.count + marks.predicted.count
            shown.hiddenPixels = settings.hiddenPixels(marks.faces.map(\.preview) + marks.predicted, width: preview.width, height: preview.height)
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
            shown.written = true
        } catch {
            // One line, not one per frame: the output is given up, the results go on.
            fail(error)
            frames = nil
            shown.outputFailed = true
        }
        return shown
    }

    /// Frames from here on go to `output`: call between sources, with no frame in flight.
    func redirect(frames output: FrameOutput?) {
        frames = output
    }

    /// Finishes the frame output, so that it plays, and lets it go.
    func finish() throws(FaceCamError) {
        guard let output = frames else { return }
        frames = nil
        try output.finish()
    }
}
