// The textual forms of sizes and rects on the command line.

extension PixelSize {
    /// "WxH", or "N" for N x N.
    public init?(argument: String) {
        let numbers = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        switch numbers.count {
        case 1: guard let n = numbers[0] else { return nil }; self.init(width: n, height: n)
        case 2: guard let w = numbers[0], let h = numbers[1] else { return nil }; self.init(width: w, height: h)
        default: return nil
        }
    }
}

extension PixelRect {
    /// "x,y,w,h" in whole pixels.
    public init?(argument: String) {
        guard let n = fourNumbers(argument, as: Int.self) else { return nil }
        self.init(x: n[0], y: n[1], width: n[2], height: n[3])
    }
}

extension Rect {
    /// "x,y,w,h" in pixels, fractions allowed.
    public init?(argument: String) {
        guard let n = fourNumbers(argument, as: Double.self), n.allSatisfy(\.isFinite) else { return nil }
        self.init(x: n[0], y: n[1], width: n[2], height: n[3])
    }
}

/// "a,b,c,d" as four numbers, or nil.
private func fourNumbers<Number: LosslessStringConvertible>(_ text: String, as: Number.Type) -> [Number]? {
    let fields = text.split(separator: ",", omittingEmptySubsequences: false)
    let numbers = fields.compactMap { Number(String($0)) }
    return fields.count == 4 && numbers.count == 4 ? numbers : nil
}
