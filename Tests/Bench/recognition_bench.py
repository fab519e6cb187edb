"""Open-set identification on LFW: facecam enrol + detect --recognize beside face_recognition's pipeline.

Run with the Python of .build/dlib-venv (dlib-bin), which computes the reference: face_recognition's
pipeline (dlib's HOG detector upsampled once, the 5-point chip, the same ResNet, nearest neighbour).

The people of ../shared/data/faces/lfw are split in two halves by a hash of their name: `tune`, on which
--recognize's default tolerance was chosen, and `report`, looked at only to report them. In a half, 100
people with two or more photographs are enrolled from their first and probed with their second; 200
people with one photograph are strangers, probed with it. Each photograph's face is the one whose box
centre lies nearest the picture's centre (LFW's subject). facecam at its default tolerance, and for
each tolerance (facecam's nearest person and distance, and
face_recognition's): the share of enrolled people named right, and of strangers given a name.

Then `redact --spare` with every enrolled person spared, over the same probes: strangers whose face is
left visible (false spares) and enrolled people's. It also times what --recognize adds per face.
Prints Markdown for docs/benchmarks.md.

  recognition_bench.py --facecam BIN --faces DIR [--json OUT]
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import dlib

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "FaceCamRecognition", "Resources", "Dlib")
ENROLLED, STRANGERS = 100, 200
# facecam's distances are between unit-length descriptors, face_recognition's between raw ones: each is
# swept over its own useful range, and they are compared at as many strangers named.
TOLERANCES = [round(0.20 + 0.01 * k, 2) for k in range(41)]


def half(name):
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "report"


def material(faces, split):
    lfw = os.path.join(faces, "lfw")
    people = []
    for line in open(os.path.join(lfw, "identities.tsv")):
        name, count = line.rstrip("\n").split("\t")
        if half(name) == split:
            photos = sorted(os.listdir(os.path.join(lfw, name)))
            people.append((hashlib.sha256(name.encode()).hexdigest(), name, [os.path.join(lfw, name, p) for p in photos]))
    people.sort()
    enrolled = [(name, photos) for _, name, photos in people if len(photos) >= 2][:ENROLLED]
    strangers = [(name, photos) for _, name, photos in people if len(photos) == 1][:STRANGERS]
    if len(enrolled) < ENROLLED or len(strangers) < STRANGERS:
        sys.exit(f"the {split} half has {len(enrolled)} people with two photographs and {len(strangers)} with one")
    return enrolled, strangers


def central(boxes, width, height):
    """The index of the box whose centre is nearest the picture's centre, or None."""
    if not boxes:
        return None
    return min(range(len(boxes)), key=lambda k: (boxes[k][0] + boxes[k][2] / 2 - width / 2) ** 2
               + (boxes[k][1] + boxes[k][3] / 2 - height / 2) ** 2)


def enrol(binary, enrolled):
    """A new gallery with each enrolled person's first photograph, by facecam enrol; its path and the seconds taken."""
    gallery = os.path.join(tempfile.mkdtemp(prefix="recognition-bench-"), "gallery.sqlite")
    started = time.time()
    for name, photos in enrolled:
        # YuNet at 0.5, for detect too: LFW's warped portraits score low.
        result = subprocess.run([binary, "enrol", "--gallery", gallery, "--largest", "--score-threshold", "0.5", name, photos[0]],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"facecam enrol {name}: {result.stderr.strip()}", file=sys.stderr)
    return gallery, time.time() - started


def probes(enrolled, strangers):
    """(expected name or None, photograph): each enrolled person's second photograph, each stranger's one."""
    return [(name, photos[1]) for name, photos in enrolled] + [(None, photos[0]) for name, photos in strangers]


def facecam_run(binary, gallery, enrolled, strangers, tolerance):
    """(expected name or None, name given, distance) per probe, from facecam detect --recognize; with `tolerance`
    2 every face gets its nearest person's name, with None facecam's default tolerance decides."""
    started = time.time()
    result = subprocess.run([binary, "detect", "--recognize", "--gallery", gallery, "--score-threshold", "0.5", "--format", "jsonl",
                             "--jobs", "1"] + (["--tolerance", str(tolerance)] if tolerance else [])
                            + [p for _, p in probes(enrolled, strangers)],
                            capture_output=True, text=True, check=True)
    detect_seconds = time.time() - started
    records = {r["source"]: r for r in map(json.loads, result.stdout.splitlines())}
    answers = []
    for expected, path in probes(enrolled, strangers):
        record = records.get(path)
        faces = record["faces"] if record else []
        pick = central([f["box"] for f in faces], *(record["size"] if record else (0, 0)))
        face = faces[pick] if pick is not None else None
        answers.append((expected, face and face.get("identity"), face["distance"] if face and face.get("distance") is not None else 9))
    return answers, {"detect_seconds": round(detect_seconds, 1)}


