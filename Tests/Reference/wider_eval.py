#!/usr/bin/python3
"""WIDER FACE's evaluation, written from its rules (numpy only, no facecam), for ../shared/data/crowd.

Matching: detections best score first; each takes the unused labelled box it overlaps most, when
that IoU is 0.5 or more. A match with a box in the hard set is a hit; a match with any other labelled
box is ignored (neither hit nor false positive); no match is a false positive. AP is the area under
the precision-recall curve over all the images' detections pooled, precision made monotone
(VOC's all-point interpolation). Recall is over the hard-set boxes.

Redaction coverage: a labelled face (any, hard or not) at least `tall` pixels high counts as masked
when at least half of its box's pixels differ between the original and the redacted image.

    wider_eval.py detections LABELS RECORDS [--only FILE...]          facecam's JSON Lines (or a WIDER detection folder) against the labels
    wider_eval.py untouched LABELS ORIGINALS REDACTED [--only FILE...] faces left untouched in REDACTED/NAME, and the mean
                                                                       share of the picture masked away from labelled faces
    wider_eval.py self-test                                           the hand-computed cases below
"""
import argparse
import json
import os
import sys

import numpy as np

from redaction_check import iou


def match(detections, boxes, hard):
    """[(score, "hit"|"false"|"ignored")] for `detections` [(box, score)] against one image's labels."""
    hard, used, out = set(hard), set(), []
    for box, score in sorted(detections, key=lambda d: -d[1]):
        best, chosen = 0.5, None
        for i, label in enumerate(boxes):
            if i not in used and iou(box, label) >= best:
                best, chosen = iou(box, label), i
        if chosen is None:
            out.append((score, "false"))
        else:
            used.add(chosen)
            out.append((score, "hit" if chosen in hard else "ignored"))
    return out


def evaluate(detections, labels):
    """{"recall", "precision", "ap", "hits", "false", "faces"} for detections {file: [(box, score)]} over `labels`' files."""
    pooled, faces = [], 0
    for name, label in labels.items():
        pooled += [m for m in match(detections.get(name, []), label["boxes"], label["hard"]) if m[1] != "ignored"]
        faces += len(label["hard"])
    pooled.sort(key=lambda m: -m[0])
    hits = np.cumsum([m[1] == "hit" for m in pooled])
    false = np.cumsum([m[1] == "false" for m in pooled])
    if not pooled:
        return {"recall": 0.0, "precision": 0.0, "ap": 0.0, "hits": 0, "false": 0, "faces": faces}
    recall, precision = hits / faces, hits / (hits + false)
    r = np.concatenate(([0.0], recall, [recall[-1]]))
    p = np.concatenate(([1.0], precision, [0.0]))
    for i in range(len(p) - 2, -1, -1):
        p[i] = max(p[i], p[i + 1])
    steps = np.nonzero(r[1:] != r[:-1])[0]
    ap = float(np.sum((r[steps + 1] - r[steps]) * p[steps + 1]))
    return {"recall": float(recall[-1]), "precision": float(precision[-1]), "ap": ap,
            "hits": int(hits[-1]), "false": int(false[-1]), "faces": faces}


def untouched(original, redacted, boxes, tall=12, tolerance=0):
    """(faces left untouched, faces counted): labelled boxes `tall` or more high of which under half the pixels changed
    by more than `tolerance` in a channel."""
    changed = np.abs(original.astype(np.int16) - redacted.astype(np.int16)).max(axis=2) > tolerance
    left = counted = 0
    for x, y, w, h in boxes:
        if h < tall:
            continue
        counted += 1
        x0, y0 = max(0, int(round(x))), max(0, int(round(y)))
        x1, y1 = min(changed.shape[1], int(round(x + w))), min(changed.shape[0], int(round(y + h)))
        region = changed[y0:y1, x0:x1]
        if region.size == 0 or region.mean() < 0.5:
            left += 1
    return left, counted


def masked_away(original, redacted, boxes, grow=2.0):
    """The share of the picture's pixels changed outside every labelled box, each box grown `grow`
    times in width and height about its centre (a mask is larger than the face it hides): what a
    redaction hid that is no labelled face (or a face the labels miss)."""
    changed = np.any(original != redacted, axis=2)
    near = np.zeros(changed.shape, dtype=bool)
    for x, y, w, h in boxes:
        cx, cy = x + w / 2, y + h / 2
        x0, y0 = max(0, int(cx - w * grow / 2)), max(0, int(cy - h * grow / 2))
        x1, y1 = min(changed.shape[1], int(np.ceil(cx + w * grow / 2))), min(changed.shape[0], int(np.ceil(cy + h * grow / 2)))
        near[y0:y1, x0:x1] = True
    return float(np.mean(changed & ~near))


