#!/usr/bin/env bash
# The Python environments the tests use, each locked in this folder: NAME.txt pins every package NAME.in asks for, and
# what they depend on, with the sha256s of their files.
#   make.sh DIR:NAME ...   makes each DIR from NAME.txt, side by side, or brings it back to its lock
#   make.sh --lock         remakes each NAME.txt from NAME.in (for Debian 12's Python, 3.11, on x86_64)
# uv installs them, in seconds where pip took a minute of CPU, and without byte-compiling (Python compiles what a test
# imports); uv itself comes from PyPI by pip, pinned by its sha256 (uv.txt), into .build/uv.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/../../.build/uv
uv=$tool/bin/uv
export UV_PYTHON_DOWNLOADS=never
wanted=$(sed -n 's/^uv==\([^ ]*\).*/\1/p' "$here/uv.txt")
# One make.sh at a time installs uv (CI's lanes may start theirs at once).
mkdir -p "$(dirname "$tool")" && exec 9> "$tool-install.lock" && flock 9 || exit 1
if [ "$("$uv" --version 2> /dev/null)" != "uv $wanted" ]; then
    { test -x "$tool/bin/pip" || /usr/bin/python3 -m venv "$tool"; } \
        && "$tool/bin/pip" install --quiet --no-compile --require-hashes -r "$here/uv.txt" || exit 1
fi
exec 9>&-

if [ "${1:-}" = --lock ]; then
    for input in "$here"/*.in; do
        "$uv" pip compile --quiet --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_36 \
            --custom-compile-command "bash Tests/Environments/make.sh --lock" "$input" -o "${input%.in}.txt" || exit 1
    done
    exit 0
fi

made() {  # DIR NAME
    { test -x "$1/bin/python" || "$uv" venv --quiet --python /usr/bin/python3 "$1"; } \
        && "$uv" pip sync --quiet --python "$1/bin/python" --require-hashes "$here/$2.txt"
}
[ $# -gt 0 ] || { echo "usage: make.sh DIR:NAME ... | --lock" >&2; exit 64; }
pids=()
for target in "$@"; do
    made "${target%%:*}" "${target#*:}" & pids+=($!)
done
# Commands started with & in a script ignore SIGINT: an interrupted make stops them here.
trap 'kill "${pids[@]}" 2> /dev/null; exit 130' INT TERM HUP
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
