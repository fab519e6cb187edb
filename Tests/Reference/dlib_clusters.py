"""dlib's own Chinese whispers over facecam's descriptors, the independent reference for --cluster.

Reads facecam's JSON Lines (run with --cluster --descriptors) from the file named by its first argument,
and the threshold from its second. As docs/reference/recognition.md says facecam clusters: each tracked
face stands for its track (the mean of its faces' unit-length descriptors, made unit length), each
untracked face for itself; dlib's Python bindings (PyPI's dlib-bin) run chinese_whispers_clustering over
them. Prints one JSON list per record line that has faces: each face's label from dlib (null for a face
with no descriptor of its own or its track's), in the faces' order.
"""
import json
import math
import sys

import dlib


def unit(values):
    length = math.sqrt(sum(v * v for v in values))
    return [v / length for v in values] if length > 0 else list(values)


def main():
    records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    threshold = float(sys.argv[2])
    members, sums = {}, []
    frames = [r for r in records if "faces" in r]

    def key(r, index, face):
        return ("track", r["source"], face["id"]) if "id" in face else ("face", r["source"], r["frame"], index)

    for r in frames:
        for index, face in enumerate(r["faces"]):
            if "descriptor" not in face:
                continue
            k = key(r, index, face)
            if k not in members:
                members[k] = len(sums)
                sums.append([[0.0] * 128, 0])
            for d, v in enumerate(unit(face["descriptor"])):
                sums[members[k]][0][d] += v
            sums[members[k]][1] += 1
    means = [dlib.vector(unit([v / count for v in total])) for total, count in sums]
    labels = dlib.chinese_whispers_clustering(means, threshold) if means else []
    for r in frames:
        print(json.dumps([labels[members[k]] if (k := key(r, i, f)) in members else None for i, f in enumerate(r["faces"])]))


if __name__ == "__main__":
    main()
