#!/usr/bin/python3
"""make test's last lines: what it skipped, and why, read from the logs of its steps (Swift Testing's
"Test NAME skipped: "REASON"" lines, and the SKIPPED lines of the checks and tests that say why they
compared nothing). Prints "nothing was skipped" when nothing was; always exits 0.

    skipped.py LOG...
"""
import collections
import os
import re
import sys

SWIFT = re.compile(r'\b(Test|Suite) (.+?) skipped(?:: "(.*)")?\s*$')


def main():
    reasons = collections.OrderedDict()
    # A log is missing when its step never ran (a failed build); what it would have skipped is unknown.
    for path in filter(os.path.exists, sys.argv[1:]):
        with open(path, errors="replace") as log:
            for line in log:
                line = line.strip()
                if match := SWIFT.search(line):
                    kind, name, reason = match.groups()
                    reasons.setdefault(reason or "no reason given", []).append(f"{kind.lower()} {name}")
                elif "SKIPPED:" in line:
                    reasons.setdefault(line.split("SKIPPED:", 1)[1].strip(), []).append(line.split("SKIPPED:", 1)[0].strip(" :") or "a test")
    if not reasons:
        print("make test: nothing was skipped")
        return 0
    print(f"make test: skipped {sum(map(len, reasons.values()))} (the rest ran):")
    for reason, what in reasons.items():
        shown = ", ".join(what[:3]) + (f" and {len(what) - 3} more" if len(what) > 3 else "")
        print(f"  - {reason}: {shown}")
    if any("../shared" in reason for reason in reasons):
        print("  ../shared is the project's data beside its clone (photographs, WIDER FACE, LFW), read in place; "
              "a clone without it skips the tests that need it.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
