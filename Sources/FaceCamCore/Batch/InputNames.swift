/// A name for each input of a batch, for the files written about it (results under --output-dir,
/// annotated frames): its `VideoInput.nameStem` (a file's name without the extension), a clash
/// getting `-2`, `-3`, ...
///
/// Names are handed out over the distinct inputs sorted by their bytes, so every shard of a
/// batch, whatever the order of its arguments, gives an input the same name, and tasks writing
/// into one shared directory never overwrite each other's files.
public struct InputNames: Sendable {
    private let names: [FilePath: String]

    /// `inputs` is the whole batch, not one shard's part.
    public init(_ inputs: [FilePath]) {
        var files = FileNames()
        var names: [FilePath: String] = [:]
        for input in FilePath.distinctInByteOrder(inputs) {
            names[input] = files.claim(VideoInput(input).nameStem)
        }
        self.names = names
    }

    /// `input`'s name; `input` must be one of the batch's.
    public subscript(input: FilePath) -> String {
        guard let name = names[input] else { preconditionFailure("\(input) is not an input of this batch") }
        return name
    }
}
