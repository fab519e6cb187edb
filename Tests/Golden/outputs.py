#!/usr/bin/env python3
"""What facecam's commands write on Fixtures/, kept as sha256 digests, so that a change meant to keep
behaviour (a refactor) is shown to keep it byte for byte.

  outputs.py record --facecam BIN   runs the commands and writes Tests/Golden/outputs.sha256 (and text/)
  outputs.py check --facecam BIN    runs them again and names every output whose bytes differ
  outputs.py self-test              checks the tolerance's comparison on cases worked by hand

Each command's standard output, and every file it writes, is one entry. The commands cover every
--format, annotated images and video, crops, redacted photographs and video, eval's tables and map.
Runs use --engine opencv for the networks and OpenCV's own pool of one thread, which keeps OpenVINO's
kernels (chosen by CPU) and thread timing out of the digests. OpenCV still chooses its SIMD code by
CPU, and the networks' last digits move with it, so the digests are kept per kind of CPU (its
architecture and SIMD extensions in /proc/cpuinfo, one section each): `record` writes this CPU's section, and keeps the others
when this CPU's digests were already as recorded (drops them when its outputs changed: theirs did too).
`record` also keeps a copy of every text output (results, datasets, tables: Tests/Golden/text/), so that
`check` on a CPU with no section compares those within a tolerance: the same text, each number within
TOLERANCE_ABSOLUTE plus TOLERANCE_RELATIVE of its size (the networks' last digits; a face more or
less, or a box a pixel off, fails), a head pose's angles and quality within TOLERANCE_BY_FIELD.
`record` on a CPU with no section makes that comparison too, and names what lies beyond the tolerance.
Pictures and videos are compared only on a CPU with a section; the check says how many it left out.
OpenVINO's agreement with OpenCV is checked by the tests and make bench, within the stated tolerances.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MANIFEST = os.path.join(HERE, "outputs.sha256")
TEXT = os.path.join(HERE, "text")
# Scores and coordinates differ between kinds of CPU in their last digits (1e-5 and below): far inside these.
TOLERANCE_ABSOLUTE = 0.01
TOLERANCE_RELATIVE = 1e-4
# The head pose refines in rounds until the roll left is under 0.3 degrees (PoseEstimation.settledRoll): a last digit
# can take one round more or less, which moves a turned face's angles by about a degree, and its quality (which
# weighs how squarely it faces) with them. JSON fields by name: their tolerance instead of the one above.
POSE_DEGREES = 2.0
# Quality (a fourth root of cos(yaw) squared, among others) moves by quality x tan(yaw) / 2 x the yaw's change in
# radians: 0.019 for 2 degrees at a yaw of 70 and a quality of 0.4.
POSE_QUALITY = 0.03
TOLERANCE_BY_FIELD = {b'"roll":': POSE_DEGREES, b'"yaw":': POSE_DEGREES, b'"pitch":': POSE_DEGREES, b'"quality":': POSE_QUALITY}
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# Relative to ROOT, so that the paths written into the outputs are the same on every machine.
WORK = ".build/golden"

IMAGES = "Fixtures/images"
CLIP = "Fixtures/video/pan-zoom.avi"
ENGINE = ["--engine", "opencv", "--threads", "1"]
# redact as it was when the digests were recorded: its defaults gained a third scale, the size check and the lookahead
# since, changes of behaviour the tests check by what it masks.
REDACT_AS_RECORDED = ["--scales", "1,2", "--no-size-check", "--no-lookahead"]


def commands():
    """(name, arguments); `{out}` stands for the command's own output folder."""
    runs = []
    for detector in (["--detector", "yunet"], ["--detector", "centerface"], ["--detector", "centerface", "--scales", "1,2", "--focus"]):
        name = "detect-" + "-".join(a.strip("-").replace(",", "") for a in detector[1:])
        runs.append((name, ["detect", *detector, *ENGINE, IMAGES]))
    runs.append(("detect-haar", ["detect", "--detector", "haar", IMAGES]))
    for format in ("csv", "text", "coco", "cvat", "labelstudio"):
        runs.append((f"detect-{format}", ["detect", *ENGINE, "--format", format, IMAGES]))
    for format in ("yolo", "voc", "wider"):
        runs.append((f"detect-{format}", ["detect", *ENGINE, "--format", format, "--output-dir", "{out}/dataset", IMAGES]))
    runs.append(("detect-pose-quality", ["detect", *ENGINE, "--pose", "--quality", "--max-faces", "1", "--by", "quality", IMAGES]))
    runs.append(("detect-annotate-crops", ["detect", *ENGINE, "--annotate", "{out}/annotated", "--crops", "{out}/crops",
                                          "--crop-style", "aligned", IMAGES]))
    runs.append(("video", ["video", *ENGINE, "--jobs", "1", CLIP]))
    runs.append(("video-mot", ["video", *ENGINE, "--jobs", "1", "--format", "mot", CLIP]))
    runs.append(("video-events", ["video", *ENGINE, "--jobs", "1", "--events", "--annotate-video", "{out}/annotated.avi", CLIP]))
    runs.append(("video-fast-haar", ["video", "--detector", "haar", "--fast", CLIP]))
    runs.append(("redact-images", ["redact", *ENGINE, *REDACT_AS_RECORDED, "--output-dir", "{out}/redacted", IMAGES]))
    runs.append(("redact-video", ["redact", *ENGINE, *REDACT_AS_RECORDED, "--jobs", "1", "-o", "{out}/redacted.mkv", CLIP]))
    runs.append(("redact-pixelate-box", ["redact", *ENGINE, *REDACT_AS_RECORDED, "--mode", "pixelate", "--shape", "box", "-o", "{out}/two.png",
                                        "Fixtures/images/two-faces.jpg"]))
    runs.append(("eval-files", ["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "Fixtures/evaluation/run.json"]))
    runs.append(("eval-json", ["eval", "--format", "json", "--ground-truth", "Fixtures/evaluation/truth.json",
                               "Fixtures/evaluation/run.json"]))
    runs.append(("map", ["map", "--frame", "1920x1080", "--rect", "100,200,300,400", "--orientation", "right", "--mirror",
                         "--preview", "640x360", "--gravity", "fill"]))
    return runs


def content(path):
    """A file's bytes, the checkout's own path in them (YOLO's data.yaml names its folder) written as
    <root>; for Matroska, MP4 and QuickTime files, each decoded frame's and audio packet's MD5
    (ffmpeg's framemd5), since their muxers write a random identifier into every file."""
    if os.path.splitext(path)[1] in (".mkv", ".mp4", ".mov"):
        return subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0", "-f", "framemd5", "-"],
                              capture_output=True, check=True).stdout
    with open(path, "rb") as handle:
        return handle.read().replace(ROOT.encode(), b"<root>")


def is_text(entry, data):
    """Standard output and the files of text formats, as written (no NUL, UTF-8)."""
    return (entry.endswith("/stdout") or os.path.splitext(entry)[1] in (".json", ".jsonl", ".csv", ".txt", ".xml", ".yaml")) \
        and b"\0" not in data and data.decode("utf-8", "replace").encode() == data


def within_tolerance(expected, actual):
    """None when `actual` is `expected` but for numbers within the tolerance; else where they part, in words."""
    expected_parts, actual_parts = NUMBER.split(expected), NUMBER.split(actual)
    expected_numbers, actual_numbers = NUMBER.findall(expected), NUMBER.findall(actual)
    if expected_parts != actual_parts or len(expected_numbers) != len(actual_numbers):
        return "its text differs, not only its numbers"
    for before, a, b in zip(expected_parts, expected_numbers, actual_numbers):
        x, y = float(a), float(b)
        field = next((t for f, t in TOLERANCE_BY_FIELD.items() if before.endswith(f)), None)
        if abs(x - y) > (field if field is not None else TOLERANCE_ABSOLUTE + TOLERANCE_RELATIVE * max(abs(x), abs(y))):
            return f"{a.decode()} became {b.decode()}"
    return None


def self_test():
    """The tolerance on hand-worked cases: numbers within it pass, a number beyond it, a face more, or other text fail."""
    same = b'{"faces":[{"box":[10,20,30.5,40],"score":0.912345}]}'
    cases = [
        (b'{"faces":[{"box":[10,20,30.5,40],"score":0.912349}]}', None),  # a score's 6th digit
        (b'{"faces":[{"box":[10.004,20,30.5,40],"score":0.912345}]}', None),  # 0.004 of a pixel
        (b'{"faces":[{"box":[10,20,30.5,40],"score":0.93}]}', "0.912345 became 0.93"),  # 0.018: beyond 0.01
        (b'{"faces":[{"box":[11,20,30.5,40],"score":0.912345}]}', "10 became 11"),  # a pixel
        (b'{"faces":[{"box":[10,20,30.5,40],"score":0.912345},{"box":[1,2,3,4],"score":0.5}]}', "its text differs, not only its numbers"),
        (b'{"faces":[{"box":[10,20,30.5,40],"score":-0.912345}]}', "0.912345 became -0.912345"),
        (b'{"face":[{"box":[10,20,30.5,40],"score":0.912345}]}', "its text differs, not only its numbers"),
    ]
    # A pose's angles within 2 degrees and its quality within 0.03; beyond, or the same change to a box, fail.
    posed = b'{"box":[10,20,30,40],"pose":{"roll":15.59,"yaw":65.39,"pitch":-5.09},"quality":0.468}'
    cases_posed = [
        (b'{"box":[10,20,30,40],"pose":{"roll":15.8,"yaw":64.46,"pitch":-4.88},"quality":0.476}', None),
        (b'{"box":[10,20,30,40],"pose":{"roll":15.59,"yaw":62.9,"pitch":-5.09},"quality":0.468}', "65.39 became 62.9"),
        (b'{"box":[10,20,30,40],"pose":{"roll":15.59,"yaw":65.39,"pitch":-5.09},"quality":0.505}', "0.468 became 0.505"),
        (b'{"box":[10,20,31,40],"pose":{"roll":15.59,"yaw":65.39,"pitch":-5.09},"quality":0.468}', "30 became 31"),
    ]
    # 10000 against 10001: 1 is within 0.01 + 1e-4 * 10001 (1.01); 10002 is not.
    big = b"frames 10000"
    failures = [f"{actual!r}: {within_tolerance(same, actual)!r}, not {expected!r}" for actual, expected in cases
                if within_tolerance(same, actual) != expected]
    failures += [f"{actual!r}: {within_tolerance(posed, actual)!r}, not {expected!r}" for actual, expected in cases_posed
                 if within_tolerance(posed, actual) != expected]
    if within_tolerance(big, b"frames 10001") is not None or within_tolerance(big, b"frames 10002") != "10000 became 10002":
        failures.append("the relative part of the tolerance")
    if failures:
        sys.exit("outputs.py self-test: " + "; ".join(failures))
    print(f"outputs.py self-test: {len(cases) + len(cases_posed) + 2} cases as worked by hand")


def run_all(facecam):
    """Runs every command; returns {entry: sha256} over their outputs, and {entry: bytes} of the text ones."""
    work = os.path.join(ROOT, WORK)
    shutil.rmtree(work, ignore_errors=True)
    digests, texts = {}, {}
    for name, arguments in commands():
        out = f"{WORK}/{name}"
        os.makedirs(os.path.join(ROOT, out))
        argv = [facecam] + [a.replace("{out}", out) for a in arguments]
        result = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=600)
        if result.returncode not in (0, 2):
            sys.exit(f"outputs.py: {' '.join(argv)} exited {result.returncode}: {result.stderr.decode(errors='replace')}")
        outputs = {f"{name}/stdout": result.stdout}
        for folder, _, files in os.walk(os.path.join(ROOT, out)):
            for file in files:
                path = os.path.join(folder, file)
                outputs[os.path.relpath(path, os.path.join(ROOT, WORK))] = content(path)
        for entry, data in outputs.items():
            digests[entry] = hashlib.sha256(data).hexdigest()
            if is_text(entry, data):
                texts[entry] = data
    return digests, texts


def text_problems(digests, texts, sections):
    """Where this CPU's outputs part from the text copies recorded on another, beyond the tolerance."""
    recorded = {}
    for folder, _, files in os.walk(TEXT):
        for file in files:
            path = os.path.join(folder, file)
            with open(path, "rb") as handle:
                recorded[os.path.relpath(path, TEXT)] = handle.read()
    entries = set(next(iter(sections.values()), {}))
    problems = [f"{WORK}/{e} is no longer written" for e in sorted(entries - set(digests))]
    problems += [f"{WORK}/{e} is new" for e in sorted(set(digests) - entries)]
    problems += [f"{WORK}/{e} is no longer text" for e in sorted(set(recorded) - set(texts)) if e in digests]
    for entry in sorted(set(recorded) & set(texts)):
        reason = within_tolerance(recorded[entry], texts[entry])
        if reason:
            problems.append(f"{WORK}/{entry}: {reason}")
    return problems, len(recorded)


def compare_texts(kind, digests, texts, sections):
    """`check` on a CPU with no section: the text outputs against the copies, within the tolerance."""
    problems, compared = text_problems(digests, texts, sections)
    for problem in problems:
        print(f"outputs.py: {problem}", file=sys.stderr)
    if problems:
        sys.exit(f"outputs.py: {len(problems)} outputs changed beyond the tolerance on this CPU ({kind}), compared with the "
                 f"text recorded on another: if the change is meant, record them again (Tests/Golden/outputs.py record)")
    print(f"outputs.py: {compared} text outputs are as recorded, within the tolerance (numbers within "
          f"{TOLERANCE_ABSOLUTE} + {TOLERANCE_RELATIVE:g} of their size, a head pose's angles within "
          f"{POSE_DEGREES:g} degrees and its quality within {POSE_QUALITY:g})")
    # Said as a skip, so that make test's last lines list it.
    print(f"golden pictures and videos: SKIPPED: {len(digests) - compared} not compared: no digests are recorded for this "
          f"CPU ({kind}), whose pictures may differ in a pixel's last bit; Tests/Golden/outputs.py record adds its section")


def cpu_kind():
    """This machine's kind of CPU as OpenCV's code choice sees it: the architecture and its SIMD
    extensions (the model name alone is too coarse: "Intel(R) Xeon(R) Processor" covers generations),
    shortened to a digest, with the model name after it for people."""
    with open("/proc/cpuinfo") as info:
        lines = info.read().splitlines()
    field = lambda name: next((line.split(":", 1)[1].strip() for line in lines if line.split(":", 1)[0].strip() == name), "")
    simd = sorted(f for f in field("flags").split() if f.startswith(("sse", "ssse", "avx", "fma", "f16c", "amx")))
    digest = hashlib.sha256(" ".join([os.uname().machine] + simd).encode()).hexdigest()[:12]
    return f"{os.uname().machine} {digest} ({field('model name') or 'unknown model'})"


def read_manifest():
    """{cpu kind: {entry: digest}} from the manifest's sections (`# cpu: KIND`, then `DIGEST  ENTRY` lines);
    empty when there is no manifest yet."""
    sections, current = {}, None
    if not os.path.exists(MANIFEST):
        return sections
    with open(MANIFEST) as manifest:
        for number, line in enumerate(manifest, 1):
            line = line.rstrip("\n")
            if line.startswith("# cpu: "):
                current = sections.setdefault(line[len("# cpu: "):], {})
            elif line:
                if current is None:
                    sys.exit(f"outputs.py: {MANIFEST}:{number}: a digest before any '# cpu:' line: record the outputs again")
                digest, entry = line.split("  ", 1)
                current[entry] = digest
    return sections


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["record", "check", "self-test"])
    parser.add_argument("--facecam")
    args = parser.parse_args()
    if args.action == "self-test":
        return self_test()
    if not args.facecam:
        parser.error("record and check need --facecam BIN")
    facecam = os.path.abspath(args.facecam)
    sections, kind = read_manifest(), cpu_kind()
    if args.action == "check" and kind not in sections and not os.path.isdir(TEXT):
        print(f"outputs.py: SKIPPED: no outputs are recorded for this CPU ({kind}; recorded: {', '.join(sorted(sections))}): "
              f"nothing compared. Before a refactor, record them on a commit known good (Tests/Golden/outputs.py record)")
        return
    digests, texts = run_all(facecam)
    if args.action == "check" and kind not in sections:
        return compare_texts(kind, digests, texts, sections)
    if args.action == "record":
        if kind not in sections and os.path.isdir(TEXT):
            # The CPU itself may move a number beyond the tolerance (a pose round more): said, and the others are kept.
            for problem in text_problems(digests, texts, sections)[0]:
                print(f"outputs.py: warning: beyond the tolerance of the text recorded on another CPU: {problem}", file=sys.stderr)
        shutil.rmtree(TEXT, ignore_errors=True)
        for entry, data in texts.items():
            os.makedirs(os.path.dirname(os.path.join(TEXT, entry)), exist_ok=True)
            with open(os.path.join(TEXT, entry), "wb") as handle:
                handle.write(data)
        if kind in sections and sections[kind] != digests:
            # Outputs meant to change on this CPU have changed on the others too: their sections are stale.
            for other in sorted(set(sections) - {kind}):
                print(f"outputs.py: dropped the section for {other}, whose outputs this change alters too: record it there")
            sections = {}
        sections[kind] = digests
        with open(MANIFEST, "w") as manifest:
            for name in sorted(sections):
                manifest.write(f"# cpu: {name}\n")
                for entry in sorted(sections[name]):
                    manifest.write(f"{sections[name][entry]}  {entry}\n")
        print(f"outputs.py: recorded {len(digests)} outputs for {kind} in {os.path.relpath(MANIFEST, ROOT)}")
        return
    expected = sections[kind]
    differing = sorted(e for e in expected if e in digests and digests[e] != expected[e])
    missing = sorted(set(expected) - set(digests))
    added = sorted(set(digests) - set(expected))
    for label, entries in (("differs", differing), ("is no longer written", missing), ("is new", added)):
        for entry in entries:
            print(f"outputs.py: {WORK}/{entry} {label}", file=sys.stderr)
    if differing or missing or added:
        sys.exit(f"outputs.py: {len(differing) + len(missing) + len(added)} of {len(expected)} outputs changed: "
                 f"if the change is meant, record them again (Tests/Golden/outputs.py record) and say why in the commit")
    print(f"outputs.py: all {len(expected)} outputs are as recorded for {kind}")


if __name__ == "__main__":
    main()
