/// Precision-recall curves of one or several runs on one chart, as SVG: recall across, precision
/// up, each run in its own colour and named in the legend with its AP.
public struct PrecisionRecallPlot: Sendable {
    public struct Run: Sendable {
        public var name: String
        public var score: BandScore

        public init(name: String, score: BandScore) {
            self.name = name
            self.score = score
        }
    }

    public var title: String
    public var runs: [Run]

    public init(title: String, runs: [Run]) {
        self.title = title
        self.runs = runs
    }

    /// Colour-blind safe (Okabe and Ito), repeated past eight runs.
    static let colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]

    public func svg(width: Int = 640, height: Int = 480) -> String {
        let left = 60.0, right = 20.0, top = 40.0, bottom = 50.0
        let plotWidth = Double(width) - left - right, plotHeight = Double(height) - top - bottom
        func x(_ recall: Double) -> String { decimal((left + recall * plotWidth).rounded(toPlaces: 2)) }
        func y(_ precision: Double) -> String { decimal((top + (1 - precision) * plotHeight).rounded(toPlaces: 2)) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="sans-serif" font-size="12">
            <rect width="\(width)" height="\(height)" fill="white"/>
            <text x="\(decimal(left + plotWidth / 2))" y="24" text-anchor="middle" font-size="14">\(markupEscaped(title))</text>

            """
        for step in 0...5 {
            let value = Double(step) / 5
            svg += "<line x1=\"\(x(value))\" y1=\"\(y(0))\" x2=\"\(x(value))\" y2=\"\(y(1))\" stroke=\"#ddd\"/>"
                + "<line x1=\"\(x(0))\" y1=\"\(y(value))\" x2=\"\(x(1))\" y2=\"\(y(value))\" stroke=\"#ddd\"/>"
                + "<text x=\"\(x(value))\" y=\"\(decimal(top + plotHeight + 16))\" text-anchor=\"middle\">\(decimal(value))</text>"
                + "<text x=\"\(decimal(left - 6))\" y=\"\(y(value))\" text-anchor=\"end\" dy=\"4\">\(decimal(value))</text>\n"
        }
        svg += "<rect x=\"\(x(0))\" y=\"\(y(1))\" width=\"\(decimal(plotWidth))\" height=\"\(decimal(plotHeight))\" "
            + "fill=\"none\" stroke=\"black\"/>\n"
            + "<text x=\"\(decimal(left + plotWidth / 2))\" y=\"\(height - 12)\" text-anchor=\"middle\">recall</text>\n"
            + "<text transform=\"translate(16 \(decimal(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">precision</text>\n"
        for (index, run) in runs.enumerated() {
            let colour = Self.colours[index % Self.colours.count]
            // A step wherever recall rises: the curve as the AP integrates it, without a point per false positive.
            var points = ["\(x(0)),\(y(run.score.curve.first?.precision ?? 0))"]
            var last: PrecisionRecallPoint?
            for point in run.score.curve {
                if let last, point.recall == last.recall { continue }
                points.append("\(x(point.recall)),\(y(point.precision))")
                last = point
            }
            if let end = run.score.curve.last { points.append("\(x(end.recall)),\(y(end.precision))") }
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            // The legend sits bottom left, where curves rarely go (low recall at low precision).
            let legendY = top + plotHeight - 10 - Double(runs.count - 1 - index) * 18
            let ap = run.score.averagePrecision.isNaN ? "no faces" : "AP " + String(format: "%.3f", run.score.averagePrecision)
            svg += "<line x1=\"\(decimal(left + 10))\" y1=\"\(decimal(legendY - 4))\" "
                + "x2=\"\(decimal(left + 30))\" y2=\"\(decimal(legendY - 4))\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
                + "<text x=\"\(decimal(left + 36))\" y=\"\(decimal(legendY))\">\(markupEscaped(run.name)) (\(ap))</text>\n"
        }
        return svg + "</svg>\n"
    }

}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
