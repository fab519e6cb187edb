#!/usr/bin/python3
"""facecam's face attributes: roll on photographs turned by known angles (--pose), and whether
--quality ranks a face above its own blurred or shrunk copies.

Each photograph is turned by -40 to 40 degrees in steps of 10 (Tests/Reference/face_attributes.py,
OpenCV's warpAffine), and facecam detect --pose runs on every copy. A face's roll error is
roll(turned copy) - roll(original) - angle, for the largest face of the original and the face
nearest its turned centre in each copy: the photographs' own head tilt is unknown, so the
original's estimate stands for it. Images are shrunk to at most 480 pixels first.

Quality: each image is blurred (Gaussian of 1 and 2 pixels) and shrunk to half its size; a face
ranks right when its quality in the original is above its quality in the copy (the face matched by
its centre).

Two sets, reported apart: the tuning set (../shared/data/images and fixture-sources' portraits),
on which the roll refinement's crop size and the sharpness term's constant were chosen, and the
held-out set (frames of ../shared/data/video's clips), looked at only after the choices.

  attributes_bench.py --facecam BINARY [--out report.md]
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import time

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
    run = subprocess.run([facecam, "detect", "--quality", "--format", "jsonl"] + paths, capture_output=True, text=True)
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
        original = os.path.join(folder, f"r{n}.png")
        cv2.imwrite(original, image)
        originals.append(original)
        for angle in ANGLES:
            turned = os.path.join(folder, f"r{n}_{angle}.png")
            cv2.imwrite(turned, face_attributes.turn(image, angle))
            copies.append((original, turned, angle, image.shape))
    found = faces(facecam, originals + [turned for _, turned, _, _ in copies])
    errors, heights, missed = [], [], 0
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
        heights.append(face["box"][3])
    return np.abs(np.array(errors)), np.array(heights), missed


def quality_ranking(facecam, images, folder):
    """For each degradation, (faces ranked right, faces compared)."""
    degradations = {"blurred by 1 px": lambda i: cv2.GaussianBlur(i, (0, 0), 1),
                    "blurred by 2 px": lambda i: cv2.GaussianBlur(i, (0, 0), 2),
                    "shrunk to half": lambda i: cv2.resize(i, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)}
    pairs = []
    for n, path in enumerate(images):
        image = cv2.imread(path)
        original = os.path.join(folder, f"q{n}.png")
        cv2.imwrite(original, image)
        for name, degrade in degradations.items():
            copy = os.path.join(folder, f"q{n}-{len(pairs)}.png")
            cv2.imwrite(copy, degrade(image))
            pairs.append((name, original, copy, 0.5 if name == "shrunk to half" else 1.0))
    found = faces(facecam, sorted({p[1] for p in pairs}) + [p[2] for p in pairs])
    counts = {name: [0, 0] for name in degradations}
    for name, original, copy, scale in pairs:
        for face in found.get(original) or []:
            if "quality" not in face:
                continue
            cx, cy = centre(face)
            near = [f for f in found.get(copy) or [] if "quality" in f
                    and math.hypot(centre(f)[0] - cx * scale, centre(f)[1] - cy * scale) < face["box"][2] * scale / 2]
            if near:
                counts[name][1] += 1
                counts[name][0] += near[0]["quality"] < face["quality"]
    return counts


def costs(facecam, images):
    """Seconds per face that --pose and --quality add to detect: the three runs side by side, the best of three rounds each."""
    arguments = {"detect": [], "--pose": ["--pose"], "--quality": ["--quality"]}
    best = {name: float("inf") for name in arguments}
    count = sum(len(f) for f in faces(facecam, images).values())
    for _ in range(3):
        for name, extra in arguments.items():
            start = time.monotonic()
            subprocess.run([facecam, "detect", "--jobs", "1"] + extra + images, capture_output=True, check=True)
            best[name] = min(best[name], time.monotonic() - start)
    return count, {name: (best[name] - best["detect"]) / count for name in ("--pose", "--quality")}


def summary(name, errors, heights, missed, tallest=None):
    """A table row; with `tallest`, only faces at least that many pixels tall."""
    if tallest is not None:
        errors, missed = errors[heights >= tallest], ""
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
        held_out = held_out_images(folder)
        tuning = roll_errors(arguments.facecam, tuning_images(), folder)
        held = roll_errors(arguments.facecam, held_out, folder)
        tuning_ranks = quality_ranking(arguments.facecam, tuning_images(), folder)
        held_ranks = quality_ranking(arguments.facecam, held_out, folder)
        counted, added = costs(arguments.facecam, held_out)
    lines = [
        "Roll: |roll(turned copy) - roll(original) - angle|, in degrees.",
        "",
        "| set | turned copies | mean error (°) | median | 90th percentile | largest | face not found |",
        "|---|---:|---:|---:|---:|---:|---:|",
        summary("tuning (9 portraits)", *tuning),
        summary(f"held out ({len(held_out)} video frames)", *held),
        summary("held out, faces 48 px tall or more", *held, tallest=48),
        "",
        "Quality: faces whose original scores above the copy, of the faces found in both.",
        "",
        "| set | " + " | ".join(tuning_ranks) + " |",
        "|---|" + "---:|" * len(tuning_ranks),
        "| tuning | " + " | ".join(f"{right} of {total}" for right, total in tuning_ranks.values()) + " |",
        "| held out | " + " | ".join(f"{right} of {total}" for right, total in held_ranks.values()) + " |",
        "",
        f"Cost: `detect --jobs 1` on the {len(held_out)} held-out frames ({counted} faces), best of three rounds side by side.",
        "",
        "| option | added per face |",
        "|---|---:|",
    ] + [f"| `{name}` | {seconds * 1000:.1f} ms |" for name, seconds in added.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    if arguments.out:
        with open(arguments.out, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
