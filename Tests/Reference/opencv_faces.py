#!/usr/bin/python3
"""OpenCV called directly: the independent reference facecam is checked against.

Nothing here uses facecam. Detection follows the contract facecam promises:
decode (cv2.imread, EXIF orientation ignored), crop the aperture, make it
upright with numpy, then
- Haar: grey with cv2.cvtColor, cv2.equalizeHist, then
  detectMultiScale(scaleFactor, minNeighbors, flags=0, minSize, maxSize);
- YuNet: cv2.FaceDetectorYN on the upright BGR image, its input size the
  image's; boxes rounded to whole pixels, then kept when within --min-size
  and --max-size.
Boxes are mapped back to buffer coordinates by carrying each pixel's buffer
index through the same numpy reorientation, not by a formula (YuNet's boxes
and landmarks, which may lie partly outside the image, through the affine
map those index grids define).

  opencv_faces.py detect [options] IMAGE...     one JSON object per image
  opencv_faces.py yunet [options] IMAGE...      one JSON object per image, YuNet's faces
  opencv_faces.py video [options] VIDEO...      one JSON object per frame
  opencv_faces.py fixtures SOURCES OUT          synthesise Fixtures/ frames, clips and expectations
  opencv_faces.py clip FIXTURES OUT FRAMES [WxH] synthesise a 640x480 (or WxH) MJPEG clip (for make bench)
  opencv_faces.py check FIXTURES                recompute expectations; exit 1 on any difference

Fixtures/exif/ holds photographs whose EXIF orientation must be applied as cv2.imread applies it;
their expectations (exif/expectations.jsonl) come from cv2.imread itself, EXIF honoured: boxes in
the upright image imread returns.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import zlib

# FFmpeg's own log lines about damaged clips would only clutter the test output.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402 (after the environment it reads)
import numpy as np  # noqa: E402

CASCADE_DIR = "/usr/share/opencv4"
YUNET_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "Sources", "FaceCam", "Resources", "YuNet", "face_detection_yunet_2022mar.onnx")

# What each EXIF orientation does to the stored rows and columns to make them upright.
UPRIGHT = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1, :],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: np.rot90(a, 2).swapaxes(0, 1),
    8: lambda a: np.rot90(a, 1),
}
# The orientation whose upright operation undoes orientation k's.
INVERSE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}


def cascade_path(name):
    if os.sep in name:
        return name
    for sub in ("haarcascades", "lbpcascades"):
        path = os.path.join(CASCADE_DIR, sub, name + ".xml")
        if os.path.exists(path):
            return path
    raise SystemExit(f"cascade {name} not found")


def read_image(path):
    image = cv2.imread(path, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise SystemExit(f"cannot read {path}")
    return image


_classifiers = {}


def classifier_for(cascade):
    if cascade not in _classifiers:
        _classifiers[cascade] = cv2.CascadeClassifier(cascade_path(cascade))
    return _classifiers[cascade]


# The clockwise turn a player gives a video's frames. OpenCV 4.6.0 reports
# CAP_PROP_ORIENTATION_META the other way round (opencv/opencv#22088).
def clockwise_rotation(meta):
    degrees = int(round(meta)) % 360
    return (360 - degrees) % 360 if cv2.__version__.startswith("4.6.") else degrees


ORIENTATION_FOR_ROTATION = {0: 1, 90: 6, 180: 3, 270: 8}


def video_frames(path):
    """(index, seconds, BGR frame, orientation) for every frame that decodes, as stored. Reading goes
    on past frames that fail, as far as the container's frame count, and past that count while frames
    decode (Matroska's count is estimated from its duration, a frame short for facecam's H.264 files);
    each frame's index comes from its timestamp and the frame rate, so frames lost to damage leave gaps."""
    capture = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    if not capture.isOpened():
        raise SystemExit(f"cannot open {path}")
    capture.set(cv2.CAP_PROP_ORIENTATION_AUTO, 0)
    orientation = ORIENTATION_FOR_ROTATION[clockwise_rotation(capture.get(cv2.CAP_PROP_ORIENTATION_META))]
    fps, count = capture.get(cv2.CAP_PROP_FPS), int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    read = 0
    while True:
        ok, frame = capture.read()
        read += 1
        if ok:
            seconds = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000
            yield int(round(seconds * fps)), seconds, frame, orientation
        elif read >= count:
            return


