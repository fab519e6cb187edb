// The textual forms of sizes and rects on the command line: plain decimal
// numbers only (no hexadecimal, exponents, nan or inf), within `GeometryLimits`.

/// The ranges geometry values are checked against before anything is computed
/// or allocated, so that no value overflows, loses its fractions or draws a
/// preview too large for memory.
public enum GeometryLimits {
    /// The largest coordinate or size, in pixels, of a frame, aperture or rect.
    public static let coordinate = 1_000_000
    /// The largest preview width or height.
    public static let previewSide = 16_384
}

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
        guard let n = fourNumbers(argument, as: { Int($0) }) else { return nil }
        self.init(x: n[0], y: n[1], width: n[2], height: n[3])
    }
}

extension Rect {
    /// "x,y,w,h" in pixels, plain decimals with fractions allowed.
    public init?(argument: String) {
        guard let n = fourNumbers(argument, as: decimalNumber) else { return nil }
        self.init(x: n[0], y: n[1], width: n[2], height: n[3])
    }

    /// True when every value lies within `GeometryLimits.coordinate`.
    public var isWithinLimits: Bool {
        let limit = Double(GeometryLimits.coordinate)
        return [x, y, width, height].allSatisfy { abs($0) <= limit }
    }
}

extension PixelRect {
    /// True when every value lies within `GeometryLimits.coordinate`.
    public var isWithinLimits: Bool { rect.isWithinLimits }
}

/// "a,b,c,d" as four numbers, or nil.
private func fourNumbers<Number>(_ text: String, as parse: (Substring) -> Number?) -> [Number]? {
    let fields = text.split(separator: ",", omittingEmptySubsequences: false)
    let numbers = fields.compactMap(parse)
    return fields.count == 4 && numbers.count == 4 ? numbers : nil
}

/// A plain decimal number ("12", "-3.5", ".25"): digits with an optional sign
/// and fraction, nothing else, at most 15 significant digits.
func decimalNumber(_ text: Substring) -> Double? {
    let unsigned = text.first == "-" || text.first == "+" ? text.dropFirst() : text
    let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard !unsigned.isEmpty, unsigned != ".", unsigned.count <= 16,
          parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
    else { return nil }
    return Double(text)
}
