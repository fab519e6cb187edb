#!/usr/bin/python3
"""Tracking quality against synthesised ground truth (Tests/Reference/synthetic_clips.py).

Each truth face is paired with the detection of the
same frame overlapping it most, at IoU >= 0.3; other detections are false positives. Per run:
- switches: pairs of consecutive processed frames in which the same truth face was found in both
  but under different ids (the requirement is none);
- IDF1: 2 IDTP / (2 IDTP + IDFP + IDFN) over the processed frames, with the one-to-one mapping
  of truth faces to ids that maximises IDTP (Ristani et al. 2016);
- recall: truth faces found, of the truth faces in the processed frames.

  tracking_quality.py TRUTH.json CLIP RESULTS.jsonl    prints one JSON object
"""
import json
import os
import sys

from scipy.optimize import linear_sum_assignment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import overlap  # noqa: E402


def pair(faces, visible):
    """{truth name: id} for one frame: each truth face with its best unclaimed detection."""
    taken, paired = set(), {}
    for name, truth in sorted(visible.items()):
        best = max((i for i in range(len(faces)) if i not in taken), key=lambda i: overlap(truth, faces[i]["box"]),
                   default=None)
        if best is not None and overlap(truth, faces[best]["box"]) >= 0.3:
            taken.add(best)
            paired[name] = faces[best]["id"]
    return paired


def score(truth, records):
    records = [r for r in records if "faces" in r]
    switches = found = present = 0
    pairs = {}  # (truth name, id) -> frames
    detections = 0
    previous = {}
    for record in records:
        visible = truth[record["frame"]]
        present += len(visible)
        detections += len(record["faces"])
        current = pair(record["faces"], visible)
        for name, id in current.items():
            pairs[(name, id)] = pairs.get((name, id), 0) + 1
        found += len(current)
        switches += sum(1 for name, id in current.items() if name in previous and previous[name] != id)
        previous = current
    names = sorted({n for n, _ in pairs})
    ids = sorted({i for _, i in pairs})
    idtp = 0
    if names and ids:
        cost = [[-pairs.get((n, i), 0) for i in ids] for n in names]
        rows, cols = linear_sum_assignment(cost)
        idtp = -sum(cost[r][c] for r, c in zip(rows, cols))
    idf1 = 2 * idtp / max(present + detections, 1)
    return {"switches": switches, "idf1": round(idf1, 3), "recall": round(found / max(present, 1), 3),
            "ids": len(ids), "truth_faces": len(names)}


def main():
    truth_path, clip, results = sys.argv[1:4]
    truth = json.load(open(truth_path))[clip]
    records = [json.loads(line) for line in open(results)]
    print(json.dumps(score(truth, records)))


if __name__ == "__main__":
    main()