def spare_run(binary, gallery, enrolled, strangers):
    """redact --spare with everyone enrolled spared, over the probes: how many strangers' faces are left
    visible (a false spare leaks a stranger) and how many enrolled people's are. Judged on the pixels of
    LFW's subject as dlib's HOG detector finds it in the photograph (not facecam's box): visible when
    its middle half is unchanged (mean difference under 20 of 255; a solid mask changes it by far more)."""
    import numpy as np
    out = tempfile.mkdtemp(prefix="recognition-spare-")
    paths = [p for _, p in probes(enrolled, strangers)]
    subprocess.run([binary, "redact", "--quiet", "--jobs", "1", "--spare", ",".join(name for name, _ in enrolled), "--gallery", gallery,
                    "--mode", "solid", "--output-dir", out] + paths, capture_output=True, text=True, check=True)
    detector = dlib.get_frontal_face_detector()
    counts = {"strangers": 0, "strangers_visible": 0, "enrolled": 0, "enrolled_visible": 0}
    for expected, path in probes(enrolled, strangers):
        image = dlib.load_rgb_image(path)
        rects = detector(image, 1)
        pick = central([(r.left(), r.top(), r.width(), r.height()) for r in rects], image.shape[1], image.shape[0])
        if pick is None:
            continue
        r = rects[pick]
        x0, y0 = max(0, r.left() + r.width() // 4), max(0, r.top() + r.height() // 4)
        x1, y1 = min(image.shape[1], x0 + r.width() // 2), min(image.shape[0], y0 + r.height() // 2)
        redacted = dlib.load_rgb_image(os.path.join(out, os.path.basename(path)))
        difference = np.abs(image[y0:y1, x0:x1].astype(np.int16) - redacted[y0:y1, x0:x1].astype(np.int16)).mean()
        kind = "strangers" if expected is None else "enrolled"
        counts[kind] += 1
        counts[kind + "_visible"] += int(difference < 20)
    return counts


def reference_describer():
    """face_recognition's pipeline on dlib's Python bindings: a photograph's central face's descriptor, or None."""
    detector = dlib.get_frontal_face_detector()
    predictor = dlib.shape_predictor(os.path.join(MODELS, "shape_predictor_5_face_landmarks.dat"))
    network = dlib.face_recognition_model_v1(os.path.join(MODELS, "dlib_face_recognition_resnet_model_v1.dat"))

    def describe(path):
        image = dlib.load_rgb_image(path)
        rects = detector(image, 1)
        boxes = [(r.left(), r.top(), r.width(), r.height()) for r in rects]
        pick = central(boxes, image.shape[1], image.shape[0])
        if pick is None:
            return None
        shape = predictor(image, rects[pick])
        return dlib.vector(network.compute_face_descriptor(image, shape, 0, 0.25))
    return describe


def reference_run(enrolled, strangers):
    """The same, by face_recognition's pipeline."""
    describe = reference_describer()
    gallery = [(name, describe(photos[0])) for name, photos in enrolled]
    gallery = [(name, d) for name, d in gallery if d is not None]
    answers = []
    for expected, path in [(name, photos[1]) for name, photos in enrolled] + [(None, photos[0]) for name, photos in strangers]:
        descriptor = describe(path)
        if descriptor is None:
            answers.append((expected, None, 9))
            continue
        name, distance = min(((n, sum((a - b) ** 2 for a, b in zip(descriptor, d)) ** 0.5) for n, d in gallery), key=lambda x: x[1])
        answers.append((expected, name, distance))
    return answers


def pairs_run(binary, faces):
    """LFW's verification protocol on the 1,800 pairs of folds 1-3 (pairs.tsv): for each fold, the threshold
    that classifies the other two folds best, applied to it; the mean accuracy over the folds. facecam's
    distance is between the unit-length descriptors `detect --recognize --descriptors` prints for each
    photograph's central face; face_recognition's between its raw ones. A photograph with no face found
    makes its pairs "different"."""
    import numpy as np
    lfw = os.path.join(faces, "lfw")
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(lfw, "pairs.tsv"))]
    pairs = [(os.path.join(lfw, a, f), os.path.join(lfw, b, g), same == "1") for a, f, b, g, same in rows]
    photos = sorted({p for a, b, _ in pairs for p in (a, b)})
    # --recognize needs a gallery; whom it holds does not matter here.
    gallery, _ = enrol(binary, material(faces, "tune")[0][:1])
    result = subprocess.run([binary, "detect", "--recognize", "--descriptors", "--gallery", gallery, "--score-threshold", "0.5",
                             "--jobs", "1"] + photos, capture_output=True, text=True, check=True)
    ours = {}
    for record in map(json.loads, result.stdout.splitlines()):
        pick = central([f["box"] for f in record["faces"]], *record["size"])
        if pick is not None:
            vector = np.array(record["faces"][pick]["descriptor"])
            ours[record["source"]] = vector / np.linalg.norm(vector)
    describe = reference_describer()
    theirs = {p: d for p, d in ((p, describe(p)) for p in photos) if d is not None}
    theirs = {p: np.array(list(d)) for p, d in theirs.items()}

    def accuracy(descriptors):
        distances = np.array([np.linalg.norm(descriptors[a] - descriptors[b]) if a in descriptors and b in descriptors else 9.0
                              for a, b, _ in pairs])
        same = np.array([s for _, _, s in pairs])
        folds = np.arange(len(pairs)) // (len(pairs) // 3)
        scores = []
        for fold in range(3):
            train, test = folds != fold, folds == fold
            candidates = np.unique(distances[train])
            best = max(candidates, key=lambda t: np.mean((distances[train] <= t) == same[train]))
            scores.append(float(np.mean((distances[test] <= best) == same[test])))
        return {"accuracy": round(float(np.mean(scores)), 4), "folds": [round(v, 4) for v in scores],
                "no_face": sum(1 for p in photos if p not in descriptors)}
    return {"pairs": len(pairs), "facecam": accuracy(ours), "face_recognition": accuracy(theirs)}


