/// An 8-bit BGRA image: `height` rows of `bytesPerRow` bytes, origin at the top-left.
public struct Frame: Sendable {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public var pixels: [UInt8]

    /// `pixels` must hold `height` rows of `bytesPerRow` >= 4·`width` bytes.
    public init(width: Int, height: Int, bytesPerRow: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && bytesPerRow >= width * 4, "malformed frame \(width)x\(height)")
        precondition(pixels.count >= bytesPerRow * height, "frame pixels too short")
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixels = pixels
    }

    /// An opaque black frame.
    public init(width: Int, height: Int) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for alpha in stride(from: 3, to: pixels.count, by: 4) { pixels[alpha] = 255 }
        self.init(width: width, height: height, bytesPerRow: width * 4, pixels: pixels)
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The pixel at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> BGRA {
        let i = y * bytesPerRow + x * 4
        return BGRA(blue: pixels[i], green: pixels[i + 1], red: pixels[i + 2], alpha: pixels[i + 3])
    }

    public mutating func setPixel(x: Int, y: Int, to colour: BGRA) {
        let i = y * bytesPerRow + x * 4
        pixels[i] = colour.blue
        pixels[i + 1] = colour.green
        pixels[i + 2] = colour.red
        pixels[i + 3] = colour.alpha
    }
}

public struct BGRA: Hashable, Sendable {
    public var blue, green, red, alpha: UInt8

    public init(blue: UInt8, green: UInt8, red: UInt8, alpha: UInt8 = 255) {
        (self.blue, self.green, self.red, self.alpha) = (blue, green, red, alpha)
    }
}
