#!/usr/bin/python3
"""`make bench`: facecam against OpenCV alone and GStreamer, side by side in one run.

Haar rows process the bench clip (640x480) with the same cascade and parameters (scale 1.1,
3 neighbours, minimum 30x30, flags 0); YuNet rows the bench clip and a 1280x720 one with
FaceDetectorYN's defaults (score 0.9, NMS 0.3, top 5000). Rows run one after another, in rounds;
each row's best round counts, so a burst of load on this shared machine hurts one round, not the
comparison. Each row's ratio is to the OpenCV-alone loop it is compared with.
Fast mode's boxes are scored against exact mode's (recall and precision at IoU >= 0.5), on the
bench clip and on every fixture clip and ../shared/data/video clip; and both clips are played as a
live camera at 30 frames/s, with each detector, to count dropped frames.
Exits 1 when facecam's exact boxes differ from its loop's on any frame (Haar: at all; YuNet: by
more than a pixel), an exact row runs slower than 0.95 of its loop, Haar's fast mode runs under
30 frames/s or scores under 0.95, YuNet's fast mode runs the 1280x720 clip under 30 frames/s, or
live fast mode drops 5% or more (Haar at 640x480, YuNet at 1280x720), or YuNet's fast mode, on the
../shared clips scaled to 1280x720 (held out), scores under 0.95 or runs under 2.5 times exact mode.
"""
import argparse
import glob
import json
import re
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


def within_a_pixel(a, b):
    """Two frames' box lists agree within a pixel in every value."""
    return len(a) == len(b) and all(all(abs(p - q) <= 1 for p, q in zip(x, y)) for x, y in zip(a, b))


def facecam_boxes(out):
    return {r["frame"]: [f["box"] for f in r["faces"]] for r in map(json.loads, out.splitlines())}


def reference_boxes(out):
    return {r["frame"]: r["boxes"] for r in map(json.loads, out.splitlines())}


def rounds(rows, count, name):
    """Runs each row's command `count` times, the rows one after another in each round: each row's best seconds,
    its largest peak RSS and its last output, by key."""
    best, memory, outputs = {}, {}, {}
    for round_number in range(count):
        for key, _, command, *_ in rows:
            seconds, rss, out = timed(command)
            print(f"{name}: round {round_number + 1}, row ({key}): {seconds:.2f} s", file=sys.stderr)
            best[key] = min(seconds, best.get(key, seconds))
            memory[key] = max(rss, memory.get(key, 0))
            outputs[key] = out
    return best, memory, outputs


def conclude(verdicts, passed):
    """A bench's last line: FAIL and the verdicts (exit status 1) when there are any, else PASS and `passed`."""
    print()
    if verdicts:
        print("FAIL: " + "; ".join(verdicts))
        sys.exit(1)
    print("PASS: " + passed)


def clip_parser(description):
    """The arguments of a bench that times `facecam` on one clip in rounds: --facecam, --clip, --rounds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--clip", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    return parser


def clip_arguments(description):
    """clip_parser's arguments, parsed."""
    return clip_parser(description).parse_args()


def engine_parser(description):
    """The speed and engine benches' arguments: clip_parser's, the 1280x720 clip, the YuNet loop and its model."""
    parser = clip_parser(description)
    for name in ("--clip-720p", "--yunet-loop", "--model"):
        parser.add_argument(name, required=True)
    return parser


def overlap(a, b):
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def agreement(exact, fast):
    """(matched, exact faces, fast faces): each exact box matched to the unmatched fast box of the same
    frame overlapping it most, when IoU >= 0.5."""
    matched = n_exact = n_fast = 0
    for frame, boxes in exact.items():
        left = list(fast.get(frame, []))
        n_exact += len(boxes)
        n_fast += len(left)
        for box in boxes:
            best = max(range(len(left)), key=lambda i: overlap(box, left[i]), default=None)
            if best is not None and overlap(box, left[best]) >= 0.5:
                matched += 1
                left.pop(best)
    return matched, n_exact, n_fast


def score(matched, n_exact, n_fast):
    return matched / max(n_exact, 1), matched / max(n_fast, 1)


