/// facecam's version: the one place it is written (`--version`, `--help`).
let facecamVersion = "0.3.0"