def upright_aperture(image, orientation, aperture):
    """The upright aperture of a BGR image, and the buffer row and column of each of its pixels."""
    height, width = image.shape[:2]
    ax, ay, aw, ah = aperture or (0, 0, width, height)
    if not (0 <= ax and 0 <= ay and 0 < aw <= width - ax and 0 < ah <= height - ay):
        raise SystemExit(f"aperture {aperture} is not inside the {width}x{height} image")
    rows, cols = np.mgrid[ay:ay + ah, ax:ax + aw]
    upright = np.ascontiguousarray(UPRIGHT[orientation](image[ay:ay + ah, ax:ax + aw]))
    return upright, UPRIGHT[orientation](rows), UPRIGHT[orientation](cols)


def detect(image, cascade="haarcascade_frontalface_alt2", scale_factor=1.1, min_neighbors=3,
           min_size=(30, 30), max_size=(0, 0), orientation=1, aperture=None):
    """Face boxes [x, y, w, h] in the BGR image's buffer coordinates, sorted by y, x, w, h."""
    upright, upright_rows, upright_cols = upright_aperture(image, orientation, aperture)
    grey = cv2.equalizeHist(cv2.cvtColor(upright, cv2.COLOR_BGR2GRAY))
    classifier = classifier_for(cascade)
    found = classifier.detectMultiScale(grey, scaleFactor=scale_factor, minNeighbors=min_neighbors, flags=0,
                                        minSize=tuple(min_size), maxSize=tuple(max_size))
    boxes = []
    for (x, y, w, h) in found:
        r = upright_rows[y:y + h, x:x + w]
        c = upright_cols[y:y + h, x:x + w]
        boxes.append([int(c.min()), int(r.min()), int(c.max() - c.min() + 1), int(r.max() - r.min() + 1)])
    return sorted(boxes, key=lambda b: (b[1], b[0], b[2], b[3]))


def continuous_to_buffer(rows, cols):
    """Maps continuous upright coordinates (pixel (i, j) spans [i, i+1) x [j, j+1)) to the buffer's,
    through the affine map the index grids follow (each buffer index is linear in the upright one)."""
    du = (cols[0, 1] - cols[0, 0], rows[0, 1] - rows[0, 0])
    dv = (cols[1, 0] - cols[0, 0], rows[1, 0] - rows[0, 0])

    def to_buffer(u, v):
        iu, iv = u - 0.5, v - 0.5  # pixel centres are the indices' points
        return (float(cols[0, 0] + du[0] * iu + dv[0] * iv + 0.5), float(rows[0, 0] + du[1] * iu + dv[1] * iv + 0.5))
    return to_buffer


_yunets = {}


def yunet(image, orientation=1, aperture=None, score_threshold=0.9, nms_threshold=0.3, top_k=5000,
          min_size=(0, 0), max_size=None):
    """YuNet's faces {box, score, landmarks} in the BGR image's buffer coordinates, sorted by box y, x, w, h."""
    upright, rows, cols = upright_aperture(image, orientation, aperture)
    key = (score_threshold, nms_threshold, top_k)
    if key not in _yunets:
        _yunets[key] = cv2.FaceDetectorYN.create(YUNET_MODEL, "", (64, 64), score_threshold, nms_threshold, top_k)
    detector = _yunets[key]
    detector.setInputSize((upright.shape[1], upright.shape[0]))
    _, found = detector.detect(upright)
    to_buffer = continuous_to_buffer(rows, cols)
    faces = []
    for row in ([] if found is None else found):
        x, y, w, h = (int(np.floor(v + 0.5)) for v in row[:4])
        if w < min_size[0] or h < min_size[1] or (max_size and (w > max_size[0] or h > max_size[1])):
            continue
        (x0, y0), (x1, y1) = to_buffer(x, y), to_buffer(x + w, y + h)
        box = [int(round(min(x0, x1))), int(round(min(y0, y1))), int(round(abs(x1 - x0))), int(round(abs(y1 - y0)))]
        landmarks = [[round(c, 3) for c in to_buffer(row[4 + 2 * k], row[5 + 2 * k])] for k in range(5)]
        faces.append({"box": box, "score": round(float(row[14]), 4), "landmarks": landmarks})
    return sorted(faces, key=lambda f: (f["box"][1], f["box"][0], f["box"][2], f["box"][3]))


