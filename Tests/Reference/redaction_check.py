#!/usr/bin/python3
"""Checks a redacted image or video against its original with OpenCV alone (no facecam).

  redaction_check.py check ORIGINAL REDACTED [ORIGINAL REDACTED ...] [--max-remaining F] [--min-psnr DB] [--score-threshold T]
      For each pair, runs OpenCV's FaceDetectorYN over every frame of both (the original turned upright as a player
      shows it: EXIF for images, rotation metadata for videos) and prints one JSON object, a line per pair: faces found
      (at --score-threshold, YuNet's usual 0.9) before, and found again after (a box overlapping its
      own by IoU 0.3 or more), the share remaining, frames in each,
      and the PSNR of the pixels outside every face it finds in the original at --hidden-threshold
      (redact's 0.5) in that frame or the --grace frames before (where a tracked face stays masked),
      enlarged by --allowed-scale (the masks, with room for tracking). Exits 1 when, for any pair, more than
      --max-remaining of the faces are still found, or the PSNR outside is below --min-psnr.
  redaction_check.py occluded-clip SOURCE OUT
      Writes a 9-frame MJPEG clip of the image SOURCE whose frames 3 and 4 have the face covered by a
      flat grey box (no face for any detector): the frames where only a tracked mask can hide it. Prints
      the box as JSON.
  redaction_check.py mean VIDEO X Y W H
      Prints the mean BGR value of a box in each frame of a video, as a JSON list.
  redaction_check.py faces PATH [--score-threshold T]
      Prints the boxes FaceDetectorYN finds (at T, default 0.9) in each upright frame of an image or
      video: one JSON list of [x, y, w, h] per frame, one line.
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opencv_faces import UPRIGHT, video_frames, yunet  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

IMAGE_EXTENSIONS = {".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pbm", ".pgm", ".ppm", ".pnm"}


def upright_frames(path):
    """Every frame of an image or video, upright as a viewer shows it, in order."""
    if os.path.splitext(path)[1].lower() in IMAGE_EXTENSIONS:
        image = cv2.imread(path, cv2.IMREAD_COLOR)  # EXIF orientation applied
        if image is None:
            raise SystemExit(f"cannot read {path}")
        return [image]
    return [np.ascontiguousarray(UPRIGHT[orientation](frame)) for _, _, frame, orientation in video_frames(path)]


def allowed_mask(shape, faces, scale):
    """The pixels within any face box enlarged `scale` times around its centre."""
    mask = np.zeros(shape[:2], bool)
    for face in faces:
        x, y, w, h = face["box"]
        cx, cy, hw, hh = x + w / 2, y + h / 2, w * scale / 2, h * scale / 2
        mask[max(0, int(cy - hh)):max(0, int(math.ceil(cy + hh))), max(0, int(cx - hw)):max(0, int(math.ceil(cx + hw)))] = True
    return mask


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    h = max(0, min(ay + ah, by + bh) - max(ay, by))
    union = aw * ah + bw * bh - w * h
    return w * h / union if union > 0 else 0


def measure(original_path, redacted_path, score_threshold=0.9, hidden_threshold=0.5, allowed_scale=1.6, grace=5):
    """The numbers `check` prints, as a dict (psnr_outside a float, inf when unchanged)."""
    before, after = upright_frames(original_path), upright_frames(redacted_path)
    found_before = found_after = 0
    squared, count = 0.0, 0
    recent = []  # the faces to hide in the last `grace` frames, where tracked masks may stay
    for original, redacted in zip(before, after):
        if original.shape != redacted.shape:
            raise SystemExit(f"frame sizes differ: {original.shape} and {redacted.shape}")
        faces = yunet(original, score_threshold=score_threshold)
        found_before += len(faces)
        # A face still found is one found again where it was: not a hallucination in a blurred black border.
        again = yunet(redacted, score_threshold=score_threshold)
        found_after += sum(any(iou(face["box"], other["box"]) >= 0.3 for other in again) for face in faces)
        recent = (recent + [yunet(original, score_threshold=hidden_threshold)])[-(grace + 1):]
        outside = ~allowed_mask(original.shape, [face for faces in recent for face in faces], allowed_scale)
        difference = original.astype(np.float64)[outside] - redacted.astype(np.float64)[outside]
        squared += float(np.sum(difference ** 2))
        count += difference.size
    mse = squared / count if count else 0.0
    return {"original": original_path, "redacted": redacted_path, "frames_before": len(before),
            "frames_after": len(after), "faces_before": found_before, "faces_after": found_after,
            "remaining": round(found_after / found_before, 4) if found_before else 0.0,
            "psnr_outside": math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)}


def masked_away(original_path, redacted_path, hidden_threshold=0.5, grow=2.0, grace=5, tolerance=48):
    """The share of the picture a redaction with solid masks hid away from faces, mean over frames:
    pixels that differ by more than `tolerance` in a channel (H.264's loss at --crf 18 moves 0.006% of a
    clip's pixels that far), outside every face FaceDetectorYN finds at `hidden_threshold` in the
    original, in that frame or the `grace` frames before (where a tracked mask may stay), each grown
    `grow` times about its centre (a mask is larger than its face). A mask drawn on pixels within
    `tolerance` of black (dark hair, shadows) is not seen."""
    before, after = upright_frames(original_path), upright_frames(redacted_path)
    if len(before) != len(after):
        raise SystemExit(f"{redacted_path} has {len(after)} frames, {original_path} {len(before)}")
    shares, recent = [], []
    for original, redacted in zip(before, after):
        if original.shape != redacted.shape:
            raise SystemExit(f"frame sizes differ: {original.shape} and {redacted.shape}")
        recent = (recent + [yunet(original, score_threshold=hidden_threshold)])[-(grace + 1):]
        outside = ~allowed_mask(original.shape, [face for faces in recent for face in faces], grow)
        changed = np.abs(original.astype(np.int16) - redacted.astype(np.int16)).max(axis=2) > tolerance
        shares.append(float(np.mean(changed & outside)))
    return sum(shares) / len(shares) if shares else 0.0


def unmasked(original_path, redacted_path, score_threshold=0.9, tolerance=48):
    """(faces left unmasked, faces): the faces FaceDetectorYN finds at `score_threshold` in the original
    of which under half the box's pixels differ by more than `tolerance` in a channel in a redaction with
    solid masks. Unlike `measure`, a face blurred into an oval that YuNet still scores is not counted.
    As in `masked_away`, a mask over pixels within `tolerance` of black is not seen: a face mostly that
    dark would count as left (none of the bench clips' is)."""
    from wider_eval import untouched  # here: wider_eval imports this module's iou
    before, after = upright_frames(original_path), upright_frames(redacted_path)
    if len(before) != len(after):
        raise SystemExit(f"{redacted_path} has {len(after)} frames, {original_path} {len(before)}")
    left = counted = 0
    for original, redacted in zip(before, after):
        if original.shape != redacted.shape:
            raise SystemExit(f"frame sizes differ: {original.shape} and {redacted.shape}")
        boxes = [face["box"] for face in yunet(original, score_threshold=score_threshold)]
        a, b = untouched(original, redacted, boxes, tall=0, tolerance=tolerance)
        left, counted = left + a, counted + b
    return left, counted


def check(args):
    if len(args.files) % 2:
        raise SystemExit("check takes pairs: ORIGINAL REDACTED [ORIGINAL REDACTED ...]")
    failed = False
    for original, redacted in zip(args.files[::2], args.files[1::2]):
        report = measure(original, redacted, args.score_threshold, args.hidden_threshold, args.allowed_scale, args.grace)
        psnr = report["psnr_outside"]
        print(json.dumps(dict(report, psnr_outside="inf" if math.isinf(psnr) else round(psnr, 2))), flush=True)
        failed = failed or (report["remaining"] > args.max_remaining or psnr < args.min_psnr
                            or report["frames_before"] != report["frames_after"])
    sys.exit(1 if failed else 0)


def occluded_clip(args):
    image = cv2.imread(args.source, cv2.IMREAD_COLOR)
    faces = yunet(image)
    if not faces:
        raise SystemExit(f"no face in {args.source}")
    x, y, w, h = faces[0]["box"]
    # Wider than the face, so that no part of it is left to find.
    box = [max(0, x - w // 4), max(0, y - h // 4), w + w // 2, h + h // 2]
    writer = cv2.VideoWriter(args.out, cv2.VideoWriter_fourcc(*"MJPG"), 12, (image.shape[1], image.shape[0]))
    for index in range(9):
        frame = image.copy()
        if index in (3, 4):
            frame[box[1]:box[1] + box[3], box[0]:box[0] + box[2]] = 128
        writer.write(frame)
    writer.release()
    print(json.dumps({"box": box, "face": faces[0]["box"], "occluded": [3, 4]}))


def mean(args):
    """Each frame's mean colour (B, G, R) in one region, as a JSON list."""
    capture = cv2.VideoCapture(args.video, cv2.CAP_FFMPEG)
    means = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        region = frame[args.y:args.y + args.h, args.x:args.x + args.w]
        means.append([round(float(v), 2) for v in region.reshape(-1, 3).mean(axis=0)])
    if not means:
        raise SystemExit(f"{args.video} has no frame")
    print(json.dumps(means))


def faces(args):
    print(json.dumps([[face["box"] for face in yunet(frame, score_threshold=args.score_threshold)]
                      for frame in upright_frames(args.path)]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+", metavar="ORIGINAL REDACTED")
    c.add_argument("--max-remaining", type=float, default=0.03)
    c.add_argument("--min-psnr", type=float, default=40)
    c.add_argument("--score-threshold", type=float, default=0.9)
    c.add_argument("--hidden-threshold", type=float, default=0.5)
    c.add_argument("--allowed-scale", type=float, default=1.6)
    c.add_argument("--grace", type=int, default=5)
    o = sub.add_parser("occluded-clip")
    o.add_argument("source")
    o.add_argument("out")
    m = sub.add_parser("mean")
    m.add_argument("video")
    for name in ("x", "y", "w", "h"):
        m.add_argument(name, type=int)
    f = sub.add_parser("faces")
    f.add_argument("path")
    f.add_argument("--score-threshold", type=float, default=0.9)
    args = parser.parse_args()
    {"check": check, "occluded-clip": occluded_clip, "mean": mean, "faces": faces}[args.command](args)


if __name__ == "__main__":
    main()
