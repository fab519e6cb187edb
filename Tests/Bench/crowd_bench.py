#!/usr/bin/python3
"""make bench, crowds: small faces in the WIDER FACE crowd photographs of ../shared/data/crowd (read
in place; skipped, saying so, when absent), scored by Tests/Reference/wider_eval.py (WIDER's matching,
no facecam).

Two sets: the tuning set (the files whose place in name order is not a multiple of 4 minus 1: 24
photographs, what facecam's choices were made on) and the held-out set (the other 8, looked at only
to check the result).

Detection: for each detector and scales, `facecam detect` at the detector's default score threshold
(recall, precision, photographs/s) and at 0.05 (AP: the whole precision-recall curve). Rows with
--focus have no AP: at 0.05 focus would look around other traces than at the default threshold.
Video (with --clips): `facecam video` with each DNN detector at scale 1 and at scales 1,2.

Redaction: `facecam redact` with its defaults and with the other settings measured, and deface (its
defaults) when given: the share of labelled faces 12 pixels or taller left untouched (under half
their box's pixels changed), and the share of the picture changed outside every labelled box grown
twice about its centre (masks on no labelled face; mean over the photographs). Fails when the defaults leave more
than 3% of the tuning set's untouched, or of the whole set's (both sets measured); says so for the held-out set.

WIDER at full resolution (../shared/data/wider, read in place; skipped, saying so, when absent): the
same two redaction figures for `redact`'s defaults and `redact --no-size-check` on its 250 train-split
photographs (tune) and 63 validation photographs (val-seen), and for deface on val-seen. Fails when the defaults leave more than
3% of val-seen's faces untouched.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Reference"))
from wider_eval import evaluate, masked_away, records, untouched  # noqa: E402

CROWD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "crowd")
WIDER = os.path.join(os.path.dirname(CROWD), "wider")
# WIDER's full-resolution sets: tune (train split, what settings may be chosen on) and val-seen (validation, reported).
WIDER_SETS = [("tune", "train split, tuned on"), ("val-seen", "validation split, reported")]

DETECTION = [
    ("haar", ["--detector", "haar"]),
    ("yunet", ["--detector", "yunet"]),
    ("yunet, scales 1,2", ["--detector", "yunet", "--scales", "1,2"]),
    ("yunet, scales 2", ["--detector", "yunet", "--scales", "2"]),
    ("yunet, scales 1,2,3", ["--detector", "yunet", "--scales", "1,2,3"]),
    ("centerface", ["--detector", "centerface"]),
    ("centerface, scales 2", ["--detector", "centerface", "--scales", "2"]),
    ("centerface, scales 1,2", ["--detector", "centerface", "--scales", "1,2"]),
    ("centerface, scales 1,2,4", ["--detector", "centerface", "--scales", "1,2,4"]),
    ("yunet, scales 1,2, focus", ["--detector", "yunet", "--scales", "1,2", "--focus"]),
    ("centerface, scales 1,2, focus", ["--detector", "centerface", "--scales", "1,2", "--focus"]),
]

REDACTION = [
    ("redact defaults", []),
    ("redact --scales 1,2 --no-focus --no-plus-yunet (the defaults before focus)", ["--scales", "1,2", "--no-focus", "--no-plus-yunet"]),
    ("redact --scales 1,2 (two scales: faster, more small faces left)", ["--scales", "1,2"]),
    ("yunet 0.5, scales 1", ["--detector", "yunet", "--score-threshold", "0.5", "--scales", "1"]),
    ("yunet 0.5, scales 1,2", ["--detector", "yunet", "--score-threshold", "0.5", "--scales", "1,2"]),
    ("yunet 0.3, scales 1,2", ["--detector", "yunet", "--score-threshold", "0.3", "--scales", "1,2"]),
    ("centerface 0.5, scales 1,2", ["--detector", "centerface", "--score-threshold", "0.5", "--scales", "1,2"]),
    ("centerface 0.3, scales 1,2", ["--detector", "centerface", "--score-threshold", "0.3", "--scales", "1,2"]),
    ("centerface 0.2, scales 1,2", ["--detector", "centerface", "--score-threshold", "0.2", "--scales", "1,2"]),
    ("centerface 0.2, scales 2", ["--detector", "centerface", "--score-threshold", "0.2", "--scales", "2"]),
]


def deface_folder(deface, files):
    """deface over `files` in one run (its start-up once); it writes NAME_anonymized.EXT beside each.
    Returns {file name: output}."""
    subprocess.run([deface, *files], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {os.path.basename(p): os.path.splitext(p)[0] + "_anonymized" + os.path.splitext(p)[1] for p in files}


def redaction_figures(pairs, labels, label, failed):
    """(faces left untouched, faces counted, mean share masked away) over `pairs` of (label name,
    original, redacted); a missing or resized output is added to `failed`."""
    left = counted = 0
    away = []
    for name, original_path, redacted_path in pairs:
        original, redacted = cv2.imread(original_path), cv2.imread(redacted_path)
        if redacted is None or redacted.shape != original.shape:
            failed.append(f"{label}: no redacted {name}")
            continue
        a, b = untouched(original, redacted, labels[name]["boxes"])
        left, counted = left + a, counted + b
        away.append(masked_away(original, redacted, labels[name]["boxes"]))
    return left, counted, sum(away) / max(1, len(away))


def wider_redaction(facecam, deface, work):
    """`redact`'s defaults (and deface on the reported set) over ../shared/data/wider's full-resolution
    photographs: faces 12 px or taller left untouched, and the share of the picture masked away from
    labelled faces. Returns the failures: the defaults leaving over 3% of val-seen's faces, the reported
    set, since that is the target (issue 37's); the train photographs are what settings may be tuned on."""
    failed = []
    print("\n### WIDER FACE at full resolution, redaction\n")
    print("| set | redaction | photographs | faces left untouched | picture masked away from labelled faces | photographs/s |")
    print("|---|---|---:|---:|---:|---:|")
    for set_name, what in WIDER_SETS:
        root = os.path.join(WIDER, set_name)
        with open(os.path.join(root, "labels.json")) as f:
            labels = json.load(f)
        names = sorted(labels)
        # Copied as PNG, so that what a redaction did not touch stays byte for byte (JPEG would re-encode every pixel).
        copies = tempfile.mkdtemp(dir=work)
        files = []
        for n in names:
            files.append(os.path.join(copies, os.path.splitext(os.path.basename(n))[0] + ".png"))
            cv2.imwrite(files[-1], cv2.imread(os.path.join(root, "images", n)))
        runs = [("redact defaults", None, []), ("redact --no-size-check (the defaults before the size check)", None, ["--no-size-check"])]
        runs += [("deface 1.5 (its defaults)", deface, [])] if deface and set_name == "val-seen" else []
        for label, tool, options in runs:
            start = time.monotonic()
            if tool:
                try:
                    outputs = deface_folder(tool, files)
                except subprocess.CalledProcessError as error:
                    print(f"| {set_name} ({what}) | {label} | {len(names)} | failed ({error.returncode}) | | |", flush=True)
                    continue
            else:
                out = tempfile.mkdtemp(dir=work)
                subprocess.run([facecam, "redact", "--quiet", "--output-dir", out, *options, *files], check=True, stdout=subprocess.DEVNULL)
                outputs = {os.path.basename(p): os.path.join(out, os.path.basename(p)) for p in files}
            seconds = time.monotonic() - start
            pairs = [(n, path, outputs[os.path.basename(path)]) for n, path in zip(names, files)]
            left, counted, away = redaction_figures(pairs, labels, f"WIDER {set_name}, {label}", failed)
            share = left / counted if counted else 0
            print(f"| {set_name} ({what}) | {label} | {len(names)} | {left} of {counted} ({100 * share:.1f}%) "
                  f"| {100 * away:.2f}% | {len(names) / seconds:.1f} |", flush=True)
            if tool is None and not options and set_name == "val-seen" and share > 0.03:
                failed.append(f"redact's defaults leave {100 * share:.1f}% of WIDER val-seen's faces untouched (over 3%)")
    return failed


def split(names):
    tuning = [n for i, n in enumerate(names) if i % 4 != 3]
    return {"tuning": tuning, "held out": [n for n in names if n not in tuning]}


def detect(facecam, files, options, work):
    out = os.path.join(work, "detections.jsonl")
    start = time.monotonic()
    with open(out, "w") as f:
        subprocess.run([facecam, "detect", *options, *files], check=True, stdout=f)
    return records(out), time.monotonic() - start


def redact(facecam, files, options, work, deface=None):
    out = tempfile.mkdtemp(dir=work)
    start = time.monotonic()
    if deface:
        for path in files:
            stem = os.path.splitext(os.path.basename(path))[0]
            subprocess.run([deface, "--output", os.path.join(out, stem + ".png"), path], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        subprocess.run([facecam, "redact", "--quiet", "--output-dir", out, *options, *files], check=True,
                       stdout=subprocess.DEVNULL)
    return out, time.monotonic() - start


VIDEO = [
    ("yunet", ["--detector", "yunet"]),
    ("yunet, scales 1,2", ["--detector", "yunet", "--scales", "1,2"]),
    ("centerface", ["--detector", "centerface"]),
    ("centerface, scales 1,2", ["--detector", "centerface", "--scales", "1,2"]),
    ("yunet, scales 1,2, focus", ["--detector", "yunet", "--scales", "1,2", "--focus"]),
    ("centerface, scales 1,2, focus", ["--detector", "centerface", "--scales", "1,2", "--focus"]),
]


def video_speed(facecam, clips):
    """`facecam video` over each clip with each detector and scales: frames/s, and the ratio to one scale."""
    print("\n### Scales on video: `facecam video`, frames/s (ratio to the same detector at scale 1)\n")
    print("| detector | " + " | ".join(os.path.basename(c) for c in clips) + " |")
    print("|---|" + "---:|" * len(clips))
    single = {}
    for label, options in VIDEO:
        cells = []
        for clip in clips:
            frames = int(cv2.VideoCapture(clip).get(cv2.CAP_PROP_FRAME_COUNT))
            start = time.monotonic()
            subprocess.run([facecam, "video", "--quiet", *options, clip], check=True, stdout=subprocess.DEVNULL)
            rate = frames / (time.monotonic() - start)
            detector = options[1]
            single.setdefault((detector, clip), rate)
            cells.append(f"{rate:.1f} ({rate / single[(detector, clip)]:.2f})")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--deface", help="a deface executable, when it installed")
    parser.add_argument("--sets", default="tuning,held out", help="which sets to measure, comma-separated")
    parser.add_argument("--only", choices=["detection", "redaction", "wider"], help="measure one of the three")
    parser.add_argument("--clips", nargs="*", default=[], help="video clips to time each detector's scales on")
    args = parser.parse_args()
    if args.clips and args.only is None:
        video_speed(args.facecam, args.clips)
    wider_failed = []
    if args.only in (None, "wider"):
        if os.path.isdir(WIDER):
            with tempfile.TemporaryDirectory() as work:
                wider_failed = wider_redaction(args.facecam, args.deface, work)
        else:
            print(f"WIDER redaction skipped: {WIDER} is absent")
        if args.only == "wider":
            for line in wider_failed:
                print("crowd bench: " + line, file=sys.stderr)
            return 1 if wider_failed else 0
    if not os.path.isdir(CROWD):
        print(f"crowd bench skipped: {CROWD} is absent")
        return 1 if wider_failed else 0
    with open(os.path.join(CROWD, "labels.json")) as f:
        labels = json.load(f)
    sets = split(sorted(labels))
    failed, notes = [], []
    # redact's defaults over every set measured: issue 37's target is the whole crowd set's share.
    defaults_left = defaults_counted = 0
    with tempfile.TemporaryDirectory() as work:
        for set_name in args.sets.split(","):
            names = sets[set_name]
            files = [os.path.join(CROWD, n) for n in names]
            chosen = {n: labels[n] for n in names}
            faces = sum(len(label["hard"]) for label in chosen.values())
            if args.only != "redaction":
                print(f"\n### Crowds, detection: {set_name} set, {len(names)} photographs, {faces} hard-set faces\n")
                print("| detector | recall | precision | AP | photographs/s |")
                print("|---|---:|---:|---:|---:|")
                for label, options in DETECTION:
                    found, seconds = detect(args.facecam, files, options, work)
                    at_default = evaluate(found, chosen)
                    if label == "haar":
                        ap = f"{at_default['ap']:.3f}"
                    elif "--focus" in options:
                        ap = "-"
                    else:
                        ap = evaluate(detect(args.facecam, files, options + ["--score-threshold", "0.05"], work)[0], chosen)["ap"]
                        ap = f"{ap:.3f}"
                    print(f"| {label} | {at_default['recall']:.3f} | {at_default['precision']:.3f} | {ap} | "
                          f"{len(files) / seconds:.1f} |", flush=True)
            if args.only != "detection":
                tall = sum(1 for n in names for b in labels[n]["boxes"] if b[3] >= 12)
                print(f"\n### Crowds, redaction: {set_name} set, {tall} labelled faces 12 pixels or taller\n")
                print("| redaction | faces left untouched | picture masked away from labelled faces | photographs/s |")
                print("|---|---:|---:|---:|")
                runs = list(REDACTION) + ([("deface 1.5 (its defaults)", None)] if args.deface else [])
                for label, options in runs:
                    out, seconds = redact(args.facecam, files, options, work, deface=args.deface if options is None else None)
                    pairs = [(n, os.path.join(CROWD, n), os.path.join(out, n)) for n in names]
                    left, counted, away = redaction_figures(pairs, labels, label, failed)
                    share = left / counted if counted else 0
                    print(f"| {label} | {left} of {counted} ({100 * share:.1f}%) | {100 * away:.2f}% "
                          f"| {len(files) / seconds:.1f} |", flush=True)
                    if options == []:
                        defaults_left, defaults_counted = defaults_left + left, defaults_counted + counted
                    if options == [] and share > 0.03:
                        line = f"redact's defaults leave {100 * share:.1f}% of the {set_name} set's faces untouched (over 3%)"
                        # The tuning set is the target's; the held-out set reports how far it carries.
                        (failed if set_name == "tuning" else notes).append(line)
    if args.only != "detection" and set(args.sets.split(",")) == set(sets) and defaults_counted:
        share = defaults_left / defaults_counted
        print(f"\nredact's defaults over the whole crowd set: {defaults_left} of {defaults_counted} faces left untouched "
              f"({100 * share:.1f}%)")
        if share > 0.03:
            failed.append(f"redact's defaults leave {100 * share:.1f}% of the whole crowd set's faces untouched (over 3%)")
    failed += wider_failed
    for line in notes + failed:
        print("crowd bench: " + line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
