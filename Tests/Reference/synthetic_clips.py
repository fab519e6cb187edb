#!/usr/bin/python3
"""Synthesised clips with ground truth, for tracking and fast mode.

Nothing here uses facecam. Each clip is 640x480 (or WxH) at 30 frames/s, MJPEG: face patches cut
from the fixture photographs (astronaut, Grace Hopper, each also mirrored) move in straight lines
over a blurred crop of the coffee photograph (which holds no face). Per clip, a seeded random generator (Python's random.Random(seed))
picks 2 to 4 faces: a face of 80 to 200 pixels (its patch 1.6 times that), a speed of 0 to 15
pixels per frame in any direction, and a first and last frame; the first face is there from frame
0, the others appear in place at a later frame (so, for fast mode, between full searches) and
vanish at their last. Patches never overlap, so every face stays detectable while in view.

  synthetic_clips.py FIXTURES OUT SEED... [--size WxH] [--frames N]

writes OUT/synthetic-SEED.avi per seed and OUT/truth.json: per clip, per frame, each visible face's
rect [x, y, w, h] (its patch less the margin) by name (face1, face2, ...). The seeds used to tune facecam and the held-out
ones are listed in the README (Fast mode and tracking).
"""
import argparse
import json
import os
import random

import cv2
import numpy as np

# The faces in the fixture photographs (x, y, w, h), from OpenCV's own detectors.
FACES = (("astronaut.png", (178, 69, 92, 92)), ("grace_hopper.jpg", (150, 85, 228, 228)))
MARGIN = 0.3  # of the face's size, on every side of the patch


def patches(fixtures):
    """The face crops with their margins, and their mirror images."""
    crops = []
    for name, (x, y, w, h) in FACES:
        image = cv2.imread(os.path.join(fixtures, "images", name), cv2.IMREAD_COLOR)
        m = int(w * MARGIN)
        crop = image[max(y - m, 0):y + h + m, max(x - m, 0):x + w + m]
        crops += [crop, np.ascontiguousarray(crop[:, ::-1])]
    return crops


def plan(rng, size, frames):
    """Faces as (crop index, patch size, start corner, velocity, first, last), none overlapping another."""
    width, height = size
    faces = []
    count = rng.randint(2, 4)
    attempts = 0
    while len(faces) < count and attempts < 2000:
        attempts += 1
        face = rng.randint(80, 200)
        side = int(face * (1 + 2 * MARGIN))
        if side >= min(width, height):
            continue
        speed, angle = rng.uniform(0, 15), rng.uniform(0, 2 * np.pi)
        vx, vy = speed * np.cos(angle), speed * np.sin(angle)
        first = 0 if not faces else rng.randint(1, frames * 2 // 3)
        last = min(frames - 1, first + rng.randint(frames // 3, frames))
        span = last - first
        # A start corner keeping the whole path inside the frame; else a shorter life.
        while span > 0:
            xs = (0 - min(0, vx * span), width - side - max(0, vx * span))
            ys = (0 - min(0, vy * span), height - side - max(0, vy * span))
            if xs[0] <= xs[1] and ys[0] <= ys[1]:
                break
            span -= 1
        if span < 10:
            continue
        last = first + span
        start = (rng.uniform(*xs), rng.uniform(*ys))
        candidate = (rng.randrange(4), side, start, (vx, vy), first, last)
        if all(not overlapping(candidate, other) for other in faces):
            faces.append(candidate)
    return faces


def rect(face, frame):
    _, side, (x, y), (vx, vy), first, last = face
    if not first <= frame <= last:
        return None
    t = frame - first
    return [int(round(x + vx * t)), int(round(y + vy * t)), side, side]


def overlapping(a, b):
    for frame in range(max(a[4], b[4]), min(a[5], b[5]) + 1):
        ra, rb = rect(a, frame), rect(b, frame)
        # A gap of a few pixels, so that no face's context is another's.
        if ra[0] < rb[0] + rb[2] + 8 and rb[0] < ra[0] + ra[2] + 8 and ra[1] < rb[1] + rb[3] + 8 and rb[1] < ra[1] + ra[3] + 8:
            return True
    return False


def write_clip(fixtures, path, seed, size, frames):
    rng = random.Random(seed)
    crops = patches(fixtures)
    # The coffee photograph holds no face; a seeded crop and flip vary it.
    background = cv2.imread(os.path.join(fixtures, "images", "coffee.png"), cv2.IMREAD_COLOR)
    h, w = background.shape[:2]
    x0, y0 = rng.randrange(w // 4), rng.randrange(h // 4)
    background = background[y0:y0 + 3 * h // 4, x0:x0 + 3 * w // 4]
    if rng.random() < 0.5:
        background = background[:, ::-1]
    background = cv2.GaussianBlur(cv2.resize(background, size), (0, 0), 9)
    faces = plan(rng, size, frames)
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 30, size)
    if not writer.isOpened():
        raise SystemExit(f"cannot write {path}")
    truth = []
    for frame in range(frames):
        image = background.copy()
        visible = {}
        for n, face in enumerate(faces):
            r = rect(face, frame)
            if r is None:
                continue
            x, y, side, _ = r
            image[y:y + side, x:x + side] = cv2.resize(crops[face[0]], (side, side), interpolation=cv2.INTER_AREA)
            inset = side * MARGIN / (1 + 2 * MARGIN)
            visible[f"face{n + 1}"] = [x + inset, y + inset, side - 2 * inset, side - 2 * inset]
        writer.write(image)
        truth.append(visible)
    writer.release()
    return truth


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fixtures")
    parser.add_argument("out")
    parser.add_argument("seeds", type=int, nargs="+")
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--frames", type=int, default=90)
    args = parser.parse_args()
    size = tuple(map(int, args.size.split("x")))
    os.makedirs(args.out, exist_ok=True)
    truth = {}
    for seed in args.seeds:
        name = f"synthetic-{seed}.avi"
        truth[name] = write_clip(args.fixtures, os.path.join(args.out, name), seed, size, args.frames)
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
