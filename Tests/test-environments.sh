#!/usr/bin/env bash
# The Python environments the tests use, pinned: test-environments.sh EVAL LABELSTUDIO DLIB (their folders).
# Each is made by one pip, which keeps one core busy: the three are made side by side, and without byte-compiling
# what they install (Python compiles what a test imports). One is (re)made when a pinned version is missing from it.
set -u
venv() {
    local dir=$1
    shift
    test -x "$dir/bin/python" || /usr/bin/python3 -m venv "$dir" || return 1
    "$dir/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(any(m.version(n) != v for n, v in
        (a.split("==") for a in sys.argv[1:])))' "$@" 2> /dev/null || "$dir/bin/pip" install --quiet --no-compile "$@"
}
venv "${1:?usage: test-environments.sh EVAL LABELSTUDIO DLIB}" pycocotools==2.0.11 datumaro==1.13.12 & eval=$!
venv "${2:?}" label-studio-sdk==2.1.2 & labelstudio=$!
venv "${3:?}" dlib-bin==20.0.1 numpy==2.4.6 & dlib=$!
# Commands started with & in a script ignore SIGINT: an interrupted make stops them here.
trap 'kill $eval $labelstudio $dlib 2> /dev/null; exit 130' INT TERM HUP
status=0
for made in $eval $labelstudio $dlib; do wait $made || status=1; done
exit $status