def sweep(answers):
    rows = []
    for tolerance in TOLERANCES:
        right = sum(1 for e, n, d in answers if e is not None and n == e and d <= tolerance)
        wrong = sum(1 for e, n, d in answers if e is not None and n != e and d <= tolerance)
        strangers = sum(1 for e, n, d in answers if e is None and d <= tolerance)
        rows.append({"tolerance": tolerance, "named_right": right / ENROLLED, "named_wrong": wrong / ENROLLED,
                     "strangers_named": strangers / STRANGERS})
    return rows


def half_result(binary, faces, split):
    enrolled, strangers = material(faces, split)
    gallery, enrol_seconds = enrol(binary, enrolled)
    facecam, times = facecam_run(binary, gallery, enrolled, strangers, 2)
    times["enrol_seconds"] = round(enrol_seconds, 1)
    defaults, _ = facecam_run(binary, gallery, enrolled, strangers, None)
    at_defaults = {"named_right": sum(1 for e, n, d in defaults if e is not None and n == e) / ENROLLED,
                   "named_wrong": sum(1 for e, n, d in defaults if e is not None and n is not None and n != e) / ENROLLED,
                   "strangers_named": sum(1 for e, n, d in defaults if e is None and n is not None) / STRANGERS}
    reference = sweep(reference_run(enrolled, strangers))
    # face_recognition's pipeline at its best threshold naming no more strangers than facecam's defaults.
    rival = max((r for r in reference if r["strangers_named"] <= at_defaults["strangers_named"]), key=lambda r: r["named_right"])
    return {"split": split, "facecam_defaults": at_defaults, "face_recognition_at_as_few_strangers": rival,
            "facecam": sweep(facecam), "face_recognition": reference, "times": times,
            "spare": spare_run(binary, gallery, enrolled, strangers)}


