/// Tells the frames that begin a new scene: a frame whose grey thumbnail differs from the previous
/// frame's by more than `threshold` levels on average (of 255). A cut changes most of the picture at
/// once; a pan, a zoom or people moving change it a little at a time.
public struct SceneCuts: Sendable {
    /// The mean difference, in grey levels, above which a frame begins a new scene.
    public let threshold: Double
    /// The thumbnail: 32 x 24 cells, each the mean of 4 x 4 pixels sampled in it.
    static let columns = 32, rows = 24, samples = 4
    private var previous: [UInt8]?

    public init(threshold: Double = 35) {
        self.threshold = threshold
    }

    /// True when `frame` begins a new scene (the first frame does).
    public mutating func isCut(_ frame: Frame) -> Bool {
        let thumbnail = Self.thumbnail(of: frame)
        defer { previous = thumbnail }
        guard let previous else { return true }
        var total = 0
        for i in thumbnail.indices { total += abs(Int(thumbnail[i]) - Int(previous[i])) }
        return Double(total) / Double(thumbnail.count) > threshold
    }

    /// The frame's grey thumbnail, `columns` x `rows` cells.
    static func thumbnail(of frame: Frame) -> [UInt8] {
        var cells = [UInt8](repeating: 0, count: columns * rows)
        frame.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<rows {
                for column in 0..<columns {
                    var sum = 0
                    for sy in 0..<samples {
                        let y = min(frame.height - 1, (row * samples + sy) * frame.height / (rows * samples))
                        for sx in 0..<samples {
                            let x = min(frame.width - 1, (column * samples + sx) * frame.width / (columns * samples))
                            let i = y * frame.bytesPerRow + x * 4
                            // Blue, twice green and red: a grey close enough to luma.
                            sum += Int(pixels[i]) + 2 * Int(pixels[i + 1]) + Int(pixels[i + 2])
                        }
                    }
                    cells[row * columns + column] = UInt8(sum / (4 * samples * samples))
                }
            }
        }
        return cells
    }
}
