#!/usr/bin/env python3
"""pycocotools as the independent reference for facecam eval and --format coco (run with the
virtual environment make test-deps makes: .build/eval-venv/bin/python).

    coco_reference.py synthetic OUT           a seeded labelled set and a run's detections in three formats, and pycocotools' AP
    coco_reference.py ap GT DETECTIONS         pycocotools' AP at IoU 0.5 of DETECTIONS (a COCO results list or a COCO
                                               instances file, facecam's --format coco, matched to GT's images by file_name)
    coco_reference.py crowd LABELS OUT.json    ../shared/data/crowd's labels as a COCO ground truth, every face counted
    coco_reference.py datumaro FORMAT ROOT     the boxes Datumaro imports from a dataset folder in its FORMAT

Each prints one JSON object. AP is COCO's: IoU 0.5, all face sizes, at most 10000 detections an image.
"""
import contextlib
import json
import os
import random
import sys

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def average_precision(gt_path, results):
    """pycocotools' AP at IoU 0.5 of `results` (a list of {image_id, category_id, bbox, score})."""
    gt = COCO(gt_path)
    if not results:
        return 0.0
    dt = gt.loadRes(results)
    evaluation = COCOeval(gt, dt, "bbox")
    evaluation.params.iouThrs = np.array([0.5])
    evaluation.params.maxDets = [10000]
    evaluation.params.areaRng = [[0, 1e10]]
    evaluation.params.areaRngLbl = ["all"]
    evaluation.evaluate()
    evaluation.accumulate()
    precision = evaluation.eval["precision"][0, :, 0, 0, 0]
    return float(np.mean(precision[precision > -1])) if (precision > -1).any() else 0.0


def results_of(gt_path, detections_path):
    """A COCO results list from a results list or a COCO instances file (images matched by file_name)."""
    with open(detections_path) as f:
        document = json.load(f)
    if isinstance(document, list):
        return document
    with open(gt_path) as f:
        ids = {image["file_name"]: image["id"] for image in json.load(f)["images"]}
    names = {}
    for image in document["images"]:
        base = os.path.basename(image["file_name"])
        matches = [name for name in ids if os.path.basename(name) == base]
        if len(matches) != 1:
            sys.exit(f"{detections_path}: image {image['file_name']} is not one image of {gt_path}")
        names[image["id"]] = ids[matches[0]]
    return [{"image_id": names[a["image_id"]], "category_id": 1, "bbox": a["bbox"], "score": a.get("score", 1.0)}
            for a in document["annotations"]]


def synthetic(out):
    """60 images with 0-30 faces 6-150 px tall; detections jittered around most faces, scores
    rising with overlap, and false positives."""
    rng = random.Random(27)
    os.makedirs(out, exist_ok=True)
    images, annotations, results, records = [], [], [], []
    for index in range(60):
        width, height = 640, 480
        name = f"photos/image{index:03d}.jpg"
        images.append({"id": index + 1, "file_name": name, "width": width, "height": height})
        faces = []
        for _ in range(rng.randint(0, 30)):
            h = rng.uniform(6, 150)
            w = h * rng.uniform(0.7, 0.9)
            x, y = rng.uniform(0, width - w), rng.uniform(0, height - h)
            faces.append([x, y, w, h])
            annotations.append({"id": len(annotations) + 1, "image_id": index + 1, "category_id": 1,
                                "bbox": [round(v, 2) for v in (x, y, w, h)], "area": w * h, "iscrowd": 0})
        found = []
        for x, y, w, h in faces:
            if rng.random() < 0.8:
                shift = rng.uniform(0, 0.35)
                box = [x + rng.uniform(-shift, shift) * w, y + rng.uniform(-shift, shift) * h,
                       w * rng.uniform(1 - shift, 1 + shift), h * rng.uniform(1 - shift, 1 + shift)]
                found.append((box, min(0.999, max(0.01, 0.95 - shift * 1.5 + rng.gauss(0, 0.1)))))
        for _ in range(rng.randint(0, 6)):
            h = rng.uniform(8, 100)
            found.append(([rng.uniform(0, width - h), rng.uniform(0, height - h), h * 0.8, h], rng.uniform(0.01, 0.9)))
        faces_out = []
        for box, score in found:
            box = [round(v, 3) for v in box]
            score = round(score, 6)
            results.append({"image_id": index + 1, "category_id": 1, "bbox": box, "score": score})
            faces_out.append({"box": [round(v) for v in box], "preview": box, "score": score})
        records.append({"source": "/data/set/" + name, "frame": 0, "time": 0, "size": [width, height],
                        "preview_size": [width, height], "faces": faces_out})
    gt = {"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "face"}]}
    with open(os.path.join(out, "gt.json"), "w") as f:
        json.dump(gt, f)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f)
    with open(os.path.join(out, "detections.jsonl"), "w") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")
    return {"ap": average_precision(os.path.join(out, "gt.json"), results), "faces": len(annotations),
            "detections": len(results)}


def crowd(labels_path, out):
    with open(labels_path) as f:
        labels = json.load(f)
    images, annotations = [], []
    for index, name in enumerate(sorted(labels)):
        images.append({"id": index + 1, "file_name": name})
        for box in labels[name]["boxes"]:
            annotations.append({"id": len(annotations) + 1, "image_id": index + 1, "category_id": 1, "bbox": box,
                                "area": box[2] * box[3], "iscrowd": 0})
    with open(out, "w") as f:
        json.dump({"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "face"}]}, f)
    return {"images": len(images), "faces": len(annotations)}


def datumaro_boxes(data_format, root):
    """What Datumaro imports from a dataset at `root` in `data_format` (coco_instances, wider_face,
    mot_seq, ...): each item's id to its boxes, [x, y, w, h] and, when tracked, the track id; a CVAT
    track's `outside` boxes, which mark where it ends, are not boxes seen."""
    import datumaro
    dataset = datumaro.Dataset.import_from(root, data_format)
    return {str(item.id): [list(a.get_bbox()) + ([a.attributes["track_id"]] if "track_id" in a.attributes else [])
                           for a in item.annotations if a.type.name == "bbox" and not a.attributes.get("outside")]
            for item in dataset}


def datumaro_attributes(data_format, root):
    """Each item's id to its boxes' attributes as Datumaro imports them (CVAT's text attributes as
    strings), leaving out CVAT's own (occluded, outside, keyframe, z_order) and track_id."""
    import datumaro
    dataset = datumaro.Dataset.import_from(root, data_format)
    own = {"occluded", "outside", "keyframe", "z_order", "track_id"}
    return {str(item.id): [{key: value for key, value in a.attributes.items() if key not in own}
                           for a in item.annotations if a.type.name == "bbox"]
            for item in dataset}


def main():
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    commands = {
        "synthetic": (1, lambda: synthetic(*arguments)),
        "ap": (2, lambda: {"ap": average_precision(arguments[0], results_of(*arguments))}),
        "crowd": (2, lambda: crowd(*arguments)),
        "datumaro": (2, lambda: datumaro_boxes(*arguments)),
        "datumaro-attributes": (2, lambda: datumaro_attributes(*arguments)),
    }
    if command not in commands or len(arguments) != commands[command][0]:
        sys.exit(__doc__)
    # pycocotools prints its progress on standard output, which is kept for the one JSON object.
    with contextlib.redirect_stdout(sys.stderr):
        result = commands[command][1]()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
