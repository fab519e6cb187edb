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
        var reader = Reader(characters: Array(text.unicodeScalars))
        return try reader.document()
    }
}

struct XMLSyntaxError: Error {
    var line: Int
    var reason: String
}

private struct Reader {
    let characters: [Unicode.Scalar]
    var index = 0

    init(characters: [Unicode.Scalar]) {
        self.characters = characters
    }

    private var line: Int { characters[..<min(index, characters.count)].reduce(1) { $1 == "\n" ? $0 + 1 : $0 } }

    private func fail(_ reason: String) -> XMLSyntaxError { XMLSyntaxError(line: line, reason: reason) }

    private func starts(with prefix: String) -> Bool {
        let scalars = Array(prefix.unicodeScalars)
        return index + scalars.count <= characters.count && Array(characters[index..<index + scalars.count]) == scalars
    }

    private mutating func skip(past end: String) throws(XMLSyntaxError) {
        while index < characters.count, !starts(with: end) { index += 1 }
        guard index < characters.count else { throw fail("\(end) is missing") }
        index += end.unicodeScalars.count
    }

    private mutating func skipSpace() {
        while index < characters.count, characters[index].properties.isWhitespace { index += 1 }
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
        guard starts(with: "<") else { throw fail("expected an element") }
        let root = try element(depth: 0)
        try skipMarkup()
        guard index == characters.count else { throw fail("text after the root element") }
        return root
    }

    private mutating func name() throws(XMLSyntaxError) -> String {
        var out = ""
        while index < characters.count, !characters[index].properties.isWhitespace, !"/>=".unicodeScalars.contains(characters[index]) {
            out.unicodeScalars.append(characters[index])
            index += 1
        }
        guard !out.isEmpty else { throw fail("expected a name") }
        return out
    }

    /// Deeper elements are refused: each level is a call, and no dataset file nests past a few.
    static let maximumDepth = 64

    private mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLElementNode {
        guard depth < Self.maximumDepth else { throw fail("elements nested more than \(Self.maximumDepth) deep") }
        index += 1
        var node = XMLElementNode(name: try name())
        while true {
            skipSpace()
            guard index < characters.count else { throw fail("<\(node.name)> is not closed") }
            if starts(with: "/>") {
                index += 2
                return node
            }
            if characters[index] == ">" {
                index += 1
                break
            }
            let key = try name()
            skipSpace()
            guard index < characters.count, characters[index] == "=" else { throw fail("attribute \(key) has no value") }
            index += 1
            skipSpace()
            guard index < characters.count, characters[index] == "\"" || characters[index] == "'" else {
                throw fail("attribute \(key)'s value is not quoted")
            }
            let quote = characters[index]
            index += 1
            var raw = ""
            while index < characters.count, characters[index] != quote {
                raw.unicodeScalars.append(characters[index])
                index += 1
            }
            guard index < characters.count else { throw fail("attribute \(key)'s value is not closed") }
            index += 1
            node.attributes[key] = try decode(raw)
        }
        var text = ""
        var raw = ""
        while true {
            guard index < characters.count else { throw fail("<\(node.name)> is not closed") }
            if starts(with: "</") {
                index += 2
                let closing = try name()
                guard closing == node.name else { throw fail("</\(closing)> closes <\(node.name)>") }
                skipSpace()
                guard index < characters.count, characters[index] == ">" else { throw fail("</\(closing) is not closed") }
                index += 1
                node.text = try text + decode(raw)
                return node
            }
            if starts(with: "<![CDATA[") {
                // Taken as it is: its & and < are text.
                text += try decode(raw)
                raw = ""
                index += 9
                while index < characters.count, !starts(with: "]]>") {
                    text.unicodeScalars.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { throw fail("a CDATA section is not closed") }
                index += 3
            } else if starts(with: "<!--") {
                try skip(past: "-->")
            } else if starts(with: "<?") {
                try skip(past: "?>")
            } else if characters[index] == "<" {
                node.children.append(try element(depth: depth + 1))
            } else {
                raw.unicodeScalars.append(characters[index])
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
