#!/usr/bin/python3
"""make test's last lines: what it skipped, one line each, grouped by why, read from the logs of its steps.

It reads every form Swift Testing prints for a test or suite that did not run (swift-testing's
Event.HumanReadableOutputRecorder):
    Test NAME skipped: "REASON"                  .enabled(if:) or .disabled() with a comment
    Test NAME skipped.                           the same without one
    Suite NAME skipped: "REASON" / skipped.      a whole suite
    Test NAME was cancelled after S seconds: "REASON" / seconds.   Test.cancel() (Swift 6.3)
and the "WHAT: SKIPPED: REASON" lines of the checks (Tests/checks.sh) that compared nothing.
A Swift log that started a run and has no closing "Test run with ..." line stopped early: the summary says so.
When ../shared (the project's data beside its clone) is absent, the summary says so, even if nothing ran.
Always exits 0, but for --self-test.

    skipped.py [--stopped TEXT]... LOG...   TEXT: a step that stopped early (a failed build), said as is
    skipped.py --self-test                   checks itself on made-up log lines
"""
import collections
import os
import re
import sys
import tempfile

# The symbol Swift Testing puts first (and any colour) is dropped before matching.
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LEAD = r"^\s*(?:[^\w\s\"]+\s+)?(?P<kind>Test|Suite) (?P<name>.+?) "
# A multi-line comment prints its first line only here: its closing quote is then on a later line.
SKIPPED = re.compile(LEAD + r'skipped(?:: "(?P<reason>.*?)"?|\.)$')
CANCELLED = re.compile(LEAD + r'was cancelled after [\d.]+ seconds?(?: with [^:"]*?)?(?:: "(?P<reason>.*?)"?|\.)$')
RUN_STARTED = re.compile(r"^\W*Test run started\.$")
RUN_ENDED = re.compile(r"^\W*Test run with \d+ tests? .*(?:passed|failed) after ")
NO_REASON = "no reason given"
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")


def read(lines, skips, log="log"):
    """Adds (reason, what) to skips for each skip in lines; returns a note when a Swift test run in them did not end."""
    started = ended = False
    for line in lines:
        line = ANSI.sub("", line).strip()
        if match := SKIPPED.search(line):
            skips.append((match["reason"] or NO_REASON, f"{match['kind'].lower()} {match['name']}", match["kind"].lower()))
        elif match := CANCELLED.search(line):
            skips.append((match["reason"] or NO_REASON, f"{match['kind'].lower()} {match['name']} (cancelled)", match["kind"].lower()))
        elif "SKIPPED:" in line:
            what, reason = line.split("SKIPPED:", 1)
            skips.append((reason.strip() or NO_REASON, f"check {what.strip(' :') or os.path.basename(log)}", "check"))
        elif RUN_STARTED.search(line):
            started = True
        elif RUN_ENDED.search(line):
            ended = True
    if started and not ended:
        return f"the Swift tests of {os.path.basename(log)} stopped before their end: what they would have skipped after that is unknown"
    return None


def summary(skips, stopped, ran=True, shared=SHARED):
    """make test's last lines, from read()'s skips, the notes of steps that stopped early, and whether any log was read."""
    lines = []
    if skips:
        kinds = collections.Counter(kind for _, _, kind in skips)
        counted = ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(kinds.items(), key=lambda k: ("test", "suite", "check").index(k[0])))
        lines.append(f"make test: skipped {len(skips)} ({counted}){'' if stopped else '; the rest ran'}:")
        reasons = collections.OrderedDict()
        for reason, what, _ in skips:
            reasons.setdefault(reason, []).append(what)
        for reason, whats in reasons.items():
            lines.append(f"  {reason}:")
            lines += [f"    {what}" for what in whats]
    elif ran:
        lines.append("make test: nothing was skipped" + (" in what ran" if stopped else ""))
    lines += [f"make test: {note}" for note in stopped]
    if not os.path.isdir(shared):
        lines.append("make test: ../shared is absent. It is the project's data beside its root (photographs, video clips, "
                     "WIDER FACE, LFW), which the maintainers' machines and CI have; an ordinary clone lacks it, and the tests "
                     "that read it skip.")
    elif any("../shared" in reason for reason, _, _ in skips):
        lines.append("make test: ../shared is the project's data beside its root, read in place; the tests above skip "
                     "where a part of it is missing.")
    return lines


