#!/usr/bin/python3
"""`make bench`: the inference engines side by side in one run, OpenVINO (facecam's default) and OpenCV's dnn.

Rows, each on the 640x480 and the 1280x720 bench clip, in rounds (each row's best round counts):
  - FaceDetectorYN alone: the C++ loop over OpenCV's own YuNet (Tests/Bench/yunet_loop.cpp);
  - facecam video --detector yunet, on each engine: frames/s against the loop, boxes within a pixel of its;
  - facecam video --detector centerface (one scale; the 1280x720 clip is searched at 1280x736, CenterFace's
    stride), on each engine: OpenVINO against OpenCV on the same frames, boxes within a pixel;
  - facecam video with redact's detector (CenterFace at 0.1, scales 1,2,3 with focus, plus YuNet), on each engine, on the
    640x480 clip.
Then peak memory of `detect --detector centerface --scales 1,2` over a folder of photographs of different
sizes (the first 15 of ../shared/data/wider/tune, linked into a scratch folder; skipped, saying so, when absent),
on each engine, and --precision bf16's speed and agreement with f32. Then what a start costs with the networks OpenVINO
compiled kept in the cache folder against a cache folder that cannot be made: CPU-seconds of `detect` and `redact` on
one photograph, the median of 8 runs each, taken in turn, and their outputs byte for byte.
Exits 1 when YuNet on OpenVINO runs at under 1.8 times the loop, CenterFace on OpenVINO at under 2 times
OpenCV's engine, the folder of photographs peaks over 1 GB on OpenVINO, any row's boxes differ from its
reference's by more than a pixel, a start with the networks kept takes over 0.8 of one that compiles them, or
their outputs differ.
"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import conclude, engine_parser, facecam_boxes, rounds, reference_boxes, timed, within_a_pixel  # noqa: E402

MEMORY_TARGET_MIB = 1024
KEPT_START_TARGET = 0.8
PHOTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "images", "two-faces.jpg")


def cpu_seconds(command, environment):
    """(user and system CPU-seconds, stdout) of one run."""
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, env=environment)
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"engine_bench: {' '.join(command)} failed")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read()


def kept_networks(facecam, verdicts):
    """The start's table: each command with its networks kept, and with a cache folder that cannot be made."""
    print("\nA start's CPU-seconds on one photograph (Fixtures/images/two-faces.jpg), median of 8 runs taken in turn: "
          "the networks OpenVINO compiled kept in the cache folder (imported), against a cache folder that cannot be "
          f"made (compiled at each start); the target is at most {KEPT_START_TARGET} of it.\n")
    print("| command | kept | compiled | ratio | outputs |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        kept = dict(os.environ, XDG_CACHE_HOME=os.path.join(folder, "kept"))
        blocked = dict(os.environ, XDG_CACHE_HOME=os.path.join(folder, "blocked"))
        os.makedirs(os.path.join(folder, "blocked", "facecam"))
        open(os.path.join(folder, "blocked", "facecam", "openvino-networks"), "w").close()
        for name, command in (("detect", [facecam, "detect", PHOTO]),
                              ("redact", [facecam, "redact", "-o", os.path.join(folder, "redacted.jpg"), PHOTO])):
            for environment in (kept, blocked):  # the first runs: the libraries' hashes and the networks kept
                cpu_seconds(command, environment)
            times = {"kept": [], "compiled": []}
            outputs = {}
            for _ in range(8):
                for label, environment in (("kept", kept), ("compiled", blocked)):
                    seconds, out = cpu_seconds(command, environment)
                    times[label].append(seconds)
                    if name == "redact":
                        with open(os.path.join(folder, "redacted.jpg"), "rb") as image:
                            out += image.read().hex()
                    outputs.setdefault(label, out)
            kept_median, compiled_median = statistics.median(times["kept"]), statistics.median(times["compiled"])
            ratio = kept_median / compiled_median
            same = outputs["kept"] == outputs["compiled"]
            print(f"| {name} | {kept_median:.3f} | {compiled_median:.3f} | {ratio:.2f} | {'the same' if same else 'DIFFER'} |")
            if ratio > KEPT_START_TARGET:
                verdicts.append(f"{name} with its networks kept takes {ratio:.2f} of a start that compiles them; the target is "
                                f"{KEPT_START_TARGET}")
            if not same:
                verdicts.append(f"{name}'s output with its networks kept differs from a start that compiles them")


def main():
    parser = engine_parser(__doc__)
    parser.add_argument("--photos", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "..", "..", "..", "shared", "data", "wider", "tune", "images"))
    args = parser.parse_args()

    video = [args.facecam, "video", "--quiet"]
    redact = ["--detector", "centerface", "--score-threshold", "0.1", "--scales", "1,2,3", "--focus", "--plus-yunet"]
    # (key, label, command, the row it is compared with, whether its boxes must be within a pixel of that row's)
    rows = []
    for size, clip in (("640x480", args.clip), ("1280x720", args.clip_720p)):
        p = "" if size == "640x480" else "H"
        rows += [
            (p + "y", f"{size}: FaceDetectorYN alone (C++ loop)", [args.yunet_loop, clip, args.model], p + "y", False),
            (p + "yo", f"{size}: video --detector yunet --engine opencv", video + ["--engine", "opencv", clip], p + "y", True),
            (p + "yv", f"{size}: video --detector yunet --engine openvino", video + ["--engine", "openvino", clip], p + "y", True),
            (p + "co", f"{size}: video --detector centerface --engine opencv",
             video + ["--detector", "centerface", "--engine", "opencv", clip], p + "co", False),
            (p + "cv", f"{size}: video --detector centerface --engine openvino",
             video + ["--detector", "centerface", "--engine", "openvino", clip], p + "co", True),
            (p + "yb", f"{size}: video --detector yunet --engine openvino --precision bf16",
             video + ["--engine", "openvino", "--precision", "bf16", clip], p + "yv", False),
        ]
    rows += [
        ("ro", f"640x480: video {' '.join(redact)} --engine opencv (redact's detector)",
         video + redact + ["--engine", "opencv", args.clip], "ro", False),
        ("rv", f"640x480: video {' '.join(redact)} --engine openvino", video + redact + ["--engine", "openvino", args.clip], "ro", True),
    ]
    best, memory, outputs = rounds(rows, args.rounds, "engine_bench")

    def boxes(key):
        return reference_boxes(outputs[key]) if key in ("y", "Hy") else facecam_boxes(outputs[key])

    frames = len(boxes("y"))
    print(f"\nClips: {os.path.basename(args.clip)} and {os.path.basename(args.clip_720p)}, {frames} frames each; "
          f"{os.cpu_count()} cores; best of {args.rounds} rounds; facecam with its defaults otherwise "
          f"(--jobs {os.cpu_count()}, one engine thread each).\n")
    print("| row | what | frames/s | x the row compared with | peak RSS MiB | faces | frames within a pixel of it |")
    print("|---|---|---:|---:|---:|---:|---|")
    verdicts = []
    for key, label, _, against, exact in rows:
        found = boxes(key)
        faces = sum(len(b) for b in found.values())
        if exact:
            reference = boxes(against)
            same = sum(1 for i, b in reference.items() if within_a_pixel(found.get(i, []), b))
            agreement = f"{same} of {frames} ({against})"
            if same != frames:
                verdicts.append(f"({key}) differs from ({against}) by more than a pixel on {frames - same} frames")
        else:
            agreement = "itself" if key == against else "not required (bf16)"
            if key.endswith("yb"):
                reference = boxes(against)
                same = sum(1 for i, b in reference.items() if within_a_pixel(found.get(i, []), b))
                agreement = f"{same} of {frames} ({against}); not required"
        ratio = best[against] / best[key]
        print(f"| ({key}) | {label} | {frames / best[key]:.1f} | {ratio:.2f} | {memory[key]:.0f} | {faces} | {agreement} |")
    for p in ("", "H"):
        if best[p + "y"] / best[p + "yv"] < 1.8:
            verdicts.append(f"({p}yv) runs at {best[p + 'y'] / best[p + 'yv']:.2f} of FaceDetectorYN's loop; the target is 1.8")
        if best[p + "co"] / best[p + "cv"] < 2:
            verdicts.append(f"({p}cv) runs at {best[p + 'co'] / best[p + 'cv']:.2f} times OpenCV's engine; the target is 2")

    photos = sorted(glob.glob(os.path.join(args.photos, "*", "*.jpg")))[:15]
    if len(photos) < 15:
        print(f"\nengine_bench: {args.photos} is absent: the memory table is left out", file=sys.stderr)
    else:
        with tempfile.TemporaryDirectory() as folder:
            for photo in photos:
                os.symlink(os.path.abspath(photo), os.path.join(folder, os.path.basename(photo)))
            print(f"\nPeak memory of `detect --detector centerface --scales 1,2` over {len(photos)} photographs of "
                  "different sizes (the first 15 of ../shared/data/wider/tune, 1024 px wide, 620 to 768 px tall), "
                  f"--jobs {os.cpu_count()}; the target is {MEMORY_TARGET_MIB} MiB.\n")
            print("| engine | seconds | peak RSS MiB | faces |")
            print("|---|---:|---:|---:|")
            command = [args.facecam, "detect", "--detector", "centerface", "--scales", "1,2", folder]
            for engine in ("opencv", "openvino"):
                seconds, rss, out = timed(command + ["--engine", engine])
                faces = out.count("\"box\"")
                print(f"| {engine} | {seconds:.1f} | {rss:.0f} | {faces} |")
                if engine == "openvino" and rss > MEMORY_TARGET_MIB:
                    verdicts.append(f"OpenVINO peaks at {rss:.0f} MiB over the photographs; the target is {MEMORY_TARGET_MIB} MiB")
    kept_networks(args.facecam, verdicts)
    conclude(verdicts, f"YuNet on OpenVINO at {best['y'] / best['yv']:.2f} (640x480) and {best['Hy'] / best['Hyv']:.2f} "
             f"(1280x720) times FaceDetectorYN's loop, every frame's boxes within a pixel on both engines; CenterFace on "
             f"OpenVINO at {best['co'] / best['cv']:.2f} and {best['Hco'] / best['Hcv']:.2f} times OpenCV's engine"
             + ("" if len(photos) < 15 else f"; the folder of photographs under {MEMORY_TARGET_MIB} MiB on OpenVINO")
             + f"; a start with its networks kept at most {KEPT_START_TARGET} of one that compiles them, the same output")


if __name__ == "__main__":
    main()
