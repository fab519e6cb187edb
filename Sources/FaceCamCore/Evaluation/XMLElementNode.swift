/// An element of a small XML document (a VOC annotation, a CVAT file), read without a library: tags,
/// attributes, text, CDATA and the five named and numeric entities; comments, processing instructions
/// and a DOCTYPE without an internal subset are skipped. Enough for the dataset files eval reads, not
/// for XML at large (no namespaces, no DTD entities).
struct XMLElementNode {
    var name: String
    var attributes: [String: String] = [:]
    var children: [XMLElementNode] = []
    var text = ""

    /// The first child named `name`.
    func child(_ name: String) -> XMLElementNode? {
        children.first { $0.name == name }
    }

    /// The trimmed text of the first child named `name`.
    func value(_ name: String) -> String? {
        child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// A document's root element; the error's string is "line N: what is wrong".
    static func parse(_ text: String) throws(XMLSyntaxError) -> XMLElementNode {
        // Read in place as UTF-8: every byte of XML's syntax is ASCII.
        var text = text
        return try text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return Result { () throws(XMLSyntaxError) in try reader.document() }
        }.get()
    }
}

struct XMLSyntaxError: Error {
    var line: Int
    var reason: String
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private var line: Int { bytes[..<min(index, bytes.count)].count(where: { $0 == UInt8(ascii: "\n") }) + 1 }

    private func fail(_ reason: String) -> XMLSyntaxError { XMLSyntaxError(line: line, reason: reason) }

    private func starts(with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != prefix.utf8Start[offset] { return false }
        return true
    }

    private func at(_ character: Unicode.Scalar) -> Bool {
        index < bytes.count && bytes[index] == UInt8(ascii: character)
    }

    /// XML's white space: space, tab, CR and LF.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private mutating func skip(past end: StaticString) throws(XMLSyntaxError) {
        while index < bytes.count, !starts(with: end) { index += 1 }
        guard index < bytes.count else { throw fail("\(end) is missing") }
        index += end.utf8CodeUnitCount
    }

    private mutating func skipSpace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    /// Comments, processing instructions and DOCTYPEs before or between elements.
    private mutating func skipMarkup() throws(XMLSyntaxError) {
        while true {
            skipSpace()
            if starts(with: "<?") { try skip(past: "?>") } else if starts(with: "<!--") { try skip(past: "-->") }
            else if starts(with: "<!") { try skip(past: ">") } else { return }
        }
    }

    mutating func document() throws(XMLSyntaxError) -> XMLElementNode {
        try skipMarkup()
        guard at("<") else { throw fail("expected an element") }
        let root = try element(depth: 0)
        try skipMarkup()
        guard index == bytes.count else { throw fail("text after the root element") }
        return root
    }

    private mutating func name() throws(XMLSyntaxError) -> String {
        let start = index
        while index < bytes.count, !Self.isSpace(bytes[index]), !at("/"), !at(">"), !at("=") { index += 1 }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Deeper elements are refused: each level is a call, and no dataset file nests past a few.
    static let maximumDepth = 64

    private mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLElementNode {
        guard depth < Self.maximumDepth else { throw fail("elements nested more than \(Self.maximumDepth) deep") }
        index += 1
        var node = XMLElementNode(name: try name())
        while true {
            skipSpace()
            guard index < bytes.count else { throw fail("<\(node.name)> is not closed") }
            if starts(with: "/>") {
                index += 2
                return node
            }
            if at(">") {
                index += 1
                break
            }
            let key = try name()
            skipSpace()
            guard at("=") else { throw fail("attribute \(key) has no value") }
            index += 1
            skipSpace()
            guard at("\"") || at("'") else { throw fail("attribute \(key)'s value is not quoted") }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote { index += 1 }
            guard index < bytes.count else { throw fail("attribute \(key)'s value is not closed") }
            node.attributes[key] = try decode(String(decoding: bytes[start..<index], as: UTF8.self))
            index += 1
        }
        var text = ""
        var raw: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("<\(node.name)> is not closed") }
            if starts(with: "</") {
                index += 2
                let closing = try name()
                guard closing == node.name else { throw fail("</\(closing)> closes <\(node.name)>") }
                skipSpace()
                guard at(">") else { throw fail("</\(closing) is not closed") }
                index += 1
                node.text = try text + decode(String(decoding: raw, as: UTF8.self))
                return node
            }
            if starts(with: "<![CDATA[") {
                // Taken as it is: its & and < are text.
                text += try decode(String(decoding: raw, as: UTF8.self))
                raw = []
                index += 9
                let start = index
                while index < bytes.count, !starts(with: "]]>") { index += 1 }
                guard index < bytes.count else { throw fail("a CDATA section is not closed") }
                text += String(decoding: bytes[start..<index], as: UTF8.self)
                index += 3
            } else if starts(with: "<!--") {
                try skip(past: "-->")
            } else if starts(with: "<?") {
                try skip(past: "?>")
            } else if at("<") {
                node.children.append(try element(depth: depth + 1))
            } else {
                raw.append(bytes[index])
                index += 1
            }
        }
    }

    private func decode(_ raw: String) throws(XMLSyntaxError) -> String {
        guard raw.contains("&") else { return raw }
        var out = ""
        var rest = Substring(raw)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { throw fail("an & starts no entity") }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                guard let number, let scalar = Unicode.Scalar(number) else { throw fail("unknown entity &\(entity);") }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
