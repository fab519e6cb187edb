#!/usr/bin/python3
"""The people panel's memory over a long run of strangers: live --serve --recognize on a looping clip of many LFW
people no one enrolled (each a track of its own), its resident memory sampled every INTERVAL seconds, with the panel's
listing fetched as a page would. The board keeps the last 50 tracks; memory should level off, not grow with the tracks.

    people_memory.py --facecam BIN [--faces ../shared/data/faces/lfw] [--people 200] [--seconds 3600] [--interval 60]

Prints one line per sample: seconds, VmRSS in MB, the tracks the run has seen (the tracker's ids), groups listed.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import cv2
import numpy as np


def make_clip(faces, people, path):
    """Each person's first photograph for 10 frames, then 10 black ones (beyond the track grace), 320x240 at 10 frames/s."""
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    black = np.zeros((240, 320, 3), np.uint8)
    for folder in sorted(glob.glob(os.path.join(faces, "*/")))[:people]:
        image = cv2.imread(sorted(glob.glob(os.path.join(folder, "*.jpg")))[0])
        frame = black.copy()
        frame[:, 35:285] = cv2.resize(image, (250, 240))
        for _ in range(10):
            writer.write(frame)
        for _ in range(10):
            writer.write(black)
    writer.release()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--faces", default=os.path.join(os.path.dirname(__file__), "../../../shared/data/faces/lfw"))
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=3600)
    parser.add_argument("--interval", type=float, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        clip = os.path.join(scratch, "strangers.avi")
        make_clip(args.faces, args.people, clip)
        gallery = os.path.join(scratch, "gallery.sqlite")
        subprocess.run([args.facecam, "enrol", "--gallery", gallery, "Collins",
                        os.path.join(os.path.dirname(__file__), "../../Fixtures/images/astronaut.png")], check=True)
        log = open(os.path.join(scratch, "stderr"), "w+")
        out = open(os.path.join(scratch, "stdout"), "w")
        # A reader of its own, whose position is not the writer's: each sample reads what came since the last.
        records = open(os.path.join(scratch, "stdout"))
        live = subprocess.Popen([args.facecam, "live", "--source", clip, "--loop", "--realtime", "--recognize", "--gallery",
                                 gallery, "--serve", "0", "--duration", str(args.seconds), "--format", "text"],
                                stdout=out, stderr=log)
        port = None
        tracks = 0
        start = time.monotonic()
        while live.poll() is None:
            time.sleep(args.interval if port else 1)
            log.seek(0)
            if port is None:
                found = re.search(r"serving the preview at http://127.0.0.1:(\d+)/", log.read())
                port = found and found.group(1)
                continue
            try:
                with open(f"/proc/{live.pid}/status") as status:
                    rss = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1)) / 1024
                listing = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/people", timeout=10))
            except (OSError, AttributeError):
                break
            tracks = max([tracks] + [int(m) for m in re.findall(r"\bid (\d+)", records.read())])
            print(f"{time.monotonic() - start:7.0f} s  {rss:7.1f} MB  tracks {tracks:5d}  "
                  f"groups {len(listing['unknown']):3d} ({sum(len(g['tracks']) for g in listing['unknown'])} tracks)", flush=True)
        live.wait()
        log.seek(0)
        print(log.read().strip().splitlines()[-1], file=sys.stderr)
        return live.returncode


if __name__ == "__main__":
    sys.exit(main())
