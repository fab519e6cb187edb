/// facecam's folder among the user's base directories (the XDG Base Directory specification): `$VARIABLE/facecam`
/// when the variable names an absolute path (a relative one is to be ignored), else `$HOME/FALLBACK/facecam`; nil
/// when neither names one.
package func userFolder(_ variable: String, else fallback: String, environment: [String: String]) -> String? {
    if let base = environment[variable], base.hasPrefix("/") { return base + "/facecam" }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return home + "/" + fallback + "/facecam"
}

/// `userFolder`'s `file`, as help says where it is: "$XDG_DATA_HOME/facecam/FILE, else ~/.local/share/facecam/FILE".
package func userFolderDescription(_ variable: String, else fallback: String, file: String) -> String {
    "$\(variable)/facecam/\(file), else ~/\(fallback)/facecam/\(file)"
}