def gstreamer_faces(out):
    """Faces per frame from facedetect's bus messages (one message per frame)."""
    return [line.count("face\\,") for line in out.splitlines() if 'from element "facedetect' in line]


def yunet_fast_held_out(facecam, gifs):
    """YuNet's fast mode against its exact mode at 1280x720 on clips it was not tuned on: the
    ../shared clips (480x270) scaled up with ffmpeg (bicubic). Verdicts when recall or precision
    over all of them is under 0.95, or fast mode runs under 2.5 times exact mode's speed."""
    if not gifs:
        return []
    print("\n| ../shared clip at 1280x720, yunet | exact faces | fast faces | recall | precision | exact s | fast s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    totals, seconds = [0, 0, 0], [0.0, 0.0]
    with tempfile.TemporaryDirectory(prefix="facecam-bench-720-") as work:
        for gif in gifs:
            clip = os.path.join(work, os.path.basename(gif) + ".avi")
            subprocess.run(["ffmpeg", "-v", "error", "-i", gif, "-vf", "scale=1280:720:flags=bicubic", "-c:v", "mjpeg",
                            "-q:v", "2", clip], check=True)
            exact_s, _, exact_out = timed([facecam, "video", "--quiet", "--detector", "yunet", clip])
            fast_s, _, fast_out = timed([facecam, "video", "--quiet", "--detector", "yunet", "--fast", clip])
            counts = agreement(facecam_boxes(exact_out), facecam_boxes(fast_out))
            totals = [t + c for t, c in zip(totals, counts)]
            seconds = [seconds[0] + exact_s, seconds[1] + fast_s]
            r, p = score(*counts)
            print(f"| {os.path.basename(gif)} | {counts[1]} | {counts[2]} | {r:.3f} | {p:.3f} | {exact_s:.2f} | {fast_s:.2f} |")
    r, p = score(*totals)
    ratio = seconds[0] / seconds[1]
    print(f"| all of them | {totals[1]} | {totals[2]} | {r:.3f} | {p:.3f} | {seconds[0]:.2f} | {seconds[1]:.2f} |")
    print(f"\nYuNet's fast mode on held-out 1280x720 clips: {ratio:.2f} x exact mode, recall {r:.3f}, precision {p:.3f}.")
    if r < 0.95 or p < 0.95 or ratio < 2.5:
        return [f"YuNet's fast mode on held-out 1280x720 clips: recall {r:.3f}, precision {p:.3f}, {ratio:.2f} x exact; "
                "the target is 0.95, 0.95, 2.5"]
    return []


def main():
    parser = engine_parser(__doc__)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--fixtures", default="Fixtures")
    parser.add_argument("--shared-video", default="../shared/data/video")
    args = parser.parse_args()

    cores = os.cpu_count()
    clip720 = args.clip_720p
    # (key, label, command, parse, the loop it is compared with, whether boxes must equal the loop's)
    rows = [
        ("a", "OpenCV alone: decode, grey, equalise, detectMultiScale (C++ loop)",
         [args.reference, args.clip, CASCADE], reference_boxes, "a", False),
        ("b", f"facecam video --detector haar (defaults: --jobs {cores}, OpenCV on 1 thread)",
         [args.facecam, "video", "--quiet", "--detector", "haar", args.clip], facecam_boxes, "a", True),
        ("b1", f"facecam video --detector haar --jobs 1 (OpenCV on {cores} threads)",
         [args.facecam, "video", "--quiet", "--detector", "haar", "--jobs", "1", args.clip], facecam_boxes, "a", True),
        ("b2", f"facecam video --detector haar --jobs {cores} --threads {cores}",
         [args.facecam, "video", "--quiet", "--detector", "haar", "--threads", str(cores), args.clip], facecam_boxes, "a", True),
        ("f", "facecam video --detector haar --fast (defaults: --detect-width 640, --full-search-every 5)",
         [args.facecam, "video", "--quiet", "--detector", "haar", "--fast", args.clip], facecam_boxes, "a", False),
        ("ya", "OpenCV alone: decode, FaceDetectorYN (C++ loop)",
         [args.yunet_loop, args.clip, args.model], reference_boxes, "ya", False),
        ("yb", f"facecam video --detector yunet (defaults: OpenVINO, --jobs {cores}, 1 thread each)",
         [args.facecam, "video", "--quiet", "--detector", "yunet", args.clip], facecam_boxes, "ya", True),
        ("yb1", f"facecam video --detector yunet --jobs 1 (OpenVINO on {cores} threads)",
         [args.facecam, "video", "--quiet", "--detector", "yunet", "--jobs", "1", args.clip], facecam_boxes, "ya", True),
        ("Ya", "1280x720: OpenCV alone, FaceDetectorYN (C++ loop)",
         [args.yunet_loop, clip720, args.model], reference_boxes, "Ya", False),
        ("Yb", "1280x720: facecam video --detector yunet",
         [args.facecam, "video", "--quiet", "--detector", "yunet", clip720], facecam_boxes, "Ya", True),
        ("Yf", "1280x720: facecam video --detector yunet --fast (--detect-width 640)",
         [args.facecam, "video", "--quiet", "--detector", "yunet", "--fast", clip720], facecam_boxes, "Ya", False),
    ]
    gst = shutil.which("gst-launch-1.0")
    if gst and subprocess.run(["gst-inspect-1.0", "facedetect"], capture_output=True).returncode == 0:
        rows.append(("c", "GStreamer facedetect (avidemux ! jpegdec ! videoconvert ! facedetect ! fakesink)",
                     [gst, "-m", "filesrc", f"location={args.clip}", "!", "avidemux", "!", "jpegdec", "!",
                      "videoconvert", "!", "facedetect", f"profile={CASCADE}", "scale-factor=1.1", "min-neighbors=3",
                      "min-size-width=30", "min-size-height=30", "flags=0", "display=false", "updates=every_frame",
                      "!", "fakesink", "sync=false"], gstreamer_faces, "a", False))
    else:
        print("bench: GStreamer's facedetect is not installed; row (c) left out", file=sys.stderr)

    best, memory, outputs = rounds(rows, args.rounds, "bench")

    frames = len(reference_boxes(outputs["a"]))
    print(f"\nClips: {args.clip} and {clip720}, {frames} frames each; {cores} cores; best of {args.rounds} rounds.\n")
    print("| row | what | frames/s | x its loop | peak RSS MiB | faces | frames with its loop's boxes |")
    print("|---|---|---:|---:|---:|---:|---|")
    verdicts = []
    for key, label, _, parse, loop, exact in rows:
        fps = frames / best[key]
        found = parse(outputs[key])
        reference = reference_boxes(outputs[loop])
        if isinstance(found, dict):
            faces = sum(len(b) for b in found.values())
            if exact:
                agree = within_a_pixel if key.lower().startswith("y") else (lambda x, y: x == y)
                same = sum(1 for i, boxes in reference.items() if agree(found.get(i, []), boxes))
                same_boxes = f"{same} of {frames}" + (" (within a pixel)" if agree is within_a_pixel else "")
                if same != frames:
                    verdicts.append(f"({key}) differs from ({loop})'s boxes on {frames - same} frames")
                # The defaults are held to the speed target; the other arrangements are measured beside them.
                if key in ("b", "yb", "Yb") and best[loop] / best[key] < 0.95:
                    verdicts.append(f"({key}) runs at {best[loop] / best[key]:.2f} of ({loop})'s frames per second; "
                                    "the target is 0.95")
            else:
                same_boxes = "the loop itself" if key == loop else "not the aim (scored below)"
        else:
            faces = sum(found)
            same_boxes = "not compared (counts only)"
        print(f"| ({key}) | {label} | {fps:.1f} | {best[loop] / best[key]:.2f} | {memory[key]:.0f} | {faces} | {same_boxes} |")
    ratio = best["a"] / best["b"]
    yunet_fast_fps = frames / best["Yf"]
    recall720, precision720 = score(*agreement(facecam_boxes(outputs["Yb"]), facecam_boxes(outputs["Yf"])))
    print(f"\nYuNet's fast mode (Yf) against its exact mode (Yb) on the 1280x720 clip: {yunet_fast_fps:.1f} frames/s, "
          f"recall {recall720:.3f}, precision {precision720:.3f}.")
    if yunet_fast_fps < 30:
        verdicts.append(f"YuNet's fast mode runs the 1280x720 clip at {yunet_fast_fps:.1f} frames/s; the target is 30")

    # Fast mode against exact mode.
    fast_fps = frames / best["f"]
    recall, precision = score(*agreement(facecam_boxes(outputs["b"]), facecam_boxes(outputs["f"])))
    print(f"\nFast mode (f) against exact mode (b) on the bench clip: {fast_fps:.1f} frames/s "
          f"({best['b'] / best['f']:.2f} x exact), recall {recall:.3f}, precision {precision:.3f}.")
    if fast_fps < 30 or recall < 0.95 or precision < 0.95:
        verdicts.append(f"fast mode: {fast_fps:.1f} frames/s, recall {recall:.3f}, precision {precision:.3f}; "
                        "the target is 30, 0.95, 0.95")
    clips = sorted(glob.glob(os.path.join(args.fixtures, "video", "*.*")))
    # damaged.mp4 tests damage, not detection: it loses a frame on purpose.
    clips = [c for c in clips if not c.endswith(".json") and os.path.basename(c) != "damaged.mp4"]
    shared = sorted(glob.glob(os.path.join(args.shared_video, "*.gif"))) if args.shared_video else []
    if not shared:
        print("bench: ../shared/data/video is absent; its clips are left out of the quality table", file=sys.stderr)
    print("\n| clip | exact faces | fast faces | recall | precision |")
    print("|---|---:|---:|---:|---:|")
    totals = [0, 0, 0]
    for clip in clips + shared:
        exact = facecam_boxes(timed([args.facecam, "video", "--quiet", "--detector", "haar", clip])[2])
        fast = facecam_boxes(timed([args.facecam, "video", "--quiet", "--detector", "haar", "--fast", clip])[2])
        counts = agreement(exact, fast)
        totals = [t + c for t, c in zip(totals, counts)]
        r, p = score(*counts)
        print(f"| {os.path.basename(clip)} | {counts[1]} | {counts[2]} | {r:.3f} | {p:.3f} |")
    r, p = score(*totals)
    print(f"| all of them | {totals[1]} | {totals[2]} | {r:.3f} | {p:.3f} |")
    verdicts += yunet_fast_held_out(args.facecam, shared)

    # Both clips as a live camera at 30 frames/s, with each detector.
    print("\n| live --source CLIP --realtime (30 frames/s) | captured | processed | dropped | mean latency |")
    print("|---|---:|---:|---:|---:|")
    for clip, size in ((args.clip, "640x480"), (clip720, "1280x720")):
        for detector in ("haar", "yunet"):
            for fast in (False, True):
                command = [args.facecam, "live", "--source", clip, "--realtime", "--detector", detector]
                err = subprocess.run(command + (["--fast"] if fast else []), capture_output=True, text=True).stderr
                label = f"{size}, {detector}" + (", --fast" if fast else "")
                summary = re.search(r"captured (\d+) frames, processed (\d+), dropped (\d+).*mean (\d+) ms", err)
                if summary is None:
                    verdicts.append(f"live {label}: no summary ({err.strip()[-200:]})")
                    continue
                captured, processed, dropped, latency = map(int, summary.groups())
                print(f"| {label} | {captured} | {processed} | {dropped} ({100 * dropped / captured:.1f}%) | {latency} ms |")
                must_keep_up = fast and (detector, size) in (("haar", "640x480"), ("yunet", "1280x720"))
                if must_keep_up and dropped >= 0.05 * captured:
                    verdicts.append(f"live {label} dropped {dropped} of {captured} frames; the target is under 5%")
    conclude(verdicts, f"(b) at {ratio:.2f} of (a)'s frames per second with OpenCV's boxes on every frame; "
             f"(yb) at {best['ya'] / best['yb']:.2f} of (ya)'s and (Yb) at {best['Ya'] / best['Yb']:.2f} of (Ya)'s, "
             f"with FaceDetectorYN's boxes on every frame; Haar's fast mode at {fast_fps:.1f} frames/s with recall "
             f"{recall:.3f} and precision {precision:.3f}; YuNet's at {yunet_fast_fps:.1f} frames/s on 1280x720")


if __name__ == "__main__":
    main()
