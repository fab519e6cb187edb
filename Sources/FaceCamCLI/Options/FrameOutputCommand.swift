/// What video and live both take about the frames they search and what they write of them: one set of checks, so that
/// the two commands refuse the same combinations in the same words.
protocol FrameOutputCommand {
    var annotateEvery: AnnotateEveryOptions { get }
    var tracking: TrackingOptions { get }
    var fastMode: FastModeOptions { get }
    var detector: DetectorOptions { get }
    var focus: FocusOptions { get }
    var faces: FaceReportOptions { get }
    var output: OutputOptions { get }
    var bestShot: BestShotOptions { get }
    var redaction: PreviewRedactionOptions { get }
}

extension FrameOutputCommand {
    /// `clustering`: video's --cluster (live has none).
    func validateFrameOutputs(clustering: ClusterOptions?) throws {
        try annotateEvery.validate(with: output)
        try tracking.validate(with: output)
        try fastMode.validate(with: detector)
        try detector.refuseForeignOptions()
        try focus.validate(with: detector)
        try faces.validate(with: detector, hiding: redaction.redact != nil ? "--redact" : nil, minimumFaces: output.minFaces)
        try faces.recognition.validateDescriptors(clustering: clustering)
        try output.validateFaceOutputs(with: detector, faces: faces)
        try bestShot.validate(with: output, detector: detector)
    }
}
