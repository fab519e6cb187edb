import FaceCam
import Foundation
import Synchronization
import Prometheus

/// /metrics: the run's counters and latencies in Prometheus' text format.
/// The frame counters follow live's own counts (`LiveCounts`, `LiveFeed`'s),
/// brought up to date at each scrape; faces and latencies are recorded as
/// each frame is processed.
final class PreviewMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let captured: Counter
    private let processed: Counter
    private let dropped: Counter
    private let missed: Counter
    private let faces: Counter
    private let latency: DurationHistogram
    private let clients: Gauge
    private let skipped: Counter
    private let started: Gauge
    private struct State {
        /// The counts the counters were last brought up to.
        var counted = LiveCounts()
        /// live --mqtt's, made at the first scrape that has its counts.
        var mqtt: (acknowledged: Counter, dropped: Counter, connected: Gauge)?
    }

    private let state = Mutex(State())

    init() {
        func name(_ subsystem: String, _ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "facecam", subsystem: subsystem, metricName: metric, unitName: unit, helpText: help)
        }
        captured = registry.makeCounter(descriptor: name("frames", "captured", "total", "Frames captured from the camera or source."))
        processed = registry.makeCounter(
            descriptor: name("frames", "processed", "total", "Frames whose faces were detected and written."))
        dropped = registry.makeCounter(
            descriptor: name("frames", "dropped", "total", "Frames replaced by a newer one while the detector was busy."))
        missed = registry.makeCounter(
            descriptor: name("frames", "missed", "total", "Frames the driver never delivered (gaps in its sequence numbers)."))
        faces = registry.makeCounter(descriptor: name("faces", "detected", "total", "Faces found, summed over the processed frames."))
        latency = registry.makeDurationHistogram(
            descriptor: name("", "latency", "seconds", "Seconds from capture to the frame's result written."),
            buckets: [5, 10, 20, 35, 50, 75, 100, 150, 250, 500, 1000, 2500].map { .milliseconds($0) })
        clients = registry.makeGauge(descriptor: name("preview", "streams", "", "Clients streaming /stream.mjpg or /events now."))
        // Prometheus' usual name, so that rates since the start need no second scrape.
        started = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "process", subsystem: "start", metricName: "time", unitName: "seconds",
            helpText: "When facecam started, in seconds since the Unix epoch."))
        started.set(Date().timeIntervalSince1970)
        skipped = registry.makeCounter(
            descriptor: name("preview", "parts_skipped", "total", "Stream parts a slow client did not get: a newer one replaced them."))
    }

    func record(faces count: Int, latency seconds: Double) {
        faces.increment(by: Int64(count))
        latency.recordNanoseconds(Int64((max(0, seconds) * 1e9).rounded()))
    }

    private func record(mqtt now: BrokerCounts, since before: BrokerCounts, in state: inout State) {
        let metrics = state.mqtt ?? {
            func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
                MetricNameDescriptor(namespace: "facecam", subsystem: "mqtt", metricName: metric, unitName: unit, helpText: help)
            }
            let made = (
                acknowledged: registry.makeCounter(descriptor: name("acknowledged", "total", "MQTT messages the broker acknowledged.")),
                dropped: registry.makeCounter(descriptor: name(
                    "dropped", "total", "MQTT events dropped because the outgoing queue was full (the broker gone or slow).")),
                connected: registry.makeGauge(descriptor: name("connected", "", "1 while connected to the MQTT broker, else 0.")))
            state.mqtt = made
            return made
        }()
        metrics.acknowledged.increment(by: Int64(max(0, now.acknowledged - before.acknowledged)))
        metrics.dropped.increment(by: Int64(max(0, now.dropped - before.dropped)))
        metrics.connected.set(now.connected ? 1.0 : 0.0)
    }

    func recordSkipped() {
        skipped.increment()
    }

    /// The text of a scrape, the counters brought up to `counts`.
    func text(counts: LiveCounts, streams: Int) -> String {
        state.withLock { state in
            let counted = state.counted
            // Counters only rise: counts never fall during a run.
            captured.increment(by: Int64(max(0, counts.captured - counted.captured)))
            processed.increment(by: Int64(max(0, counts.processed - counted.processed)))
            dropped.increment(by: Int64(max(0, counts.dropped - counted.dropped)))
            missed.increment(by: Int64(max(0, counts.missed - counted.missed)))
            state.counted = LiveCounts(
                captured: max(counts.captured, counted.captured), processed: max(counts.processed, counted.processed),
                dropped: max(counts.dropped, counted.dropped), missed: max(counts.missed, counted.missed))
            clients.set(Double(streams))
            if let now = counts.mqtt {
                record(mqtt: now, since: counted.mqtt ?? BrokerCounts(), in: &state)
                state.counted.mqtt = now
            }
            return registry.emitToString()
        }
    }
}
