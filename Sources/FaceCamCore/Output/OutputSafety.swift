/// Refuses outputs that would overwrite inputs: checked before anything is
/// opened for writing, since opening truncates.
public enum OutputSafety {
    /// Why writing would harm an input, as one line, or nil. `files` are output
    /// files (option, path); `directories` are output directories whose files
    /// are named after inputs (`STEM.jpg`), so one that holds inputs could
    /// overwrite them. Paths that do not exist yet harm nothing.
    public static func conflict(
        files: [(option: String, path: String)], directories: [(option: String, path: String)], inputs: [FilePath]
    ) -> String? {
        let named = inputs.compactMap { input in (try? fileStatus(input)).map { (input, $0) } }
        for (option, path) in files {
            guard let output = try? fileStatus(FilePath(path)) else { continue }
            if let (input, _) = named.first(where: { $0.1.identity == output.identity }) {
                return "\(option) \(path) is also an input (\(input)): it would be overwritten before it is read; "
                    + "choose another file"
            }
        }
        for (option, path) in directories {
            guard let output = try? fileStatus(FilePath(path)), output.kind == .directory else { continue }
            for (input, status) in named {
                let holder = status.kind == .directory ? status.identity : (try? fileStatus(input.parent))?.identity
                if holder == output.identity {
                    return "\(option) \(path) holds the input \(input): files written there could overwrite inputs; "
                        + "choose another directory"
                }
            }
        }
        return nil
    }
}