# Fixture cases: (file, options). Options use facecam's names.
def cases():
    def every_photograph_and_orientation(options):
        return ([(f"images/{name}", options) for name in ("astronaut.png", "grace_hopper.jpg", "camera.png", "chelsea.png",
                                                          "coffee.png", "two-faces.jpg")]
                + [(f"orientations/portrait-{k}.jpg", dict(options, orientation=k)) for k in range(1, 9)])

    haar = {"detector": "haar"}
    out = every_photograph_and_orientation(haar)
    out.append(("images/two-faces.jpg", dict(haar, aperture=[512, 0, 512, 512])))
    out.append(("images/two-faces.jpg", dict(haar, aperture=[100, 40, 800, 450], orientation=1)))
    out.append(("orientations/portrait-6.jpg", dict(haar, orientation=6, aperture=[60, 20, 400, 360])))
    out.append(("images/two-faces.jpg", dict(haar, scale_factor=1.2, min_neighbors=5)))
    out.append(("images/two-faces.jpg", dict(haar, min_size=[120, 120])))
    out.append(("images/two-faces.jpg", dict(haar, max_size=[150, 150])))
    out.append(("images/two-faces.jpg", dict(haar, cascade="lbpcascade_frontalface_improved")))
    out.append(("images/two-faces.jpg", dict(haar, cascade="haarcascade_frontalface_default", min_neighbors=4)))
    yunet = {"detector": "yunet"}
    out += every_photograph_and_orientation(yunet)
    out.append(("images/two-faces.jpg", dict(yunet, aperture=[512, 0, 512, 512])))
    out.append(("orientations/portrait-6.jpg", dict(yunet, orientation=6, aperture=[60, 20, 400, 360])))
    out.append(("orientations/portrait-3.jpg", dict(yunet, orientation=3, aperture=[20, 200, 380, 312])))
    out.append(("images/camera.png", dict(yunet, score_threshold=0.5)))
    out.append(("images/two-faces.jpg", dict(yunet, score_threshold=0.6, nms_threshold=0.5, top_k=100)))
    out.append(("images/two-faces.jpg", dict(yunet, min_size=[120, 120])))
    out.append(("images/two-faces.jpg", dict(yunet, max_size=[100, 150])))
    return out


def run_case(image, options):
    """The expectation for one image and facecam's options: Haar's boxes, or YuNet's faces and boxes."""
    options = dict(options)
    if options.pop("detector") == "yunet":
        faces = yunet(image, **options)
        return {"boxes": [f["box"] for f in faces], "faces": faces}
    return {"boxes": detect(image, **options)}


def expectations(fixtures):
    lines = []
    for path, options in cases():
        found = run_case(read_image(os.path.join(fixtures, path)), options)
        lines.append(json.dumps(dict(found, file=path, options=options), sort_keys=True))
    for clip in VIDEO_CLIPS:
        for index, seconds, frame, orientation in video_frames(os.path.join(fixtures, clip)):
            boxes = detect(frame, orientation=orientation)
            lines.append(json.dumps({"file": clip, "frame": index, "time": seconds, "detector": "haar", "boxes": boxes},
                                    sort_keys=True))
            faces = yunet(frame, orientation=orientation)
            lines.append(json.dumps({"file": clip, "frame": index, "time": seconds, "detector": "yunet",
                                     "boxes": [f["box"] for f in faces], "faces": faces}, sort_keys=True))
    return "\n".join(lines) + "\n"


def same_expectations(committed, fresh):
    """Line by line: equal, but for YuNet's scores and landmarks, floating-point results that
    may differ in their last digits between CPUs, which may differ by 0.002."""
    def close(a, b):
        if isinstance(a, float) or isinstance(b, float):
            return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 0.002
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
        return a == b
    old, new = committed.splitlines(), fresh.splitlines()
    return len(old) == len(new) and all(close(json.loads(a), json.loads(b)) for a, b in zip(old, new))


VIDEO_CLIPS = ("video/pan-zoom.avi", "video/rotated.mp4", "video/crossing.avi", "video/leave-enter.avi",
               "video/damaged.mp4")


