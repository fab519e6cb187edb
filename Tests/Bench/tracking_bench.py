#!/usr/bin/python3
"""`make bench`, tracking and fast mode on synthesised ground-truth clips.

Clips from Tests/Reference/synthetic_clips.py: seeds 1 to 4 are the ones the tracker was tried on
while it was built, seeds 5 to 8 are held out (never looked at before this table). Fast mode's
search of what changed was tuned on seeds 1 to 8 (and the other clips bench.py scores); seeds 9 to
16 were made after it was fixed and are its held-out set. Following faces in place (cfd_search_in_place)
was built looking at seeds 1 to 16; seeds 17 to 24 (640x480) and 25 to 28 (720x528, the size of the
tracking issue's held-out clip) were made before it and first looked at once it was fixed. Following
down to a third of a face's size, and YuNet's fast mode shrinking only frames it halves, were built
looking at seeds 1 to 28; seeds 29 to 36 (640x480) and 37 to 40 (720x528) were made before them and
first looked at once they were fixed. Prints:
- per detector and --every (1, 3, 6): id switches (a truth face found in two consecutive processed
  frames under two ids; the requirement is none) and IDF1, for the tuning and the held-out seeds;
- fast mode against exact mode (recall and precision at IoU >= 0.5, as bench.py scores them) per
  clip, for each detector, seeds 1 to 40.
Exits 1 on any id switch, or when fast mode scores under 0.95 on a clip (the target).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import agreement, conclude, score  # noqa: E402
from tracking_quality import score as tracking_score  # noqa: E402

TUNING, HELD_OUT = (1, 2, 3, 4), (5, 6, 7, 8)
FAST_HELD_OUT = tuple(range(9, 17))
FOLLOW_HELD_OUT, FOLLOW_HELD_OUT_720 = tuple(range(17, 25)), tuple(range(25, 29))
BAND_HELD_OUT, BAND_HELD_OUT_720 = tuple(range(29, 37)), tuple(range(37, 41))
LARGER = FOLLOW_HELD_OUT_720 + BAND_HELD_OUT_720
FAST_CLIPS = TUNING + HELD_OUT + FAST_HELD_OUT + FOLLOW_HELD_OUT + FOLLOW_HELD_OUT_720 + BAND_HELD_OUT + BAND_HELD_OUT_720


def records(command):
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def boxes(lines):
    return {r["frame"]: [f["box"] for f in r["faces"]] for r in lines if "faces" in r}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--clips", required=True, help="where the synthesised clips are made")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "..", "Reference", "synthetic_clips.py"), "Fixtures", args.clips]
                   + [str(s) for s in FAST_CLIPS if s not in LARGER], check=True)
    larger = os.path.join(args.clips, "720x528")
    subprocess.run([sys.executable, os.path.join(here, "..", "Reference", "synthetic_clips.py"), "Fixtures", larger]
                   + [str(s) for s in LARGER] + ["--size", "720x528"], check=True)
    truth = json.load(open(os.path.join(args.clips, "truth.json")))
    clip = lambda seed: os.path.join(larger if seed in LARGER else args.clips, f"synthetic-{seed}.avi")
    verdicts = []

    print("\n| detector | --every | switches (tuning) | IDF1 (tuning) | switches (held out) | IDF1 (held out) |")
    print("|---|---:|---:|---:|---:|---:|")
    exact = {}
    for detector in ("haar", "yunet"):
        for every in (1, 3, 6):
            cells = []
            for seeds in (TUNING, HELD_OUT):
                switches, idf1 = 0, []
                for seed in seeds:
                    lines = records([args.facecam, "video", "--quiet", "--detector", detector, "--every", str(every),
                                     clip(seed)])
                    if every == 1:
                        exact[(detector, seed)] = lines
                    s = tracking_score(truth[f"synthetic-{seed}.avi"], lines)
                    switches += s["switches"]
                    idf1.append(s["idf1"])
                cells += [str(switches), f"{sum(idf1) / len(idf1):.3f}"]
                if switches:
                    verdicts.append(f"{detector} --every {every}: {switches} id switches")
            print(f"| {detector} | {every} | " + " | ".join(cells) + " |")

    print("\n| clip | detector | exact faces | fast faces | recall | precision |")
    print("|---|---|---:|---:|---:|---:|")
    for detector in ("haar", "yunet"):
        for seed in FAST_CLIPS:
            if (detector, seed) not in exact:
                exact[(detector, seed)] = records([args.facecam, "video", "--quiet", "--detector", detector, clip(seed)])
            fast = records([args.facecam, "video", "--quiet", "--detector", detector, "--fast", clip(seed)])
            counts = agreement(boxes(exact[(detector, seed)]), boxes(fast))
            r, p = score(*counts)
            part = ("720x528, " if seed in LARGER else "") + (
                "band's held out" if seed in BAND_HELD_OUT + BAND_HELD_OUT_720
                else "following's held out" if seed in FOLLOW_HELD_OUT + FOLLOW_HELD_OUT_720
                else "change search's held out" if seed in FAST_HELD_OUT
                else "tracking's held out" if seed in HELD_OUT else "tuning")
            print(f"| synthetic-{seed} ({part}) | {detector} | {counts[1]} | {counts[2]} | {r:.3f} | {p:.3f} |")
            if r < 0.95 or p < 0.95:
                verdicts.append(f"{detector} fast mode on synthetic-{seed}: recall {r:.3f}, precision {p:.3f}")
    conclude(verdicts, "no id switches; fast mode at 0.95 or more against exact mode on every synthesised clip")


if __name__ == "__main__":
    main()