def describe_cost(binary, faces):
    """Seconds a face that --recognize adds: detect with and without it on the same photographs, side by side."""
    enrolled, strangers = material(faces, "tune")
    photos = [p for _, ps in enrolled for p in ps[:2]] + [ps[0] for _, ps in strangers]
    work = tempfile.mkdtemp(prefix="recognition-cost-")
    gallery = os.path.join(work, "gallery.sqlite")
    subprocess.run([binary, "enrol", "--gallery", gallery, "--largest", "--score-threshold", "0.5", enrolled[0][0], enrolled[0][1][0]],
                   capture_output=True, check=True)
    runs = {"detect": [], "recognize": []}
    count = 0
    for _ in range(3):
        for label, extra in (("detect", []), ("recognize", ["--recognize", "--gallery", gallery])):
            started = time.time()
            result = subprocess.run([binary, "detect", "--score-threshold", "0.5", "--jobs", "1", "--threads", "1"] + extra + photos,
                                    capture_output=True, text=True, check=True)
            runs[label].append(time.time() - started)
            count = sum(len(json.loads(line)["faces"]) for line in result.stdout.splitlines())
    extra = min(runs["recognize"]) - min(runs["detect"])
    return {"photographs": len(photos), "faces": count, "detect_seconds": round(min(runs["detect"]), 2),
            "recognize_seconds": round(min(runs["recognize"]), 2), "ms_per_face": round(1000 * extra / max(count, 1), 1)}


CLUSTER_PEOPLE = 100
CLUSTER_THRESHOLDS = [0.30, 0.32, 0.33, 0.34, 0.35, 0.36, 0.38, 0.40]
# --cluster-threshold's default, to check facecam's clusters against dlib's own.
CLUSTER_THRESHOLD = 0.33


def unit(values):
    length = sum(v * v for v in values) ** 0.5
    return [v / length for v in values]


def cluster_scores(truth, labels):
    """Pairwise precision, recall and F1 (two faces of one person in one cluster is a hit) and BCubed F1."""
    tp = fp = fn = 0
    for i in range(len(truth)):
        for j in range(i + 1, len(truth)):
            same, joined = truth[i] == truth[j], labels[i] == labels[j]
            tp += same and joined
            fp += joined and not same
            fn += same and not joined
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    b_precision = b_recall = 0.0
    for i in range(len(truth)):
        cluster = [j for j in range(len(truth)) if labels[j] == labels[i]]
        person = sum(truth[j] == truth[i] for j in range(len(truth)))
        both = sum(truth[j] == truth[i] for j in cluster)
        b_precision += both / len(cluster)
        b_recall += both / person
    b_precision, b_recall = b_precision / len(truth), b_recall / len(truth)
    return {"clusters": len(set(labels)), "precision": precision, "recall": recall,
            "f1": 2 * precision * recall / max(precision + recall, 1e-9), "bcubed_f1": 2 * b_precision * b_recall / (b_precision + b_recall)}


def cluster_run(binary, faces, split):
    """detect --cluster over a half's photographs: up to 4 of each of 100 people with two or more, and 100 people with
    one. Scores facecam's clusters of each photograph's central face against the names, checks that they split the
    faces as dlib's own chinese_whispers_clustering does over the same descriptors, and sweeps its threshold."""
    lfw = os.path.join(faces, "lfw")
    people = sorted((hashlib.sha256(name.encode()).hexdigest(), name, sorted(os.listdir(os.path.join(lfw, name))))
                    for name in (line.split("\t")[0] for line in open(os.path.join(lfw, "identities.tsv"))) if half(name) == split)
    chosen = ([(name, photos[:4]) for _, name, photos in people if len(photos) >= 2][:CLUSTER_PEOPLE]
              + [(name, photos) for _, name, photos in people if len(photos) == 1][:CLUSTER_PEOPLE])
    items = [(name, os.path.join(lfw, name, photo)) for name, photos in chosen for photo in photos]
    result = subprocess.run([binary, "detect", "--cluster", "--descriptors", "--score-threshold", "0.5", "--jobs", "1"]
                            + [path for _, path in items], capture_output=True, text=True, check=True)
    records = {r["source"]: r for r in map(json.loads, result.stdout.splitlines())}
    every = [(r, f) for r in records.values() for f in r["faces"]]
    reference = dlib.chinese_whispers_clustering([dlib.vector(unit(f["descriptor"])) for _, f in every], CLUSTER_THRESHOLD)
    forward, backward = {}, {}
    same_as_dlib = all(forward.setdefault(f["cluster"], d) == d and backward.setdefault(d, f["cluster"]) == f["cluster"]
                       for (_, f), d in zip(every, reference))
    truth, labels, vectors = [], [], []
    for name, path in items:
        record = records.get(path)
        pick = central([f["box"] for f in record["faces"]], *record["size"]) if record else None
        if pick is None:
            continue
        truth.append(name)
        labels.append(record["faces"][pick]["cluster"])
        vectors.append(dlib.vector(unit(record["faces"][pick]["descriptor"])))
    sweep = {t: cluster_scores(truth, dlib.chinese_whispers_clustering(vectors, t)) for t in CLUSTER_THRESHOLDS}
    return {"split": split, "photographs": len(items), "faces": len(truth), "people": len(set(truth)),
            "facecam": cluster_scores(truth, labels), "same_as_dlib": same_as_dlib, "sweep": sweep}


