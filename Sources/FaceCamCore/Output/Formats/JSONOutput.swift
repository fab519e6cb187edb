/// JSON as facecam writes it, everywhere it writes JSON (JSON Lines, COCO's and Label Studio's
/// entries, Home Assistant's configs, the summaries of `devices`, `eval`, `redact` and `people`):
/// compact, members in the order given, strings escaped by `jsonString`, numbers as the caller's
/// formatting wrote them (`decimal`, `angleText`, ...), so that each output keeps its own precision.
/// (`JSONValue` is what `eval` reads.)
public indirect enum JSONOutput: Sendable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case null
    case bool(Bool)
    /// A number's text, as one of facecam's number formats wrote it.
    case number(String)
    case string(String)
    case array([JSONOutput])
    case object([(key: String, value: JSONOutput)])

    /// A number as `decimal` writes it: whole numbers without a point, others to at most six decimals.
    public static func decimal(_ value: Double) -> JSONOutput { .number(FaceCamCore.decimal(value)) }

    /// A rectangle as [x, y, width, height], each as `decimal` writes it (`commaSeparated`'s in JSON).
    static func rect(_ r: Rect) -> JSONOutput {
        .array([r.x, r.y, r.width, r.height].map(JSONOutput.decimal))
    }

    public static func integer<Integer: BinaryInteger>(_ value: Integer) -> JSONOutput { .number(String(value)) }

    /// The object of the members that have a value, in their order: a nil value leaves its member
    /// out, where `.null` writes `null`.
    public static func members(_ members: KeyValuePairs<String, JSONOutput?>) -> JSONOutput {
        .object(members.compactMap { key, value in value.map { (key, $0) } })
    }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(stringInterpolation: DefaultStringInterpolation) { self = .string(String(stringInterpolation: stringInterpolation)) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// This value's text, with no line break at its end.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): out += jsonString(text)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                out += jsonString(member.key)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// This object with `more` members after its own; other values are returned as they are.
    public func appending(_ more: [(key: String, value: JSONOutput)]) -> JSONOutput {
        guard case .object(let members) = self else { return self }
        return .object(members + more)
    }
}