def records(path):
    """facecam's JSON Lines, or a folder of WIDER detection files (as WIDER's evaluation reads them:
    the image's name, the number of faces, then x y w h score a line), as {file name: [(box, score)]}."""
    out = {}
    if os.path.isdir(path):
        for folder, _, files in os.walk(path):
            for file in files:
                with open(os.path.join(folder, file)) as f:
                    lines = f.read().splitlines()
                boxes = [[float(v) for v in line.split()] for line in lines[2:2 + int(lines[1])]]
                out[os.path.basename(lines[0])] = [(b[:4], b[4]) for b in boxes]
        return out
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            out[os.path.basename(record["source"])] = [(face["box"], face.get("score", 1.0)) for face in record["faces"]]
    return out


def self_test():
    labels = {"a": {"boxes": [[0, 0, 10, 10], [20, 0, 10, 10], [40, 0, 10, 10]], "hard": [0, 1]}}
    # Best first: a hit (0.9), a false positive (0.8), a detection of the ignored box (0.7), a second
    # detection of the first face, a false positive now that its box is used (0.6), the second face (0.5).
    detections = {"a": [([0, 0, 10, 10], 0.9), ([60, 0, 10, 10], 0.8), ([40, 0, 10, 10], 0.7),
                        ([1, 0, 10, 10], 0.6), ([20, 1, 10, 10], 0.5)]}
    result = evaluate(detections, labels)
    # Pooled (ignored dropped): hit, false, false, hit -> recall 0.5, 0.5, 0.5, 1.0; precision 1, 0.5, 0.33, 0.5.
    # Monotone precision: 1 up to recall 0.5, 0.5 up to 1.0: AP = 0.5 x 1 + 0.5 x 0.5 = 0.75.
    assert result == {"recall": 1.0, "precision": 0.5, "ap": 0.75, "hits": 2, "false": 2, "faces": 2}, result
    assert abs(iou([0, 0, 10, 10], [5, 0, 10, 10]) - 50 / 150) < 1e-12
    original = np.zeros((20, 40, 3), np.uint8)
    redacted = original.copy()
    redacted[0:20, 0:10] = 9      # the first face wholly changed
    redacted[0:8, 20:30] = 9      # the second's top 8 of 20 rows: under half
    assert untouched(original, redacted, [[0, 0, 10, 20], [20, 0, 10, 20], [30, 0, 5, 8]]) == (1, 2)
    # A 10x10 face in the corner, grown twice about its centre: rows and columns -5 to 15, clipped to 0 to 15. Of the
    # 20x20 pixels changed, 15x15 lie near it: 175 of the picture's 800 are masked away.
    redacted = original.copy()
    redacted[0:20, 0:20] = 9
    assert masked_away(original, redacted, [[0, 0, 10, 10]]) == 175 / 800
    print("wider_eval self-test: 4 cases passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("detections")
    d.add_argument("labels")
    d.add_argument("records")
    d.add_argument("--only", nargs="*")
    u = sub.add_parser("untouched")
    u.add_argument("labels")
    u.add_argument("originals")
    u.add_argument("redacted")
    u.add_argument("--only", nargs="*")
    sub.add_parser("self-test")
    args = parser.parse_args()
    if args.command == "self-test":
        self_test()
        return
    with open(args.labels) as f:
        labels = json.load(f)
    if args.only is not None:
        labels = {name: labels[name] for name in map(os.path.basename, args.only)}
    if args.command == "detections":
        print(json.dumps(evaluate(records(args.records), labels)))
        return
    import cv2
    left = counted = 0
    away = []
    for name, label in labels.items():
        original = cv2.imread(os.path.join(args.originals, name))
        redacted = cv2.imread(os.path.join(args.redacted, name))
        if redacted is None or redacted.shape != original.shape:
            sys.exit(f"wider_eval: {args.redacted}/{name} is missing or not the original's size")
        a, b = untouched(original, redacted, label["boxes"])
        left, counted = left + a, counted + b
        away.append(masked_away(original, redacted, label["boxes"]))
    print(json.dumps({"untouched": left, "faces": counted, "masked_away": sum(away) / max(1, len(away))}))


if __name__ == "__main__":
    sys.exit(main())
