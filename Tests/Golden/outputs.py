#!/usr/bin/env python3
"""What facecam's commands write on Fixtures/, kept as sha256 digests, so that a change meant to keep
behaviour (a refactor) is shown to keep it byte for byte.

  outputs.py record --facecam BIN   runs the commands and writes Tests/Golden/outputs.sha256 (and text/, pictures/)
  outputs.py check --facecam BIN    runs them again and names every output whose bytes differ
  outputs.py self-test              checks the tolerance's comparison on cases worked by hand
  outputs.py check --as-new-cpu --facecam BIN
                                    checks as on a CPU with no section, within the tolerance (tests that path here)

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
`record` also keeps a small reference of every picture and video (Tests/Golden/pictures/, 21 files, 390 kB):
its size and frame count in sizes.txt, and a PNG of its frames one under the other. The PNG is grey, each 4x4
block's mean (PICTURE_REDUCTION), in steps of 8 grey levels (PICTURE_STEP). On a CPU with no section, `check`
decodes each picture and video (videos with OpenCV's FFmpeg) and compares it with its reference. Its size and
frame count must be the same. Then each block is compared: it is off by the grey levels it lies outside the range
of the reference's 3x3 blocks around it. The reverse is measured too: the reference's block against the output's
blocks made from each pixel's 3x3 minimum and maximum, so that a thin line a pixel off is no change. A picture or
frame passes with at most 8 blocks (PICTURE_BLOCKS) more than 40 grey levels (PICTURE_LEVELS) off. Measured on
these outputs: each moved a pixel has 4 such blocks at most; JPEG again, or the networks on OpenVINO, none; a mask
a pixel larger each side 3. A box's outline missing has 14 or more, 40x40 pixels of a face left visible 26 or more,
a mask moved 12 pixels 33 or more, another mode of redaction hundreds. The comparison takes about a second.
`record` on a CPU with no section makes these comparisons too, and names what lies beyond the tolerance.
`check --as-new-cpu` ignores this CPU's section, and so tests the tolerance's path on a CPU that has one.
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
# Pictures and videos: a small reference of each in Tests/Golden/pictures/, compared within the tolerance below.
PICTURES = os.path.join(HERE, "pictures")
PICTURE_INDEX = os.path.join(PICTURES, "sizes.txt")
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")
VIDEO_EXTENSIONS = (".avi", ".mkv", ".mp4", ".mov")
# Grey, each 4x4 block's mean: a 40-pixel face is still 10x10 blocks, at a sixteenth of the pixels.
PICTURE_REDUCTION = 4
# Grey levels kept in steps of 8: PNGs 40% smaller (670 to 390 kB), for an error of 4 levels at most, a tenth of PICTURE_LEVELS.
PICTURE_STEP = 8
# A block this far beyond what the reference allows is off: a picture moved a pixel reaches 61 in a few, a face shown 64 to 138.
PICTURE_LEVELS = 40
# Blocks off allowed in a picture or frame: a whole picture moved a pixel has 4 at most; an outline missing 14, a face shown 26.
PICTURE_BLOCKS = 8
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


def is_picture(entry):
    """An image or a video that facecam wrote (annotated, crops, redacted), by its extension."""
    return os.path.splitext(entry)[1].lower() in IMAGE_EXTENSIONS + VIDEO_EXTENSIONS


def cv2_module():
    """OpenCV's Python module, imported only where pictures are read (python3-opencv, as make test installs it)."""
    try:
        import cv2
        return cv2
    except ImportError:
        sys.exit("outputs.py: pictures and videos need OpenCV's Python module (python3-opencv; run /usr/bin/python3)")


def read_frames(path):
    """A picture's pixels, or a video's frames (decoded by OpenCV's FFmpeg), as BGR arrays; None or none when unreadable."""
    cv2 = cv2_module()
    if os.path.splitext(path)[1].lower() in VIDEO_EXTENSIONS:
        capture, frames = cv2.VideoCapture(path), []
        while True:
            ok, frame = capture.read()
            if not ok:
                capture.release()
                return frames
            frames.append(frame)
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    return None if image is None else [image]