def damaged_clip(out):
    """rotated.mp4 with 4 KiB of noise (a fixed seed) written over the middle of its data: FFmpeg loses
    the frames whose data it hits and decodes the rest."""
    import random
    data = bytearray(open(os.path.join(out, "video", "rotated.mp4"), "rb").read())
    noise = random.Random(2)
    at = noise.randrange(len(data) // 4, 3 * len(data) // 4)
    data[at:at + 4096] = bytes(noise.randrange(256) for _ in range(4096))
    open(os.path.join(out, "video", "damaged.mp4"), "wb").write(data)


def face_patch(image, box, size):
    """The face `box` of `image` with a margin of half its size around it, scaled to `size` square."""
    x, y, w, h = box
    m = w // 2
    return cv2.resize(image[max(y - m, 0):y + h + m, max(x - m, 0):x + w + m], (size, size), interpolation=cv2.INTER_AREA)


def moving_faces_clip(fixtures, path, frames, paths):
    """Face patches (astronaut, hopper) moving over a still background along `paths` (per frame
    top-left corners, None when out of view); writes the clip and returns the ground truth: per
    frame, each visible patch's rect by name."""
    astronaut = read_image(os.path.join(fixtures, "images", "astronaut.png"))
    hopper = read_image(os.path.join(fixtures, "images", "grace_hopper.jpg"))
    patches = {"astronaut": face_patch(astronaut, (178, 69, 92, 92), 150),
               "hopper": face_patch(hopper, (150, 85, 228, 228), 150)}
    background = cv2.GaussianBlur(cv2.resize(read_image(os.path.join(fixtures, "images", "coffee.png")), (640, 360)), (0, 0), 9)
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 360))
    truth = []
    for i in range(frames):
        frame = background.copy()
        visible = {}
        for name, patch in patches.items():
            corner = paths[name](i)
            if corner is None:
                continue
            x, y = corner
            # Paste the part of the patch inside the frame.
            x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + 150, 640), min(y + 150, 360)
            if x1 <= x0 or y1 <= y0:
                continue
            frame[y0:y1, x0:x1] = patch[y0 - y:y1 - y, x0 - x:x1 - x]
            visible[name] = [x, y, 150, 150]
        writer.write(frame)
        truth.append(visible)
    writer.release()
    return truth


def render_clip(source, path, size, frames, fps, fourcc, centre, zoom, angle):
    """Writes `frames` views of `source`: at frame i, the window around centre(t) scaled by zoom(t) and
    turned by angle(t) degrees, t = i / (frames - 1); returns the frames written."""
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*fourcc), fps, size)
    if not writer.isOpened():
        raise SystemExit(f"cannot write {path}")
    written = []
    for i in range(frames):
        t = i / max(frames - 1, 1)
        cx, cy = centre(t)
        m = cv2.getRotationMatrix2D((cx, cy), angle(t), zoom(t))
        m[0, 2] += size[0] / 2 - cx
        m[1, 2] += size[1] / 2 - cy
        frame = cv2.warpAffine(source, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        writer.write(frame)
        written.append(frame)
    writer.release()
    return written


def pan_zoom_clip(fixtures, path, size, frames, fps, magnify=1):
    """The two-faces frame panned left to right, zoomed in and out (times `magnify`), swaying by up to 6 degrees."""
    source = read_image(os.path.join(fixtures, "images", "two-faces.jpg"))
    render_clip(source, path, size, frames, fps, "MJPG",
                centre=lambda t: (330 + 360 * t, 250),
                zoom=lambda t: magnify * (0.75 + 0.25 * np.sin(np.pi * t) ** 2),
                angle=lambda t: 6 * np.sin(2 * np.pi * t))


def set_clockwise_rotation(path, degrees):
    """Writes a display matrix into an MP4's track header, as a phone does for a portrait video."""
    data = bytearray(open(path, "rb").read())
    tkhd = data.find(b"tkhd")
    matrix = tkhd + 4 + 4 + (32 if data[tkhd + 4] == 1 else 20) + 16
    one, minus, w = 0x00010000, 0xFFFF0000, 0x40000000
    data[matrix:matrix + 36] = struct.pack(">9I", *{
        90: (0, one, 0, minus, 0, 0, 0, 0, w), 180: (minus, 0, 0, 0, minus, 0, 0, 0, w),
        270: (0, minus, 0, one, 0, 0, 0, 0, w)}[degrees])
    open(path, "wb").write(data)


# A face filling most of a webcam frame, beyond the YuNet model's 300-pixel range: (file, source,
# frame size, the face's height as a fraction of the frame's).
LARGE_FACES = (("large-faces/face-720p.jpg", "astronaut.png", (1280, 720), 0.75),
               ("large-faces/face-1080p.jpg", "grace_hopper.jpg", (1920, 1080), 0.8))


def audio_clip(out):
    """video/pan-zoom-audio.mkv: pan-zoom.avi's frames (copied) with a 2.5 s AAC tone, for the redaction
    tests that the audio comes through. Made with Debian's ffmpeg; AAC, so that .mp4 can hold a copy. The
    tone ends before the 3 s of video: OpenCV counts a Matroska file's frames from the container's
    duration, which longer audio would stretch."""
    video = os.path.join(out, "video")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", os.path.join(video, "pan-zoom.avi"),
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=2.5", "-map", "0:v", "-map", "1:a",
                    "-c:v", "copy", "-c:a", "aac", "-b:a", "48k", "-bitexact", "-fflags", "+bitexact",
                    os.path.join(video, "pan-zoom-audio.mkv")], check=True)