# Past loading dlib's models, --recognize may add at most this share to `video`'s time on a bench clip:
# naming per track must stay a small part of detection (YuNet, the fastest detector, runs the clips).
CLIP_SHARE_LIMIT = 0.25
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures")


def best_seconds(runs):
    """The least time of 3 rounds for each labelled command, the rounds interleaved: {label: seconds}, and the last outputs."""
    times, outputs = {label: [] for label in runs}, {}
    for _ in range(3):
        for label, command in runs.items():
            started = time.time()
            outputs[label] = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            times[label].append(time.time() - started)
    return {label: min(t) for label, t in times.items()}, outputs


def clip_costs(binary, clips):
    """What --recognize adds to `video` on each clip (faces from the fixtures, named per track), side by side,
    best of 3, and the one-time cost of loading dlib's models (detect on a photograph with no face, with and
    without it); the gallery holds astronaut.png's face (Collins)."""
    gallery = os.path.join(tempfile.mkdtemp(prefix="recognition-clip-"), "gallery.sqlite")
    subprocess.run([binary, "enrol", "--gallery", gallery, "Collins", os.path.join(FIXTURES, "images", "astronaut.png")],
                   capture_output=True, check=True)
    recognize = ["--recognize", "--descriptors", "--gallery", gallery]
    cat = os.path.join(FIXTURES, "images", "chelsea.png")
    load, _ = best_seconds({"plain": [binary, "detect", cat], "recognize": [binary, "detect"] + recognize + [cat]})
    load_seconds = load["recognize"] - load["plain"]
    costs = []
    for clip in clips:
        seconds, outputs = best_seconds({"video": [binary, "video", "--quiet", clip],
                                         "recognize": [binary, "video", "--quiet"] + recognize + [clip]})
        faces = [f for line in outputs["recognize"].splitlines() for f in json.loads(line).get("faces", [])]
        costs.append({"clip": os.path.basename(clip), "faces": len(faces), "tracks": len({f["id"] for f in faces}),
                      "described": sum("descriptor" in f for f in faces), "video_seconds": round(seconds["video"], 2),
                      "recognize_seconds": round(seconds["recognize"], 2), "load_seconds": round(load_seconds, 2),
                      "share": (seconds["recognize"] - seconds["video"] - load_seconds) / seconds["video"]})
    return costs


HALF_LABELS = {"tune": "tuned on", "report": "kept aside"}


