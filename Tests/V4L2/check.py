#!/usr/bin/python3
"""Judges what in-vm.sh recorded against vivid, and makes the looped frame beforehand.

  check.py frame FIXTURES OUT    writes OUT/face.yuyv (720x480 YUYV) and OUT/expected.json
  check.py judge OUT             prints one line per check and 'N passed, M failed'; exit 1 on a failure
"""
import json
import os
import re
import sys

SUMMARY = re.compile(r"captured (\d+) frames, processed (\d+), dropped (\d+)")


def make_frame(fixtures, out):
    """astronaut.png letterboxed into 720x480 (scaled by 480/512, centred), as packed YUYV."""
    import cv2
    import numpy as np
    image = cv2.imread(os.path.join(fixtures, "images", "astronaut.png"))
    scale = 480 / 512
    frame = np.zeros((480, 720, 3), np.uint8)
    frame[:, 120:600] = cv2.resize(image, (480, 480), interpolation=cv2.INTER_AREA)
    yuv = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV).astype(np.int32)
    packed = np.empty((480, 720, 2), np.uint8)
    packed[:, :, 0] = yuv[:, :, 0]
    # 4:2:2: each pair of pixels shares the mean of their U (even place) and V (odd place).
    u = (yuv[:, 0::2, 1] + yuv[:, 1::2, 1] + 1) // 2
    v = (yuv[:, 0::2, 2] + yuv[:, 1::2, 2] + 1) // 2
    packed[:, 0::2, 1] = u
    packed[:, 1::2, 1] = v
    packed.tofile(os.path.join(out, "face.yuyv"))
    # The fixture's own expectations (OpenCV's Haar and YuNet on astronaut.png), carried through the
    # same letterboxing.
    with open(os.path.join(fixtures, "expectations.jsonl")) as f:
        cases = [json.loads(line) for line in f if '"images/astronaut.png"' in line]
    expected = {}
    for key, options in (("box", {"detector": "haar"}), ("yunet_box", {"detector": "yunet"})):
        x, y, w, h = next(c for c in cases if c["options"] == options)["boxes"][0]
        expected[key] = [x * scale + 120, y * scale, w * scale, h * scale]
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    w = max(0, min(ax2, bx2) - max(a[0], b[0]))
    h = max(0, min(ay2, by2) - max(a[1], b[1]))
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def judge_virtual_camera(out, check, read, expectations):
    """redact-device: what vivid's second capture node showed of facecam's --output-device frames."""
    import cv2
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Reference"))
    from opencv_faces import yunet
    status, err = read("redact-device.status").strip(), read("redact-device.err")
    check("redact-device: exit status 0 after SIGINT", status == "0", f"status {status}: {err.strip()[-300:]}")
    # YuNet on the camera's frames: the face where the fixture's YuNet expectation says, with a score and five landmarks.
    records = [json.loads(line) for line in read("redact-device.out").splitlines()]
    expected_yunet = expectations.get("yunet_box")
    found = [f["box"] for r in records for f in r["faces"]]
    check("redact-device: YuNet finds the looped face where the fixture's YuNet expectation says (IoU >= 0.5)",
          bool(records) and bool(expected_yunet) and all(any(iou(f["box"], expected_yunet) >= 0.5 for f in r["faces"])
                                                          for r in records),
          f"expected {[round(v) for v in expected_yunet or []]}, found {found}")
    check("redact-device: each face has a score and five landmarks", bool(found) and all(
        0 <= f.get("score", -1) <= 1 and len(f.get("landmarks", [])) == 5 for r in records for f in r["faces"]))
    written = re.search(r"wrote (\d+) frames to /dev/video3", err)
    check("redact-device: frames were written to the output device", bool(written) and int(written.group(1)) > 0,
          err.strip()[-300:])

    def frames(name):
        path = os.path.join(out, name)
        raw = np.fromfile(path, np.uint8) if os.path.exists(path) else np.zeros(0, np.uint8)
        count = raw.size // (720 * 480 * 2)
        return [cv2.cvtColor(raw[k * 720 * 480 * 2:(k + 1) * 720 * 480 * 2].reshape(480, 720, 2), cv2.COLOR_YUV2BGR_YUYV)
                for k in range(count)]

    looped, shown = frames("face.yuyv"), frames("redacted.yuyv")
    check("redact-device: v4l2-ctl read frames from the looped capture node", len(shown) >= 1,
          read("redacted-capture.log").strip()[-300:])
    check("redact-device: OpenCV's YuNet finds the face in the camera's frame",
          bool(looped) and len(yunet(looped[0])) == 1)
    box = expectations.get("yunet_box")
    if not (shown and looped and box):
        return
    x, y, w, h = (int(round(v)) for v in box)
    # Outside the face (enlarged twice), the virtual camera shows the camera's picture, not a test pattern.
    outside = np.ones((480, 720), bool)
    outside[max(0, y - h // 2):y + h + h // 2, max(0, x - w // 2):x + w + w // 2] = False
    for k, frame in enumerate(shown):
        faces = yunet(frame)
        check(f"redact-device: frame {k}: YuNet finds no face", not faces, f"{faces}")
        difference = np.abs(frame.astype(int) - looped[0].astype(int))
        check(f"redact-device: frame {k}: the picture outside the face is the camera's (mean difference < 8)",
              difference[outside].mean() < 8, f"{difference[outside].mean():.1f}")
        check(f"redact-device: frame {k}: the face is changed (mean difference > 8)",
              difference[y:y + h, x:x + w].mean() > 8, f"{difference[y:y + h, x:x + w].mean():.1f}")


def judge_serve(out, check, read):
    """serve: live --serve from vivid's looped face, fetched with curl inside the VM."""
    import subprocess
    status, err = read("serve.status").strip(), read("serve.err")
    check("serve: exit status 0 after SIGINT", status == "0", f"status {status}: {err.strip()[-300:]}")
    summary = SUMMARY.search(err)
    records = read("serve.out").splitlines()
    check("serve: one record per processed frame", bool(summary) and len(records) == int(summary.group(2)) > 0,
          err.strip()[-300:])
    check("serve: the page answered 200", read("serve-page.status").strip() == "200"
          and "stream.mjpg" in read("serve-page.html"))
    check("serve: the snapshot answered 200", read("serve-snapshot.status").strip() == "200")
    # The snapshot judged as the browser test judges screenshots: the outline on the face OpenCV finds.
    here = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "Reference", "preview_check.py"),
                             os.path.join(out, "serve-snapshot.jpg")], capture_output=True, text=True)
    verdict = json.loads(result.stdout) if result.returncode == 0 else {}
    check("serve: the snapshot shows the camera's face outlined (IoU >= 0.5 with OpenCV's face)",
          verdict.get("overlap", 0) >= 0.5, f"{verdict or result.stderr.strip()[-200:]}")
    processed = re.search(r"^facecam_frames_processed_total (\d+)", read("serve-metrics.txt"), re.M)
    check("serve: /metrics counted the processed frames", bool(processed) and int(processed.group(1)) > 0,
          read("serve-metrics.txt")[:300])


