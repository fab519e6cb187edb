#!/usr/bin/env python3
"""Faces sliding in and out through each edge of the picture, and what a redaction left of them.
  edge_clips.py make FIXTURES OUT       writes OUT/EDGE-SIZE.mp4 for each edge (left, right, top, bottom) and face
                                        size (60 and 150 pixels), and OUT/truth.json: each clip's face box per frame
  edge_clips.py check ORIGINAL REDACTED BOXES.json
                                        prints, as JSON, the frames where 30% or more of the face's width or height
                                        (the side it comes through) is in the picture, and how much of that part the
                                        redaction changed
  edge_clips.py pan-zoom ORIGINAL REDACTED
                                        the same for every frame showing any of Fixtures/video/pan-zoom.avi's second
                                        face (Grace Hopper's: the box opencv_faces.py cuts her face from), whose box in
                                        each frame is that box through the clip's own affine map (pan_zoom_clip)
With OpenCV and numpy alone, no facecam: the boxes are known from how each clip was made. A face is a
square patch of astronaut.png or grace_hopper.jpg (the face with half its width of margin, as
opencv_faces.py's moving clips), over the blurred coffee.png, moving 6 pixels a frame from wholly
outside to 30 pixels inside the edge, resting 8 frames, and going back out.
"""
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opencv_faces import face_patch, read_image  # noqa: E402

SIZE = (480, 270)
FPS = 25
STEP = 6
REST = 8
INSIDE = 30
EDGES = ("left", "right", "top", "bottom")
FACES = (60, 150)
# A pixel the redaction changed by more than this (of 255, in any channel) is changed; H.264 at CRF 18 moves few by 12.
CHANGED = 40


def positions(edge, size):
    """The patch's top-left corner per frame: in from wholly outside, a rest, and out again."""
    width, height = SIZE
    travel = list(range(0, size + INSIDE + 1, STEP))
    offsets = travel + [travel[-1]] * REST + travel[::-1]
    corners = []
    for offset in offsets:
        if edge == "left":
            corners.append((offset - size, (height - size) // 2))
        elif edge == "right":
            corners.append((width - offset, (height - size) // 2))
        elif edge == "top":
            corners.append(((width - size) // 2, offset - size))
        else:
            corners.append(((width - size) // 2, height - offset))
    return corners


def make(fixtures, out):
    astronaut = read_image(os.path.join(fixtures, "images", "astronaut.png"))
    hopper = read_image(os.path.join(fixtures, "images", "grace_hopper.jpg"))
    background = cv2.GaussianBlur(cv2.resize(read_image(os.path.join(fixtures, "images", "coffee.png")), SIZE), (0, 0), 9)
    truth = {}
    os.makedirs(out, exist_ok=True)
    for edge in EDGES:
        for size in FACES:
            source, box = (astronaut, (178, 69, 92, 92)) if size == 150 else (hopper, (150, 85, 228, 228))
            patch = face_patch(source, box, size)
            # The face itself: the patch less its margin (a quarter of the patch each side).
            margin = size // 4
            name = f"{edge}-{size}.mp4"
            writer = cv2.VideoWriter(os.path.join(out, name), cv2.VideoWriter_fourcc(*"mp4v"), FPS, SIZE)
            boxes = []
            for x, y in positions(edge, size):
                frame = background.copy()
                x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + size, SIZE[0]), min(y + size, SIZE[1])
                if x1 > x0 and y1 > y0:
                    frame[y0:y1, x0:x1] = patch[y0 - y:y1 - y, x0 - x:x1 - x]
                writer.write(frame)
                boxes.append([x + margin, y + margin, size - 2 * margin, size - 2 * margin])
            writer.release()
            truth[name] = {"edge": edge, "boxes": boxes}
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


def frames(path):
    video = cv2.VideoCapture(path)
    while True:
        ok, frame = video.read()
        if not ok:
            return
        yield frame


def check(original, redacted, truth_path):
    truth = json.load(open(truth_path))[os.path.basename(original)]
    judge(original, redacted, truth["edge"], truth["boxes"], SIZE)


def pan_zoom(original, redacted):
    """pan_zoom_clip's map of two-faces.jpg (astronaut.png, then grace_hopper.jpg 512 pixels to its right) per frame."""
    width, height, count = 480, 360, 36
    x, y, w, h = 512 + 150, 85, 228, 228
    corners = np.array([[x, y, 1], [x + w, y, 1], [x, y + h, 1], [x + w, y + h, 1]]).T
    boxes = []
    for i in range(count):
        t = i / (count - 1)
        cx, cy = 330 + 360 * t, 250
        m = cv2.getRotationMatrix2D((cx, cy), 6 * np.sin(2 * np.pi * t), 0.75 + 0.25 * np.sin(np.pi * t) ** 2)
        m[0, 2] += width / 2 - cx
        m[1, 2] += height / 2 - cy
        mapped = m @ corners
        x0, y0 = mapped.min(axis=1)
        x1, y1 = mapped.max(axis=1)
        boxes.append([int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0))])
    judge(original, redacted, "right", boxes, (width, height), least=0)


def judge(original, redacted, edge, boxes, size, least=0.3):
    width, height = size
    counts = (sum(1 for _ in frames(original)), sum(1 for _ in frames(redacted)))
    if counts[0] != counts[1]:
        sys.exit(f"{redacted} has {counts[1]} frames, {original} {counts[0]}")
    judged = []
    for index, (before, after, box) in enumerate(zip(frames(original), frames(redacted), boxes)):
        x, y, w, h = box
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
        if x1 <= x0 or y1 <= y0:
            continue
        shown = (x1 - x0) / w if edge in ("left", "right") else (y1 - y0) / h
        if shown < least or shown == 0:
            continue
        difference = np.abs(before[y0:y1, x0:x1].astype(int) - after[y0:y1, x0:x1].astype(int)).max(axis=2)
        judged.append({"frame": index, "shown": round(shown, 3), "changed": round(float(np.mean(difference > CHANGED)), 3)})
    print(json.dumps({"clip": os.path.basename(original), "frames": judged}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "pan-zoom":
        pan_zoom(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