def table(header, rows):
    """Prints a Markdown table: the first column left-aligned, the others right, each cell as text."""
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * (len(header) - 1))
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--faces", required=True)
    parser.add_argument("--clips", nargs="*", default=[], help="bench clips to time video --recognize on")
    parser.add_argument("--json")
    args = parser.parse_args()
    clips = clip_costs(args.facecam, args.clips) if args.clips else []
    over = [c for c in clips if c["share"] > CLIP_SHARE_LIMIT]
    if clips:
        print("`video --recognize` on the bench clips (faces named per track), beside `video`, best of 3 runs each, side by side; "
              f"loading dlib's models takes {clips[0]['load_seconds']} s once per run, and the last column is what is added past it:")
        print()
        table(["clip", "faces", "tracks", "faces described", "video s", "with --recognize s", "added past loading"],
              [[c["clip"], c["faces"], c["tracks"], c["described"], c["video_seconds"], c["recognize_seconds"], f"{100 * c['share']:.1f}%"]
               for c in clips])
        print()
        for c in over:
            print(f"FAIL: past loading, --recognize adds {100 * c['share']:.1f}% to video on {c['clip']} (limit {100 * CLIP_SHARE_LIMIT:.0f}%).")
    if not os.path.isdir(os.path.join(args.faces, "lfw")):
        print(f"_Not measured: {args.faces}/lfw is absent._")
        sys.exit(1 if over else 0)
    halves = [half_result(args.facecam, args.faces, split) for split in ("tune", "report")]
    pairs = pairs_run(args.facecam, args.faces)
    clusterings = [cluster_run(args.facecam, args.faces, split) for split in ("tune", "report")]
    cost = describe_cost(args.facecam, args.faces)
    print(f"LFW: in each half of its people, {ENROLLED} enrolled from one photograph and probed with another, and {STRANGERS} "
          "strangers. face_recognition's pipeline is taken at its best tolerance that names no more strangers than facecam's defaults.")
    print()
    rows = [(half["split"], half["facecam_defaults"], half["face_recognition_at_as_few_strangers"]) for half in halves]
    table(["LFW half", "facecam: named right", "named wrong", "strangers named", "face_recognition's pipeline: named right (tolerance)"],
          [[HALF_LABELS[split], f"{round(d['named_right'] * ENROLLED)} of {ENROLLED}", round(d["named_wrong"] * ENROLLED),
            f"{round(d['strangers_named'] * STRANGERS)} of {STRANGERS}", f"{round(r['named_right'] * ENROLLED)} ({r['tolerance']:.2f})"]
           for split, d, r in rows])
    print()
    print("Each at its best tolerance for as many strangers named, kept-aside half: named right of 100 (tolerance)")
    print()
    print("| strangers named, at most | facecam | face_recognition's pipeline |")
    print("|---:|---:|---:|")
    report = halves[1]

    def best(rows, strangers):
        row = max((r for r in rows if round(r["strangers_named"] * STRANGERS) <= strangers), key=lambda r: r["named_right"], default=None)
        return f"{round(row['named_right'] * ENROLLED)} ({row['tolerance']:.2f})" if row else "none"
    for strangers in (0, 1, 2, 4, 10):
        print(f"| {strangers} of {STRANGERS} | {best(report['facecam'], strangers)} | {best(report['face_recognition'], strangers)} |")
    print()
    print("`redact --spare` with all 100 enrolled people spared, at its default tolerance, over the same probes (a face is "
          "visible when the middle of the box dlib's HOG detector puts on LFW's subject is unchanged):")
    print()
    table(["LFW half", "strangers left visible (false spares)", "enrolled people left visible"],
          [[HALF_LABELS[half["split"]], f"{half['spare']['strangers_visible']} of {half['spare']['strangers']}",
            f"{half['spare']['enrolled_visible']} of {half['spare']['enrolled']}"] for half in halves])
    print()
    print(f"Verification on LFW's {pairs['pairs']} pairs of folds 1-3 (its protocol: each fold judged at the threshold "
          "that classifies the other two best):")
    print()
    table(["pipeline", "accuracy", "per fold", "photographs with no face found"],
          [[label, f"{pairs[key]['accuracy']:.3f}", " / ".join(f"{v:.3f}" for v in pairs[key]["folds"]), pairs[key]["no_face"]]
           for label, key in (("facecam", "facecam"), ("face_recognition's pipeline", "face_recognition"))])
    print()
    print(f"`detect --cluster` (threshold {CLUSTER_THRESHOLD}) over LFW photographs: in each half, up to 4 photographs of each of {CLUSTER_PEOPLE} "
          f"people with two or more and one of each of {CLUSTER_PEOPLE} with one; each photograph's central face scored against "
          "the names (pairwise: two faces of one person in one cluster is a hit):")
    print()
    table(["LFW half", "faces", "people", "clusters", "pairwise precision", "pairwise recall", "pairwise F1", "BCubed F1",
           "same split as dlib's own"],
          [[HALF_LABELS[c["split"]], c["faces"], c["people"], c["facecam"]["clusters"]]
           + [f"{c['facecam'][key]:.3f}" for key in ("precision", "recall", "f1", "bcubed_f1")]
           + ["yes" if c["same_as_dlib"] else "NO"] for c in clusterings])
    print()
    print("The threshold, swept with dlib's chinese_whispers_clustering over the same central faces (tuned-on half): "
          + ", ".join(f"{t:.2f}: {r['clusters']} clusters, F1 {r['f1']:.3f}" for t, r in clusterings[0]["sweep"].items()) + ".")
    print()
    print(f"Cost: `detect --recognize` over {cost['photographs']} LFW photographs ({cost['faces']} faces, one job, one thread) took "
          f"{cost['recognize_seconds']} s against {cost['detect_seconds']} s without it: {cost['ms_per_face']} ms a face "
          f"(best of 3 runs each, side by side).")
    if args.json:
        json.dump({"halves": halves, "pairs": pairs, "cost": cost, "clips": clips, "clusters": clusterings}, open(args.json, "w"), indent=1)
    if over or not all(c["same_as_dlib"] for c in clusterings):
        sys.exit(1)


if __name__ == "__main__":
    main()
