#!/bin/bash
# make test-checks (checks.sh FACECAM): the checks of the built binary that are no Swift tests, a process at a
# time: OpenCV's own detections against the fixtures' expectations, the WIDER evaluation's self-test, the docs
# (their examples run, options.md against the parser) and the golden outputs. make test runs it beside swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
facecam=${1:?usage: checks.sh FACECAM}
python=/usr/bin/python3
$python Tests/Reference/opencv_faces.py check Fixtures
$python Tests/Reference/wider_eval.py self-test
$python Tests/Docs/check_docs.py --facecam "$facecam"
$python Tests/Docs/options.py check --facecam "$facecam"
$python Tests/Golden/outputs.py self-test
$python Tests/Golden/outputs.py check --facecam "$facecam"
