#!/usr/bin/python3
"""`make bench`: facecam against OpenCV alone and GStreamer, side by side in one run.

Every row processes the same clip with the same cascade and parameters (scale 1.1, 3 neighbours,
minimum 30x30, flags 0). Rows run one after another, in rounds; each row's best round counts, so a
burst of load on this shared machine hurts one round, not the comparison. Ratios are to row (a).
Exits 1 when facecam's boxes differ from OpenCV's on any frame or its default run is slower than
0.95 of (a).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"


def timed(command):
    """(wall-clock seconds, peak resident MiB, stdout) of one run."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"bench: {' '.join(command)} failed: {err.read().strip()}")
        return seconds, usage.ru_maxrss / 1024, out.read()


def facecam_boxes(out):
    return {r["frame"]: [f["box"] for f in r["faces"]] for r in map(json.loads, out.splitlines())}


def reference_boxes(out):
    return {r["frame"]: r["boxes"] for r in map(json.loads, out.splitlines())}


def gstreamer_faces(out):
    """Faces per frame from facedetect's bus messages (one message per frame)."""
    return [line.count("face\\,") for line in out.splitlines() if 'from element "facedetect' in line]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--clip", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    cores = os.cpu_count()
    rows = [
        ("a", "OpenCV alone: decode, grey, equalise, detectMultiScale (C++ loop)",
         [args.reference, args.clip, CASCADE], reference_boxes),
        ("b", f"facecam video (defaults: --jobs {cores}, OpenCV on 1 thread)",
         [args.facecam, "video", "--quiet", args.clip], facecam_boxes),
        ("b1", f"facecam video --jobs 1 (OpenCV on {cores} threads)",
         [args.facecam, "video", "--quiet", "--jobs", "1", args.clip], facecam_boxes),
        ("b2", f"facecam video --jobs {cores} --opencv-threads {cores}",
         [args.facecam, "video", "--quiet", "--opencv-threads", str(cores), args.clip], facecam_boxes),
    ]
    gst = shutil.which("gst-launch-1.0")
    if gst and subprocess.run(["gst-inspect-1.0", "facedetect"], capture_output=True).returncode == 0:
        rows.append(("c", "GStreamer facedetect (avidemux ! jpegdec ! videoconvert ! facedetect ! fakesink)",
                     [gst, "-m", "filesrc", f"location={args.clip}", "!", "avidemux", "!", "jpegdec", "!",
                      "videoconvert", "!", "facedetect", f"profile={CASCADE}", "scale-factor=1.1", "min-neighbors=3",
                      "min-size-width=30", "min-size-height=30", "flags=0", "display=false", "updates=every_frame",
                      "!", "fakesink", "sync=false"], gstreamer_faces))
    else:
        print("bench: GStreamer's facedetect is not installed; row (c) left out", file=sys.stderr)

    best, memory, outputs = {}, {}, {}
    for round_number in range(args.rounds):
        for key, label, command, _ in rows:
            seconds, rss, out = timed(command)
            print(f"bench: round {round_number + 1}, row ({key}): {seconds:.2f} s", file=sys.stderr)
            best[key] = min(seconds, best.get(key, seconds))
            memory[key] = max(rss, memory.get(key, 0))
            outputs[key] = out

    reference = reference_boxes(outputs["a"])
    frames = len(reference)
    print(f"\nClip: {args.clip}, {frames} frames; {cores} cores; best of {args.rounds} rounds.\n")
    print("| row | what | frames/s | x (a) | peak RSS MiB | faces | frames with (a)'s boxes |")
    print("|---|---|---:|---:|---:|---:|---|")
    verdicts = []
    for key, label, _, parse in rows:
        fps = frames / best[key]
        found = parse(outputs[key])
        if isinstance(found, dict):
            same = sum(1 for i, boxes in reference.items() if found.get(i) == boxes)
            faces = sum(len(b) for b in found.values())
            agreement = f"{same} of {frames}"
            if same != frames:
                verdicts.append(f"({key}) differs from OpenCV's boxes on {frames - same} frames")
        else:
            faces = sum(found)
            agreement = "not compared (counts only)"
        print(f"| ({key}) | {label} | {fps:.1f} | {best['a'] / best[key]:.2f} | {memory[key]:.0f} | {faces} | {agreement} |")
    ratio = best["a"] / best["b"]
    if ratio < 0.95:
        verdicts.append(f"(b) runs at {ratio:.2f} of (a)'s frames per second; the target is 0.95")
    print()
    if verdicts:
        print("FAIL: " + "; ".join(verdicts))
        sys.exit(1)
    print(f"PASS: (b) at {ratio:.2f} of (a)'s frames per second with OpenCV's boxes on every frame")


if __name__ == "__main__":
    main()
