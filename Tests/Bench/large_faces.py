#!/usr/bin/python3
"""`make bench`, large faces: how FaceDetectorYN alone and facecam --detector yunet fare with faces
larger than the YuNet model's 300-pixel range.

Two sets of frames, made in a temporary directory:
- measuring (what facecam's large-face search was chosen on): the astronaut's and Grace Hopper's
  faces from Fixtures/images, scaled so that the face fills 30% to 90% of the height of a 640x480,
  1280x720 and 1920x1080 frame, centred on a blurred background (30 frames);
- held out (never tuned on): each ../shared/data/images photograph's first two faces (those within
  the model's range at the photograph's own size), scaled to fill 70% of a 1280x720 and 85% of a
  1920x1080 frame (read in place; skipped when ../shared is absent).
The truth is each face's YuNet box at the photograph's own size, scaled alike. A face counts as
found at IoU >= 0.5; other boxes are counted too (some are real neighbouring faces).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import cv2

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "Reference")]
from bench import overlap  # noqa: E402
from opencv_faces import place_face  # noqa: E402

MODEL = "Sources/FaceCam/Resources/YuNet/face_detection_yunet_2022mar.onnx"


def yunet_boxes(image):
    detector = cv2.FaceDetectorYN.create(MODEL, "", (image.shape[1], image.shape[0]), 0.9, 0.3, 5000)
    _, found = detector.detect(image)
    return [] if found is None else [[int(round(v)) for v in row[:4]] for row in found]


def write_placed(path, photo, face, size, share, background, quality):
    """Writes place_face's frame to `path` as a JPEG of `quality`; returns the face's box in it."""
    frame, truth = place_face(photo, face, size, share, background)
    cv2.imwrite(path, frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return truth


def measuring_set(out):
    background = cv2.imread("Fixtures/images/coffee.png")
    frames = {}
    for source in ("astronaut.png", "grace_hopper.jpg"):
        photo = cv2.imread(os.path.join("Fixtures/images", source))
        face = yunet_boxes(photo)[0]
        for size in ((640, 480), (1280, 720), (1920, 1080)):
            for share in (0.3, 0.45, 0.6, 0.75, 0.9):
                path = os.path.join(out, f"measuring-{source[:3]}-{size[1]}-{share}.jpg")
                frames[path] = write_placed(path, photo, face, size, share, background, 95)
    return frames


def held_out_set(out, shared):
    frames = {}
    for source in sorted(glob.glob(os.path.join(shared, "*.jpg"))):
        photo = cv2.imread(source)
        blurred = cv2.GaussianBlur(photo, (0, 0), 15)
        for k, face in enumerate(yunet_boxes(photo)[:2]):
            if max(face[2], face[3]) > 250:
                continue  # the truth must come from a face within the model's range
            for size, share in (((1280, 720), 0.7), ((1920, 1080), 0.85)):
                path = os.path.join(out, f"held-out-{os.path.basename(source)[:-4]}-{k}-{size[1]}.jpg")
                frames[path] = write_placed(path, photo, face, size, share, blurred, 90)
    return frames


def score(found, truth):
    """(faces found, frames, other boxes) over a set."""
    hits = others = 0
    for path, box in truth.items():
        matched = any(overlap(b, box) >= 0.5 for b in found[path])
        hits += matched
        others += len(found[path]) - matched
    return hits, len(truth), others


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--shared-images", default="../shared/data/images")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        sets = {"measuring (tuned on)": measuring_set(out)}
        if os.path.isdir(args.shared_images):
            sets["held out (../shared photographs)"] = held_out_set(out, args.shared_images)
        else:
            print("large faces: ../shared/data/images is absent; the held-out set is left out", file=sys.stderr)
        print("\n| frames | faces | FaceDetectorYN alone: found, other boxes | facecam --detector yunet: found, other boxes |")
        print("|---|---:|---|---|")
        for label, truth in sets.items():
            paths = sorted(truth)
            alone = {path: yunet_boxes(cv2.imread(path)) for path in paths}
            run = subprocess.run([args.facecam, "detect", "--detector", "yunet"] + paths, capture_output=True, text=True)
            ours = {r["source"]: [f["box"] for f in r["faces"]] for r in map(json.loads, run.stdout.splitlines())}
            a, n, a_other = score(alone, truth)
            f, _, f_other = score(ours, truth)
            print(f"| {label} | {n} | {a} of {n}, {a_other} | {f} of {n}, {f_other} |")


if __name__ == "__main__":
    main()
