#!/usr/bin/python3
"""How well facecam's --pose turns with the picture: roll on photographs turned by known angles.

Each photograph is turned by -40 to 40 degrees in steps of 10 (Tests/Reference/face_attributes.py,
OpenCV's warpAffine), and facecam detect --pose runs on every copy. A face's roll error is
roll(turned copy) - roll(original) - angle, for the largest face of the original and the face
nearest its turned centre in each copy: the photographs' own head tilt is unknown, so the
original's estimate stands for it. Images are shrunk to at most 480 pixels first.

Two sets, reported apart: the tuning set (../shared/data/images and fixture-sources' portraits),
on which the refinement's crop size was chosen, and the held-out set (frames of
../shared/data/video's clips), looked at only after the choice.

  pose_bench.py --facecam BINARY [--out report.md]
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Reference"))
import face_attributes  # noqa: E402

SHARED = os.path.join(HERE, "..", "..", "..", "shared")
ANGLES = range(-40, 41, 10)


def tuning_images():
    return sorted(glob.glob(os.path.join(SHARED, "data/images/*.jpg"))) + [
        os.path.join(SHARED, "fixture-sources/astronaut.png"), os.path.join(SHARED, "fixture-sources/grace_hopper_512x512.jpg")]


def held_out_images(folder):
    """Every 8th frame of each clip, as PNG."""
    paths = []
    for clip in sorted(glob.glob(os.path.join(SHARED, "data/video/*.gif"))):
        stem = os.path.splitext(os.path.basename(clip))[0]
        capture = cv2.VideoCapture(clip)
        index = 0
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            if index % 8 == 0:
                path = os.path.join(folder, f"{stem}-{index:03d}.png")
                cv2.imwrite(path, frame)
                paths.append(path)
            index += 1
    return paths


def faces(facecam, paths):
    run = subprocess.run([facecam, "detect", "--pose", "--format", "jsonl"] + paths, capture_output=True, text=True)
    return {record["source"]: record["faces"] for record in map(json.loads, run.stdout.splitlines())}


def centre(face):
    x, y, w, h = face["box"]
    return x + w / 2, y + h / 2


def roll_errors(facecam, images, folder):
    copies, originals = [], []
    for n, path in enumerate(images):
        image = cv2.imread(path)
        scale = 480 / max(image.shape[:2])
        if scale < 1:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        original = os.path.join(folder, f"{n}.png")
        cv2.imwrite(original, image)
        originals.append(original)
        for angle in ANGLES:
            turned = os.path.join(folder, f"{n}_{angle}.png")
            cv2.imwrite(turned, face_attributes.turn(image, angle))
            copies.append((original, turned, angle, image.shape))
    found = faces(facecam, originals + [turned for _, turned, _, _ in copies])
    errors, missed = [], 0
    for original, turned, angle, shape in copies:
        base = found.get(original) or []
        if not base:
            continue
        face = max(base, key=lambda f: f["box"][2] * f["box"][3])
        # Where the face's centre went: the turn about the image's centre onto the larger canvas.
        height, width = shape[:2]
        radians = math.radians(angle)
        new_width = round(height * abs(math.sin(radians)) + width * abs(math.cos(radians)))
        new_height = round(height * abs(math.cos(radians)) + width * abs(math.sin(radians)))
        cx, cy = centre(face)
        dx, dy = cx - width / 2, cy - height / 2
        tx = new_width / 2 + dx * math.cos(radians) - dy * math.sin(radians)
        ty = new_height / 2 + dx * math.sin(radians) + dy * math.cos(radians)
        candidates = [f for f in found.get(turned) or [] if "pose" in f]
        near = [f for f in candidates if math.hypot(centre(f)[0] - tx, centre(f)[1] - ty) < face["box"][2] / 2]
        if not near:
            missed += 1
            continue
        error = near[0]["pose"]["roll"] - face["pose"]["roll"] - angle
        errors.append((error + 180) % 360 - 180)
    return np.abs(np.array(errors)), missed


def summary(name, errors, missed):
    if len(errors) == 0:
        return f"| {name} | 0 | | | | | {missed} |"
    return (f"| {name} | {len(errors)} | {errors.mean():.2f} | {np.median(errors):.2f} | {np.percentile(errors, 90):.2f} | "
            f"{errors.max():.2f} ({(errors > 3).sum()} over 3) | {missed} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--out")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tuning = roll_errors(arguments.facecam, tuning_images(), folder)
        held = roll_errors(arguments.facecam, held_out_images(folder), folder + "/")
    lines = [
        "| set | turned copies | mean error (°) | median | 90th percentile | largest | face not found |",
        "|---|---:|---:|---:|---:|---:|---:|",
        summary("tuning (9 portraits)", *tuning),
        summary("held out (video frames)", *held),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if arguments.out:
        with open(arguments.out, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