def place_face(photo, face, size, share, background):
    """`photo` scaled so that its `face` box is `share` of a `size` frame's height, centred on
    `background` resized and blurred: the frame, and the face's box in it (the box scaled alike)."""
    width, height = size
    scale = share * height / face[3]
    big = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    fx, fy, fw, fh = (int(round(v * scale)) for v in face)
    ox, oy = width // 2 - fw // 2 - fx, height // 2 - fh // 2 - fy
    frame = cv2.GaussianBlur(cv2.resize(background, (width, height)), (0, 0), 9)
    x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + big.shape[1], width), min(oy + big.shape[0], height)
    frame[y0:y1, x0:x1] = big[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
    return frame, [fx + ox, fy + oy, fw, fh]


def make_large_faces(out):
    """Scales a fixture photograph until YuNet's box of its face (found at the photograph's own size,
    well within the model's range) fills the given share of a 1280x720 or 1920x1080 frame, centred on
    a blurred background; writes the frames and their ground truth, that box scaled alike."""
    background = read_image(os.path.join(out, "images", "coffee.png"))
    os.makedirs(os.path.join(out, "large-faces"), exist_ok=True)
    truth = {}
    for name, source, size, share in LARGE_FACES:
        photo = read_image(os.path.join(out, "images", source))
        frame, truth[name] = place_face(photo, yunet(photo)[0]["box"], size, share, background)
        cv2.imwrite(os.path.join(out, name), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    with open(os.path.join(out, "large-faces", "truth.json"), "w") as f:
        json.dump(truth, f, sort_keys=True)
        f.write("\n")


def exif_tiff(k, byte_order=b"II"):
    """A TIFF structure (as EXIF carries) whose first directory holds one tag: Orientation = k."""
    f = "<" if byte_order == b"II" else ">"
    return (byte_order + struct.pack(f + "HI", 42, 8) + struct.pack(f + "H", 1)
            + struct.pack(f + "HHIHH", 0x112, 3, 1, k, 0) + struct.pack(f + "I", 0))


def jpeg_with_exif(jpeg, k):
    """The JPEG's bytes with an APP1 Exif segment saying orientation k right after its SOI marker."""
    app1 = b"Exif\0\0" + exif_tiff(k, b"MM")
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def png_with_exif(png, k):
    """The PNG's bytes with an eXIf chunk saying orientation k before its first IDAT chunk."""
    data = exif_tiff(k, b"MM")
    chunk = struct.pack(">I", len(data)) + b"eXIf" + data + struct.pack(">I", zlib.crc32(b"eXIf" + data))
    at = png.index(b"IDAT") - 4
    return png[:at] + chunk + png[at:]


def tiff_with_orientation(bgr, k):
    """An uncompressed RGB TIFF of the image, stored as given, with Orientation = k."""
    height, width = bgr.shape[:2]
    pixels = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).tobytes()
    # (tag, type, value); 258 (BitsPerSample) and 273 (StripOffsets) point past the directory.
    entries = [(256, 4, width), (257, 4, height), (258, 3, None), (259, 3, 1), (262, 3, 2), (273, 4, None),
               (274, 3, k), (277, 3, 3), (278, 4, height), (279, 4, len(pixels))]
    bits_at = 8 + 2 + 12 * len(entries) + 4
    pixels_at = bits_at + 6
    out = b"II" + struct.pack("<HI", 42, 8) + struct.pack("<H", len(entries))
    for tag, kind, value in entries:
        if tag == 258:
            out += struct.pack("<HHII", tag, kind, 3, bits_at)
        elif tag == 273:
            out += struct.pack("<HHII", tag, kind, 1, pixels_at)
        elif kind == 3:
            out += struct.pack("<HHIHH", tag, kind, 1, value, 0)
        else:
            out += struct.pack("<HHII", tag, kind, 1, value)
    return out + struct.pack("<I", 0) + struct.pack("<HHH", 8, 8, 8) + pixels


EXIF_FILES = [f"exif/portrait-{k}.jpg" for k in range(1, 9)] + ["exif/portrait-6.png", "exif/portrait-6.tiff"]


def make_exif_fixtures(out):
    """The orientations/ portraits (stored turned, k = 1-8) tagged with the EXIF orientation that turns
    them upright: JPEG (APP1), PNG (eXIf) and TIFF (its own tag), the three imread honours."""
    os.makedirs(os.path.join(out, "exif"), exist_ok=True)
    for k in range(1, 9):
        with open(os.path.join(out, "orientations", f"portrait-{k}.jpg"), "rb") as f:
            stored = f.read()
        with open(os.path.join(out, "exif", f"portrait-{k}.jpg"), "wb") as f:
            f.write(jpeg_with_exif(stored, k))
    stored = read_image(os.path.join(out, "orientations", "portrait-6.jpg"))
    with open(os.path.join(out, "exif", "portrait-6.png"), "wb") as f:
        f.write(png_with_exif(cv2.imencode(".png", stored)[1].tobytes(), 6))
    with open(os.path.join(out, "exif", "portrait-6.tiff"), "wb") as f:
        f.write(tiff_with_orientation(stored, 6))
    with open(os.path.join(out, "exif", "expectations.jsonl"), "w") as f:
        f.write(exif_expectations(out))


def exif_expectations(fixtures):
    """For each EXIF fixture, what cv2.imread (EXIF honoured, as by default) returns and what each
    detector finds in it: sizes and boxes in imread's upright image."""
    lines = []
    for path in EXIF_FILES:
        upright = cv2.imread(os.path.join(fixtures, path))
        size = [upright.shape[1], upright.shape[0]]
        lines.append(json.dumps({"file": path, "detector": "haar", "size": size, "boxes": detect(upright)}, sort_keys=True))
        lines.append(json.dumps({"file": path, "detector": "yunet", "size": size,
                                 "boxes": [face["box"] for face in yunet(upright)]}, sort_keys=True))
    return "\n".join(lines) + "\n"


def make_fixtures(sources, out):
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "orientations"), exist_ok=True)
    read = lambda name: cv2.imread(os.path.join(sources, name), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    # Re-encoded to drop ancillary chunks (an sRGB profile libpng warns about); the pixels are unchanged.
    for name in ("astronaut.png", "camera.png", "chelsea.png", "coffee.png"):
        cv2.imwrite(os.path.join(out, "images", name), cv2.imread(os.path.join(sources, name), cv2.IMREAD_UNCHANGED))
    with open(os.path.join(sources, "grace_hopper_512x512.jpg"), "rb") as src, \
            open(os.path.join(out, "images", "grace_hopper.jpg"), "wb") as dst:
        dst.write(src.read())
    astronaut, hopper = read("astronaut.png"), read("grace_hopper_512x512.jpg")
    cv2.imwrite(os.path.join(out, "images", "two-faces.jpg"), np.hstack([astronaut, hopper]),
                [cv2.IMWRITE_JPEG_QUALITY, 92])
    # A 400x512 portrait: not square, so a swapped width and height shows.
    portrait = np.ascontiguousarray(astronaut[:, 40:440])
    for k in range(1, 9):
        stored = np.ascontiguousarray(UPRIGHT[INVERSE[k]](portrait))
        cv2.imwrite(os.path.join(out, "orientations", f"portrait-{k}.jpg"), stored, [cv2.IMWRITE_JPEG_QUALITY, 92])
    os.makedirs(os.path.join(out, "video"), exist_ok=True)
    pan_zoom_clip(out, os.path.join(out, "video", "pan-zoom.avi"), (480, 360), 36, 12)
    # A portrait stored turned a quarter to the left, as a phone held upright stores it, with the
    # rotation metadata that tells players to turn it a quarter clockwise.
    stored = np.ascontiguousarray(np.rot90(portrait, 1))
    rotated = os.path.join(out, "video", "rotated.mp4")
    render_clip(stored, rotated, (512, 400), 24, 12, "mp4v",
                centre=lambda t: (256, 200), zoom=lambda t: 1 + 0.15 * t, angle=lambda t: 0)
    set_clockwise_rotation(rotated, 90)
    # Two faces passing each other (at different heights), and one leaving before another enters;
    # the patch rects are the ground truth the tracking tests check ids against.
    truth = {
        "video/crossing.avi": moving_faces_clip(out, os.path.join(out, "video", "crossing.avi"), 40, {
            "astronaut": lambda i: (20 + 11 * i, 20 + 2 * i), "hopper": lambda i: (470 - 11 * i, 200 - 2 * i)}),
        "video/leave-enter.avi": moving_faces_clip(out, os.path.join(out, "video", "leave-enter.avi"), 40, {
            "astronaut": lambda i: (300 + 20 * i, 100) if i < 18 else None,
            "hopper": lambda i: (-150 + 15 * (i - 22), 100) if i >= 22 else None}),
    }
    with open(os.path.join(out, "video", "tracks.json"), "w") as f:
        json.dump(truth, f, sort_keys=True)
        f.write("\n")
    make_large_faces(out)
    damaged_clip(out)
    audio_clip(out)
    make_exif_fixtures(out)
    with open(os.path.join(out, "expectations.jsonl"), "w") as f:
        f.write(expectations(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("detect")
    d.add_argument("images", nargs="+")
    d.add_argument("--cascade", default="haarcascade_frontalface_alt2")
    d.add_argument("--scale-factor", type=float, default=1.1)
    d.add_argument("--min-neighbors", type=int, default=3)
    d.add_argument("--min-size", type=int, nargs=2, default=[30, 30])
    d.add_argument("--max-size", type=int, nargs=2, default=[0, 0])
    d.add_argument("--orientation", type=int, default=1)
    d.add_argument("--aperture", type=int, nargs=4)
    y = sub.add_parser("yunet")
    y.add_argument("images", nargs="+")
    y.add_argument("--score-threshold", type=float, default=0.9)
    v = sub.add_parser("video")
    v.add_argument("videos", nargs="+")
    v.add_argument("--every", type=int, default=1)
    k = sub.add_parser("clip")
    k.add_argument("fixtures")
    k.add_argument("out")
    k.add_argument("frames", type=int)
    k.add_argument("size", nargs="?", default="640x480")
    f = sub.add_parser("fixtures")
    f.add_argument("sources")
    f.add_argument("out")
    c = sub.add_parser("check")
    c.add_argument("fixtures")
    args = parser.parse_args()
    if args.command == "detect":
        for image in args.images:
            boxes = detect(read_image(image), args.cascade, args.scale_factor, args.min_neighbors, args.min_size,
                           args.max_size, args.orientation, args.aperture)
            print(json.dumps({"source": image, "boxes": boxes}))
    elif args.command == "yunet":
        for image in args.images:
            print(json.dumps({"source": image, "faces": yunet(read_image(image), score_threshold=args.score_threshold)}))
    elif args.command == "video":
        for video in args.videos:
            for index, seconds, frame, orientation in video_frames(video):
                if index % args.every == 0:
                    print(json.dumps({"source": video, "frame": index, "time": seconds,
                                      "boxes": detect(frame, orientation=orientation)}))
    elif args.command == "clip":
        width, height = map(int, args.size.split("x"))
        # Faces keep their share of the frame's height: 1280x720 shows them 1.5 times as large as 640x480.
        pan_zoom_clip(args.fixtures, args.out, (width, height), args.frames, 30, magnify=height / 480)
    elif args.command == "fixtures":
        make_fixtures(args.sources, args.out)
    else:
        with open(os.path.join(args.fixtures, "expectations.jsonl")) as f:
            committed = f.read()
        fresh = expectations(args.fixtures)
        with open(os.path.join(args.fixtures, "exif", "expectations.jsonl")) as f:
            committed_exif = f.read()
        if not same_expectations(committed, fresh) or not same_expectations(committed_exif, exif_expectations(args.fixtures)):
            sys.stderr.write("Fixtures/expectations.jsonl or Fixtures/exif/expectations.jsonl differs from what OpenCV "
                             "finds now; run `make fixtures` and review the change\n")
            sys.exit(1)
        print(f"expectations: {len(cases())} still-image cases, every frame of {len(VIDEO_CLIPS)} clips and "
              f"{len(EXIF_FILES)} EXIF-oriented photographs match OpenCV")


if __name__ == "__main__":
    main()