def main(args):
    stopped, logs = [], []
    while args:
        arg = args.pop(0)
        if arg == "--stopped" and args:
            stopped.append(args.pop(0))
        else:
            logs.append(arg)
    skips, ran = [], False
    for path in logs:
        # A log is missing when its step never ran; what it would have skipped is unknown.
        if not os.path.exists(path):
            stopped.append(f"{os.path.basename(path)} was not written: its step did not run")
            continue
        ran = True
        with open(path, errors="replace") as log:
            if note := read(log, skips, path):
                stopped.append(note)
    print("\n".join(summary(skips, stopped, ran)))
    return 0


def self_test():
    """Each form, on made-up lines, and lines that must not count."""
    swift = [
        '\x1b[90m\u25c7\x1b[0m Test run started.',
        '\u279c Test crowdRecall() skipped: "../shared/data/crowd is absent"',
        '\u279c Test "YuNet finds faces in the crowd" skipped: "../shared/data/crowd is absent"',
        '\u279c Suite CrowdTests skipped: "../shared/data/crowd is absent"',
        '\x1b[93m\u279c\x1b[0m Test notYet() skipped.',
        '\u279c Suite LaterTests skipped.',
        '\u279c Test mqttTLS() skipped: "openssl is absent, and the comment',
        'runs on a second line"',
        '\u279c Test cancelledLate() was cancelled after 0.012 seconds: "no camera"',
        '\u279c Test cancelledQuietly() was cancelled after 1.5 seconds.',
        '\u2714 Test passing() passed after 0.001 seconds.',
        '\u2718 Test failing() failed after 0.001 seconds with 1 issue.',
        'slurm-test: submitted again with --resume, the 3 tasks skipped all 5 videos and rewrote nothing',
        'facecam_preview_parts_skipped_total 0',
        '\u2714 Test run with 9 tests in 3 suites passed after 1.000 seconds.',
    ]
    checks = ["golden pictures and videos: SKIPPED: 3 not compared: no digests are recorded for this CPU",
              "outputs.py: SKIPPED: no outputs are recorded for this CPU (avx2)", "ok: everything else"]
    skips = []
    assert read(swift, skips, "swift.log") is None
    assert read(checks, skips, "checks.log") is None
    want = [("../shared/data/crowd is absent", "test crowdRecall()"),
            ("../shared/data/crowd is absent", 'test "YuNet finds faces in the crowd"'),
            ("../shared/data/crowd is absent", "suite CrowdTests"),
            (NO_REASON, "test notYet()"), (NO_REASON, "suite LaterTests"),
            ("openssl is absent, and the comment", "test mqttTLS()"),
            ("no camera", "test cancelledLate() (cancelled)"), (NO_REASON, "test cancelledQuietly() (cancelled)"),
            ("3 not compared: no digests are recorded for this CPU", "check golden pictures and videos"),
            ("no outputs are recorded for this CPU (avx2)", "check outputs.py")]
    got = [(reason, what) for reason, what, _ in skips]
    assert got == want, f"skipped.py: read {got}, not {want}"
    # A run that stopped (no closing line) is said to have stopped.
    assert "stopped before their end" in read(swift[:3], [], "waiting.log")
    with tempfile.TemporaryDirectory() as here:
        text = "\n".join(summary(skips, [], shared=os.path.join(here, "shared")))
        assert text.startswith("make test: skipped 10 (6 tests, 2 suites, 2 checks); the rest ran:\n"), text
        assert "\n  ../shared/data/crowd is absent:\n    test crowdRecall()\n" in text, text
        assert "\n  no reason given:\n    test notYet()\n    suite LaterTests\n" in text, text
        assert "../shared is absent. It is the project's data beside its root" in text, text
        text = "\n".join(summary([], ["the build failed, so no test ran"], ran=False, shared=os.path.join(here, "shared")))
        assert text.splitlines()[0] == "make test: the build failed, so no test ran", text
        assert "../shared is absent" in text, text
        assert "../shared" not in "\n".join(summary([], [], shared=here))
    print("skipped.py: self-test passed (each skip form, a stopped run, ../shared absent)")
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main(sys.argv[1:]))
