import Foundation

// How the text formats write numbers and strings, alike in each.

/// A rectangle's x, y, width and height, separated by commas.
func commaSeparated(_ r: Rect) -> String {
    [r.x, r.y, r.width, r.height].map(decimal).joined(separator: ",")
}

/// A descriptor distance to three decimals.
func distanceText(_ distance: Double) -> String {
    decimal((distance * 1000).rounded() / 1000)
}

/// A quality to three decimals.
func qualityText(_ quality: Double) -> String {
    decimal((quality * 1000).rounded() / 1000)
}

/// An angle in degrees to a hundredth, finer than any estimate of it.
func angleText(_ degrees: Double) -> String {
    decimal((degrees * 100).rounded() / 100)
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    "\"" + replacing(text) { scalar in
        switch scalar {
        case "\"": "\\\""
        case "\\": "\\\\"
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        // Controls, and what YAML (data.yaml) and line-splitting readers take for a line break or refuse.
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || [0x2028, 0x2029, 0xFFFE, 0xFFFF].contains(scalar.value):
            String(format: "\\u%04x", scalar.value)
        default: nil
        }
    } + "\""
}

/// `text` with XML's (and HTML's) five special characters escaped, for element text and attribute
/// values; line breaks and tabs as character references (kept in attributes), other control
/// characters, which XML 1.0 cannot hold, as U+FFFD.
public func markupEscaped(_ text: String) -> String {
    replacing(text) { scalar in
        switch scalar {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case "\"": "&quot;"
        case "'": "&apos;"
        case "\n", "\r", "\t": "&#\(scalar.value);"
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: "\u{FFFD}"
        default: nil
        }
    }
}

/// `text` with each scalar `replacement` gives text for replaced by it.
/// `text` as a line of text shows it, unable to move the cursor, break the line or turn the text around: controls
/// (escape sequences, line breaks), line and paragraph separators and invisible format characters (direction marks,
/// zero-width spaces; the joiners some scripts and emoji need stay), each UTF-8 byte as `\xNN`, as paths show bytes.
/// For every message, and for names a gallery holds, which facecam's own enrol refuses with such characters but a file
/// made by hand may have.
public func shownOnOneLine(_ text: String) -> String {
    replacing(text) { scalar in
        let category = scalar.properties.generalCategory
        guard [.control, .lineSeparator, .paragraphSeparator].contains(category)
            || (category == .format && scalar != "\u{200C}" && scalar != "\u{200D}") else { return nil }
        return String(scalar).utf8.map { "\\x" + ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}

private func replacing(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if let replaced = replacement(scalar) { out += replaced } else { out.unicodeScalars.append(scalar) }
    }
    return out
}
