/// facecam's version: the one place it is written (`--version`, `--help`).
let facecamVersion = "0.4.0"