def reduced(frame):
    """A frame in grey, each PICTURE_REDUCTION-square block's mean (int16, to subtract)."""
    cv2 = cv2_module()
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    height, width = grey.shape
    size = (-(-width // PICTURE_REDUCTION), -(-height // PICTURE_REDUCTION))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype("int16")


def reference_of(frames):
    """What `record` keeps of a picture or video: its size, its frame count, and its frames reduced and in steps of
    PICTURE_STEP, one under the other (uint8)."""
    import numpy
    height, width = frames[0].shape[:2]
    strip = numpy.vstack([reduced(frame) for frame in frames])
    strip = numpy.clip((strip + PICTURE_STEP // 2) // PICTURE_STEP * PICTURE_STEP, 0, 255).astype("uint8")
    return (width, height, len(frames)), strip


def blocks_off(reference, frame):
    """Each block's distance, in grey levels, beyond what the reference block allows (see PICTURE_LEVELS)."""
    import numpy
    cv2 = cv2_module()
    square = numpy.ones((3, 3), numpy.uint8)
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    actual, expected = reduced(grey), reference.astype("int16")
    low, high = cv2.erode(reference, square).astype("int16"), cv2.dilate(reference, square).astype("int16")
    own_low, own_high = reduced(cv2.erode(grey, square)), reduced(cv2.dilate(grey, square))
    return numpy.maximum.reduce([actual - high, low - actual, expected - own_high, own_low - expected, numpy.zeros_like(actual)])


def picture_difference(shape, strip, frames):
    """(None or why the frames are not the reference's within the tolerance, blocks off in the worst frame, the
    largest distance in grey levels, that frame's index)."""
    (width, height, count) = shape
    if frames is None or not frames:
        return "it could not be read, or has no frame", 0, 0, 0
    if len(frames) != count:
        return f"{len(frames)} frames, not {count}", 0, 0, 0
    rows = strip.shape[0] // count
    worst = (0, 0, 0)
    for index, frame in enumerate(frames):
        if frame.shape[:2] != (height, width):
            where = f" (frame {index})" if count > 1 else ""
            return f"{frame.shape[1]}x{frame.shape[0]}, not {width}x{height}{where}", 0, 0, index
        off = blocks_off(strip[index * rows:(index + 1) * rows], frame)
        worst = max(worst, (int((off > PICTURE_LEVELS).sum()), int(off.max()), index))
    blocks, levels, index = worst
    if blocks > PICTURE_BLOCKS:
        where = f" in frame {index}" if count > 1 else ""
        return (f"{blocks} of its {PICTURE_REDUCTION}x{PICTURE_REDUCTION} blocks are more than {PICTURE_LEVELS} grey levels off "
                f"(up to {levels}){where}, where {PICTURE_BLOCKS} may be"), blocks, levels, index
    return None, blocks, levels, index


def write_pictures(pictures):
    """`record`: each picture's and video's reference in PICTURES, and their sizes and frame counts in PICTURE_INDEX."""
    cv2 = cv2_module()
    shutil.rmtree(PICTURES, ignore_errors=True)
    lines = []
    for entry, path in sorted(pictures.items()):
        frames = read_frames(path)
        if not frames:
            sys.exit(f"outputs.py: {WORK}/{entry}: it could not be read, or has no frame")
        (width, height, count), strip = reference_of(frames)
        target = os.path.join(PICTURES, entry + ".png")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        cv2.imwrite(target, strip, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        lines.append(f"{width}x{height} {count}  {entry}\n")
    with open(PICTURE_INDEX, "w") as index:
        index.writelines(lines)


def picture_problems(pictures):
    """Where this CPU's pictures and videos part from the references recorded on another, beyond the tolerance;
    how many were compared; the closest call (blocks off, grey levels, entry)."""
    cv2 = cv2_module()
    recorded = {}
    if os.path.exists(PICTURE_INDEX):
        with open(PICTURE_INDEX) as index:
            for line in index:
                size, entry = line.rstrip("\n").split("  ", 1)
                dimensions, count = size.split(" ")
                width, height = dimensions.split("x")
                recorded[entry] = (int(width), int(height), int(count))
    problems = [f"{WORK}/{e} has no reference picture: record the outputs again" for e in sorted(set(pictures) - set(recorded))]
    closest = (0, 0, "")
    for entry in sorted(set(pictures) & set(recorded)):
        strip = cv2.imread(os.path.join(PICTURES, entry + ".png"), cv2.IMREAD_GRAYSCALE)
        if strip is None:
            problems.append(f"{WORK}/{entry}: its reference {os.path.relpath(PICTURES, ROOT)}/{entry}.png is missing")
            continue
        reason, blocks, levels, _ = picture_difference(recorded[entry], strip, read_frames(pictures[entry]))
        if reason:
            problems.append(f"{WORK}/{entry}: {reason}")
        closest = max(closest, (blocks, levels, entry))
    return problems, len(set(pictures) & set(recorded)), closest


def self_test():
    """The tolerance on hand-worked cases: numbers within it pass, a number beyond it, a face more, or other text fail;
    pictures a pixel off or encoded again pass; a face shown, a mask moved, an outline, a frame or a column missing fail."""
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
    picture_failures, pictures = picture_self_test()
    failures += picture_failures
    if failures:
        sys.exit("outputs.py self-test: " + "; ".join(failures))
    print(f"outputs.py self-test: {len(cases) + len(cases_posed) + 2} text cases and {pictures} picture cases as worked by hand")


def picture_cases():
    """The pictures' tolerance on cases made by hand from Fixtures/images/grace_hopper.jpg, its face's box and
    landmarks as YuNet finds them: (what, reference frames, frames, None when within the tolerance or the start of
    why not)."""
    import numpy
    cv2 = cv2_module()
    original = cv2.imread(os.path.join(ROOT, "Fixtures/images/grace_hopper.jpg"), cv2.IMREAD_COLOR)
    height, width = original.shape[:2]
    box, landmarks = (175, 109, 183, 206), [(224, 179), (308, 178), (269, 226), (229, 257), (303, 256)]

    def redacted(dx=0):  # an ellipse 1.3 times the box, blurred, as redact's defaults hide a face
        mask = numpy.zeros((height, width), numpy.uint8)
        cv2.ellipse(mask, (266 + dx, 212), (119, 134), 0, 0, 360, 255, -1)
        out = original.copy()
        out[mask > 0] = cv2.GaussianBlur(original, (0, 0), 25)[mask > 0]
        return out

    def annotated(d=0):  # the box's 2-pixel green outline and the landmarks' red dots, as --annotate draws them
        out = original.copy()
        cv2.rectangle(out, (box[0] + d, box[1] + d), (box[0] + box[2] + d, box[1] + box[3] + d), (0, 255, 0), 2)
        for x, y in landmarks:
            cv2.circle(out, (x + d, y + d), 2, (0, 0, 255), -1)
        return out

    def shifted(image, dx=1, dy=1):
        return cv2.warpAffine(image, numpy.float32([[1, 0, dx], [0, 1, dy]]), (image.shape[1], image.shape[0]),
                              borderMode=cv2.BORDER_REPLICATE)

    def reencoded(image):  # each pixel 1 level off at random, then JPEG at quality 90
        noise = numpy.random.default_rng(0).integers(-1, 2, image.shape)
        noisy = numpy.clip(image.astype(numpy.int16) + noise, 0, 255).astype(numpy.uint8)
        return cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 90])[1], cv2.IMREAD_COLOR)

    hidden = redacted()
    patched = hidden.copy()
    patched[192:232, 246:286] = original[192:232, 246:286]
    video = [hidden[100:280, 20 * i:20 * i + 240] for i in range(6)]
    off = "blocks are more than"
    return [
        ("a redacted face, the picture a pixel right and down", [hidden], [shifted(hidden)], None),
        ("a redacted face, JPEG of it with each pixel a level off", [hidden], [reencoded(hidden)], None),
        ("a redacted face, its mask 1 pixel wider", [hidden], [redacted(1)], None),
        ("a redacted face, 40x40 pixels of it as they were", [hidden], [patched], off),
        ("a redacted face, its mask 12 pixels to the right", [hidden], [redacted(12)], off),
        ("a redacted face, as it was", [hidden], [original], off),
        ("an annotated face, its box and landmarks a pixel off", [annotated()], [annotated(1)], None),
        ("an annotated face, no box nor landmarks", [annotated()], [original], off),
        ("a picture a pixel narrower", [hidden], [hidden[:, 1:]], "511x512, not 512x512"),
        ("a video, every frame a pixel right and down", video, [shifted(f) for f in video], None),
        ("a video, frame 3 missing", video, video[:3] + video[4:], "5 frames, not 6"),
        ("a video, frame 3 twice and not frame 4", video, video[:4] + video[3:4] + video[5:], off),
        ("a video, frame 2 not redacted", video, video[:2] + [original[100:280, 40:280]] + video[3:], off),
    ]


def picture_self_test():
    """Failures of the pictures' tolerance on the hand-made cases, and how many there are."""
    failures, cases = [], picture_cases()
    for what, reference, frames, expected in cases:
        shape, strip = reference_of(reference)
        reason = picture_difference(shape, strip, frames)[0]
        if (reason is None) != (expected is None) or (reason and expected not in reason):
            failures.append(f"{what}: {reason!r}, not {expected!r}")
    return failures, len(cases)


def run_all(facecam):
    """Runs every command; returns {entry: sha256} over their outputs, {entry: bytes} of the text ones, and
    {entry: path} of the pictures and videos."""
    work = os.path.join(ROOT, WORK)
    shutil.rmtree(work, ignore_errors=True)
    digests, texts, pictures = {}, {}, {}
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
                entry = os.path.relpath(path, os.path.join(ROOT, WORK))
                outputs[entry] = content(path)
                if is_picture(entry):
                    pictures[entry] = path
        for entry, data in outputs.items():
            digests[entry] = hashlib.sha256(data).hexdigest()
            if is_text(entry, data):
                texts[entry] = data
    return digests, texts, pictures


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


def compare_within_tolerance(kind, digests, texts, pictures, sections):
    """`check` on a CPU with no section: the text outputs against the copies, the pictures and videos against their
    references, within the tolerance."""
    problems, compared = text_problems(digests, texts, sections)
    picture_faults, pictures_compared, (blocks, levels, closest) = picture_problems(pictures)
    problems += picture_faults
    left = sorted(set(digests) - set(texts) - set(pictures))
    problems += [f"{WORK}/{entry} is neither text nor a picture or video: it has no tolerance" for entry in left]
    for problem in problems:
        print(f"outputs.py: {problem}", file=sys.stderr)
    if problems:
        sys.exit(f"outputs.py: {len(problems)} outputs changed beyond the tolerance on this CPU ({kind}), compared with the "
                 f"text and pictures recorded on another: if the change is meant, record them again (Tests/Golden/outputs.py record)")
    print(f"outputs.py: {compared} text outputs are as recorded, within the tolerance (numbers within "
          f"{TOLERANCE_ABSOLUTE} + {TOLERANCE_RELATIVE:g} of their size, a head pose's angles within "
          f"{POSE_DEGREES:g} degrees and its quality within {POSE_QUALITY:g})")
    print(f"outputs.py: {pictures_compared} pictures and videos are as recorded, within the tolerance (grey, in "
          f"{PICTURE_REDUCTION}x{PICTURE_REDUCTION} blocks: at most {PICTURE_BLOCKS} blocks of a picture or frame more than "
          f"{PICTURE_LEVELS} grey levels off; the most: {blocks}, up to {levels} levels, in {WORK}/{closest or '-'})")


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
    # Hidden: check as on a CPU with no section, which tests the tolerance on this one (see the docstring).
    parser.add_argument("--as-new-cpu", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.action == "self-test":
        return self_test()
    if not args.facecam:
        parser.error("record and check need --facecam BIN")
    if args.as_new_cpu and args.action != "check":
        parser.error("--as-new-cpu is for check")
    facecam = os.path.abspath(args.facecam)
    sections, kind = read_manifest(), cpu_kind()
    if args.as_new_cpu:
        kind = f"{kind}, its section ignored by --as-new-cpu"
    if args.action == "check" and kind not in sections and not os.path.isdir(TEXT):
        print(f"outputs.py: SKIPPED: no outputs are recorded for this CPU ({kind}; recorded: {', '.join(sorted(sections))}): "
              f"nothing compared. Before a refactor, record them on a commit known good (Tests/Golden/outputs.py record)")
        return
    digests, texts, pictures = run_all(facecam)
    if args.action == "check" and kind not in sections:
        return compare_within_tolerance(kind, digests, texts, pictures, sections)
    if args.action == "record":
        if kind not in sections and os.path.isdir(TEXT):
            # The CPU itself may move a number beyond the tolerance (a pose round more): said, and the others are kept.
            faults = picture_problems(pictures)[0] if os.path.exists(PICTURE_INDEX) else []
            for problem in text_problems(digests, texts, sections)[0] + faults:
                print(f"outputs.py: warning: beyond the tolerance of the outputs recorded on another CPU: {problem}", file=sys.stderr)
        shutil.rmtree(TEXT, ignore_errors=True)
        for entry, data in texts.items():
            os.makedirs(os.path.dirname(os.path.join(TEXT, entry)), exist_ok=True)
            with open(os.path.join(TEXT, entry), "wb") as handle:
                handle.write(data)
        write_pictures(pictures)
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
    # The comparison a CPU with no section makes, made here too, so that its copies and references stay in step.
    compare_within_tolerance(kind, digests, texts, pictures, sections)


if __name__ == "__main__":
    main()
