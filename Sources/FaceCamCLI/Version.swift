/// facecam's version: the one place it is written (`--version`, `--help`).
let facecamVersion = "0.4.0"

/// The last paragraph of each command's help: where its guide and its manual page are.
func guidePointer(_ guide: String, manual: String) -> String {
    "\n\nGuide: \(guide) in facecam's source. Manual: man \(manual) (after make install)."
}