def judge(out):
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else ""))

    def read(name):
        path = os.path.join(out, name)
        return open(path).read() if os.path.exists(path) else ""

    check("the VM ran to the end", read("finished").strip() == "done")
    check("vivid loaded", read("modprobe.status").strip() == "0", read("modprobe.log").strip())

    def live_run(name, frames, size, until_a_face_enters=False):
        """A live run of `frames` frames; `until_a_face_enters` (--exit-on enter), of at most that many, its records
        ending with the frame the face entered: the frames detected after it are counted but not written."""
        status, err = read(f"{name}.status").strip(), read(f"{name}.err")
        records = [json.loads(line) for line in read(f"{name}.out").splitlines()]
        check(f"{name}: exit status 0", status == "0", f"status {status}: {err.strip()[-300:]}")
        summary = SUMMARY.search(err)
        check(f"{name}: summary printed", summary is not None, err.strip()[-300:])
        if summary:
            captured, processed, dropped = map(int, summary.groups())
            if until_a_face_enters:
                check(f"{name}: at most {frames} frames captured", 0 < captured <= frames, f"{captured}")
                check(f"{name}: no more records than frames processed (none after the face's entry)",
                      0 < len(records) <= processed, f"{len(records)} vs {processed}")
                check(f"{name}: the last record, and only it, has the face", bool(records)
                      and [bool(r["faces"]) for r in records] == [False] * (len(records) - 1) + [True])
            else:
                check(f"{name}: {frames} frames captured", captured == frames, f"{captured}")
                check(f"{name}: one record per processed frame", len(records) == processed,
                      f"{len(records)} vs {processed}")
            check(f"{name}: processed + dropped = captured", processed + dropped == captured,
                  f"{processed} + {dropped} vs {captured}")
        check(f"{name}: no error line", not any(l.startswith("facecam:") and "captured" not in l and "warning" not in l
                                                 for l in err.splitlines()), err.strip()[-300:])
        check(f"{name}: frames are {size[0]}x{size[1]}", bool(records) and all(r["size"] == size for r in records))
        times = [r["time"] for r in records]
        sequences = [r["sequence"] for r in records]
        check(f"{name}: times start at 0 and rise", bool(times) and times[0] == 0 and times == sorted(times)
              and len(set(times)) == len(times), f"{times}")
        # Never falling, not strictly rising: the numbers are the driver's, and vivid under emulation
        # once stamped two buffers 14 ms apart with one number (0, 0, 1, 2); the unique times above
        # show facecam wrote each frame once.
        check(f"{name}: sequence numbers never fall", bool(sequences) and sequences == sorted(sequences),
              f"{sequences}")
        return records

    for name in ("webcam-yuyv", "webcam-auto"):
        live_run(name, 10, [640, 360])
    records = live_run("loop", 6, [720, 480])
    expectations = json.load(open(os.path.join(out, "expected.json"))) if os.path.exists(
        os.path.join(out, "expected.json")) else {}
    expected = expectations.get("box")
    found = [f["box"] for r in records for f in r["faces"]]
    if expected:
        best = max((iou(box, expected) for box in found), default=0)
        check("loop: the looped face is found where the fixture's expectation says (IoU >= 0.5)",
              len(records) > 0 and all(any(iou(f["box"], expected) >= 0.5 for f in r["faces"]) for r in records),
              f"best IoU {best:.2f}; expected {[round(v) for v in expected]}, found {found}")
    fast = live_run("loop-fast", 300, [720, 480], until_a_face_enters=True)
    check("loop-fast: the looped face is found", any(
        any(iou(f["box"], expected) >= 0.5 for f in r["faces"]) for r in fast) if expected else False)
    summary = SUMMARY.search(read("loop-fast.err"))
    missed = re.search(r"(\d+) more never left the driver", read("loop-fast.err"))
    if summary:
        captured, processed, dropped = map(int, summary.groups())
        print(f"note: under emulation fast mode processed {processed} of {captured} frames captured "
              f"({dropped} dropped while detecting); the driver dropped {missed.group(1) if missed else 0} more "
              "that capture did not dequeue in time")
    judge_virtual_camera(out, check, read, expectations)
    judge_serve(out, check, read)
    devices = [json.loads(line) for line in read("devices.out").splitlines()]
    check("devices: exit status 0", read("devices.status").strip() == "0")
    check("devices: vivid's capture node is listed with its formats",
          any(d["driver"] == "vivid" and d["path"] == "/dev/video0" and any(f["fourcc"] == "YUYV" for f in d["formats"])
              for d in devices), read("devices.out")[:300])
    check("devices: the output-only node is left out", all(d["path"] != "/dev/video1" for d in devices))
    alias = read("device-alias.path").strip()
    check("udev made a /dev/v4l/by-path name for the capture node", alias.startswith("/dev/v4l/by-path/"),
          read("udevd.log")[-300:])
    target = read("device-alias.target").strip()
    capture = next((d for d in devices if d["path"] == target), {})
    check(f"devices: the capture node udev named ({target}) has that by-path name as its alias",
          target in ("/dev/video0", "/dev/video2") and capture.get("aliases") == [alias],
          f"{capture.get('aliases')} against {alias}")
    for name, source in (("device-number", "/dev/video0"), ("device-alias", alias)):
        records = [json.loads(line) for line in read(f"{name}.out").splitlines()]
        check(f"{name}: --device reaches the capture node ({source})",
              read(f"{name}.status").strip() == "0" and bool(records) and all(r["source"] == source for r in records),
              f"status {read(f'{name}.status').strip()}: {read(f'{name}.err').strip()[-200:]}")
    # Where the VM's time went, so that a slow run shows which step grew.
    runs = sorted(name[:-len(".seconds")] for name in os.listdir(out)
                  if name.endswith(".seconds") and name not in ("boot.seconds", "end.seconds"))
    print(f"note: seconds in the VM: boot {read('boot.seconds').strip() or '?'}, "
          + ", ".join(f"{name} {read(name + '.seconds').strip()}" for name in runs)
          + f", all {read('end.seconds').strip() or '?'}")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    if sys.argv[1] == "frame":
        make_frame(sys.argv[2], sys.argv[3])
    else:
        judge(sys.argv[2])
