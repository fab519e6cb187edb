import Glibc

/// A JSON document as eval reads it: plain Swift values, a few times the size of the text (Foundation's
/// JSONSerialization takes about forty times, in boxed objects), nested at most `maximumDepth` deep.
enum JSONValue {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the file's order; a key given twice is found at its last place, as most readers take it.
    case object([(key: String, value: JSONValue)])

    static let maximumDepth = 512

    var array: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    var members: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A number; true and false as 1 and 0, as JSONSerialization's NSNumber gave them.
    var number: Double? {
        switch self {
        case .number(let value): value
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    /// An object's member, nil when this is not an object or has no such key.
    subscript(key: String) -> JSONValue? {
        members?.last { $0.key == key }?.value
    }

    /// Parses UTF-8 text (already validated as such) holding one JSON value, with white space around it.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var parser = JSONParser(bytes: buffer)
            let value = try parser.value(depth: 0)
            parser.skipWhiteSpace()
            guard parser.offset == buffer.count else { throw parser.error("text after the JSON value") }
            return value
        }
    }

    static func parse(_ text: Substring) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// Where a JSON text stops being JSON: the line and column (counted in bytes, from 1) and why.
struct JSONSyntaxError: Error {
    var line: Int
    var column: Int
    var reason: String

    var description: String { "line \(line), column \(column): \(reason)" }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONSyntaxError {
        let before = bytes[..<min(offset, bytes.count)]
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return JSONSyntaxError(line: before.count(where: { $0 == UInt8(ascii: "\n") }) + 1, column: offset - lineStart + 1, reason: reason)
    }

    mutating func skipWhiteSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    private var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        skipWhiteSpace()
        guard let byte = next else { throw error("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < JSONValue.maximumDepth else { throw error("nested more than \(JSONValue.maximumDepth) deep") }
            offset += 1
            return byte == UInt8(ascii: "{") ? try object(depth: depth + 1) : try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(Self.shown(byte))")
        }
    }

    private static func shown(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    private mutating func word(_ text: StaticString, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let word = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard bytes.count - offset >= word.count, bytes[offset..<offset + word.count].elementsEqual(word) else {
            throw error("unexpected \(Self.shown(bytes[offset]))")
        }
        offset += word.count
        return value
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var values: [JSONValue] = []
        try elements(closedBy: "]", in: "a list") { parser throws(JSONSyntaxError) in
            values.append(try parser.value(depth: depth))
        }
        return .array(values)
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        try elements(closedBy: "}", in: "an object") { parser throws(JSONSyntaxError) in
            parser.skipWhiteSpace()
            guard parser.next == UInt8(ascii: "\"") else {
                throw parser.error(parser.next == nil ? "the text ends inside an object" : "expected a key in quotes")
            }
            let key = try parser.string()
            parser.skipWhiteSpace()
            guard parser.next == UInt8(ascii: ":") else { throw parser.error("expected : after a key") }
            parser.offset += 1
            members.append((key, try parser.value(depth: depth)))
        }
        return .object(members)
    }

    /// The comma-separated elements of a list or an object, each read by `element`, through the `close` that ends them.
    private mutating func elements(
        closedBy close: Unicode.Scalar, in what: String, _ element: (inout Self) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        skipWhiteSpace()
        if next == UInt8(ascii: close) {
            offset += 1
            return
        }
        while true {
            try element(&self)
            skipWhiteSpace()
            switch next {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: close):
                offset += 1
                return
            default: throw error(next == nil ? "the text ends inside \(what)" : "expected , or \(close) in \(what)")
            }
        }
    }

    /// A string from its opening quote: escapes decoded, a lone surrogate as U+FFFD.
    private mutating func string() throws(JSONSyntaxError) -> String {
        offset += 1
        let start = offset
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\""), bytes[offset] != UInt8(ascii: "\\"), bytes[offset] >= 0x20 {
            offset += 1
        }
        if next == UInt8(ascii: "\"") {
            defer { offset += 1 }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }
        var text = Array(bytes[start..<offset])
        while true {
            guard let byte = next else { throw error("the text ends inside a string") }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = next else { throw error("the text ends inside a string") }
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes.count - offset >= 6,
                       bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") {
                        let resume = offset
                        offset += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            offset = resume
                        }
                    }
                    text.append(contentsOf: Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8))
                default:
                    offset -= 1
                    throw error("unknown escape \\\(Self.shown(escaped))")
                }
            default:
                guard byte >= 0x20 else {
                    offset -= 1
                    throw error("a control character (\(Self.shown(byte))) inside a string: it must be escaped")
                }
                text.append(byte)
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw error("\\u needs four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[offset])).hexDigitValue else {
                throw error("\\u needs four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// A number in JSON's grammar (no leading zeros, hexadecimal, nan or inf), read by strtod.
    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = offset
        func digits() -> Int {
            let first = offset
            while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
            return offset - first
        }
        if next == UInt8(ascii: "-") { offset += 1 }
        if next == UInt8(ascii: "0") {
            offset += 1
        } else if digits() == 0 {
            throw error("a number needs digits")
        }
        if next == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("a number needs digits after its point") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            offset += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        // strtod reads up to a byte that cannot continue the number: a copy ending in NUL keeps it within.
        let span = UnsafeBufferPointer(rebasing: bytes[start..<offset])
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: span.count + 1) { copy in
            span.withMemoryRebound(to: CChar.self) { _ = copy.initialize(fromContentsOf: $0) }
            copy[span.count] = 0
            return strtod(copy.baseAddress!, nil)
        }
    }
}
