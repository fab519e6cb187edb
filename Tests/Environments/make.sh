#!/usr/bin/env bash
# The Python environments the tests use, each locked in this folder: NAME.txt pins every package NAME.in asks for, and
# what they depend on, with the sha256s of their files.
#   make.sh DIR:NAME ...   makes each DIR from NAME.txt, side by side, or brings it back to its lock
#   make.sh --lock         remakes each NAME.txt from NAME.in (for Debian 12's Python, 3.11, on x86_64), keeping the
#                          pins a NAME.txt already has: delete it first to take the newest versions
# uv installs them, in seconds where pip took a minute of CPU, and without byte-compiling (Python compiles what a test
# imports); uv itself comes from PyPI by pip, pinned by its sha256 (uv.txt), into .build/uv.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/../../.build/uv
uv=$tool/bin/uv
# uv takes no settings from the user's uv.toml or environment files, and no Python but Debian's.
export UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never
if [ "${1:-}" != --lock ]; then
    [ $# -gt 0 ] || { echo "usage: make.sh DIR:NAME ... | --lock" >&2; exit 64; }
    for target in "$@"; do
        [ -f "$here/${target#*:}.txt" ] && [ "${target%%:*}" != "$target" ] \
            || { echo "make.sh: $target is not DIR:NAME with a lock $here/NAME.txt" >&2; exit 64; }
    done
fi

wanted=$(sed -n 's/^uv==\([^ ]*\).*/\1/p' "$here/uv.txt")
# One make.sh at a time installs uv (CI's lanes may start theirs at once).
mkdir -p "$(dirname "$tool")" && exec 9> "$tool-install.lock" && flock 9 || exit 1
case "$("$uv" --version 2> /dev/null)" in
"uv $wanted "*) ;;
*)  { test -x "$tool/bin/pip" || /usr/bin/python3 -m venv --clear "$tool"; } \
        && "$tool/bin/pip" install --quiet --disable-pip-version-check --no-compile --require-hashes -r "$here/uv.txt" \
        || { echo "make.sh: uv $wanted could not be installed from PyPI into $tool (pip's lines above)" >&2; exit 1; } ;;
esac
exec 9>&-

if [ "${1:-}" = --lock ]; then
    for input in "$here"/*.in; do
        "$uv" pip compile --quiet --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_36 \
            --custom-compile-command "bash Tests/Environments/make.sh --lock" "$input" -o "${input%.in}.txt" || exit 1
    done
    exit 0
fi

# DIR from NAME.txt, one make.sh at a time on each DIR. A DIR that uv did not make (pip made them before), or that lost
# its Python (an interrupted start), is made anew: uv checks the sha256s of what it installs, not of what it finds.
made() {  # DIR NAME
    exec 8> "$1.lock" && flock 8 || exit 1
    if ! { grep -qs '^uv = ' "$1/pyvenv.cfg" && test -x "$1/bin/python"; }; then
        "$uv" venv --quiet --clear --python /usr/bin/python3 "$1" || exit 1
    fi
    exec "$uv" pip sync --quiet --python "$1/bin/python" --require-hashes "$here/$2.txt"
}
pids=()
for target in "$@"; do
    made "${target%%:*}" "${target#*:}" & pids+=($!)
done
# Commands started with & in a script ignore SIGINT: an interrupted make stops them here.
trap 'kill "${pids[@]}" 2> /dev/null; exit 130' INT TERM HUP
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
