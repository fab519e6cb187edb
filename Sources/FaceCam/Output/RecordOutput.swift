/// Where a run's records go, in order: frame results, track events and best shots, to the writer,
/// which is replaced between inputs (`--output-dir`); with a clusterer (`--cluster`) they are held
/// until the run ends, so that faces are clustered across all of it.
public final class RecordOutput {
    /// What the writer is given.
    enum Record {
        case result(FrameResult)
        case event(TrackEvent)
        case shot(BestShot)
    }

    /// Nil while there is none: before the first input's own writer is given (`--output-dir`), or
    /// in a run whose results are its folder's files alone.
    private var writer: ResultWriter?
    private let clusterer: (any FaceClustering)?
    private var held: [Record] = []

    public init(writer: ResultWriter?, clusterer: (any FaceClustering)? = nil) {
        self.writer = writer
        self.clusterer = clusterer
    }

    /// Writes `record`, or holds it; says when the writer had to rename a result's dataset item.
    @discardableResult
    func write(_ record: Record) throws(SystemError) -> ItemRenamed? {
        if clusterer != nil {
            held.append(record)
            return nil
        }
        return try deliver(record)
    }

    /// Records from here on go to `writer`: call between sources, with no frame in flight (and no clusterer).
    func redirect(to writer: ResultWriter) {
        precondition(clusterer == nil, "a clustered run has one writer")
        self.writer = writer
    }

    /// Writes the records held back, their faces clustered (if clustering fails, `fail` is told and
    /// they are written without clusters; items renamed go to `report`), then ends the
    /// results: gives them their finished name, or, for a run that `stoppedEarly`, keeps an unfinished
    /// document under its partial name and returns that.
    func finish(
        stoppedEarly: Bool, report: (ItemRenamed) -> Void, fail: (FaceCamError) -> Void
    ) throws(SystemError) -> String? {
        guard let writer else { return nil }
        try writeHeld(report: report, fail: fail)
        if stoppedEarly { return try writer.keepUnfinished() }
        try writer.finish()
        return nil
    }

    private func deliver(_ record: Record) throws(SystemError) -> ItemRenamed? {
        switch record {
        case .result(let result): return try writer?.write(result)
        case .event(let event): try writer?.write(event)
        case .shot(let shot): try writer?.write(shot)
        }
        return nil
    }

    private func writeHeld(report: (ItemRenamed) -> Void, fail: (FaceCamError) -> Void) throws(SystemError) {
        guard let clusterer, !held.isEmpty else { return }
        var results = held.compactMap { if case .result(let result) = $0 { result } else { nil } }
        do {
            try clusterer.cluster(&results)
        } catch {
            fail(error)
        }
        var clustered = results.makeIterator()
        let records = held
        held = []
        for record in records {
            let written = if case .result = record { Record.result(clustered.next()!) } else { record }
            if let renamed = try deliver(written) { report(renamed) }
        }
    }
}
