#!/usr/bin/python3
"""`make bench`: what live --serve costs, side by side in one run.

The bench clip (640x480) is played through `facecam live --source`, with each detector:
- as fast as it decodes, looped for 8 seconds (a camera faster than the detector): frames processed
  per second;
- at its own frame rate (--realtime, a 30 frames/s camera): the share of frames dropped;
each without --serve, and with --serve and 4 clients reading /stream.mjpg the whole time.
Rows alternate in rounds; each row's best round counts, so a burst of load on this shared
machine hurts one round, not the comparison. Prints a table, and how many frames the readers got.
"""
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import clip_arguments  # noqa: E402


class Reader(threading.Thread):
    """Reads /stream.mjpg until the server closes it, counting the JPEG parts."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.parts = 0

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as connection:
                connection.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: bench\r\n\r\n")
                tail = b""
                while True:
                    data = connection.recv(1 << 16)
                    if not data:
                        return
                    chunk = tail + data
                    self.parts += chunk.count(b"Content-Type: image/jpeg")
                    tail = chunk[-32:]
                    # A marker cut in two by recv would be counted twice: keep only what follows the last one.
                    if b"Content-Type: image/jpeg" in tail:
                        tail = tail[tail.rindex(b"Content-Type: image/jpeg") + 1:]
        except OSError:
            return


def run(facecam, clip, detector, realtime, serve, readers=4):
    """(seconds, captured, processed, dropped, frames each reader got) of one run."""
    command = [facecam, "live", "--source", clip, "--detector", detector]
    command += ["--realtime"] if realtime else ["--loop", "--duration", "8"]
    if serve:
        command += ["--serve", "0"]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    threads = []
    if serve:
        line = process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            sys.exit(f"serve_bench: no address from facecam: {line}")
        threads = [Reader(int(match.group(1))) for _ in range(readers)]
        for thread in threads:
            thread.start()
    err = process.stderr.read()
    status = process.wait()
    seconds = time.perf_counter() - start
    if status != 0:
        sys.exit(f"serve_bench: {' '.join(command)} exited {status}: {err.strip()}")
    for thread in threads:
        thread.join(timeout=10)
    summary = re.search(r"captured (\d+) frames, processed (\d+), dropped (\d+)", err)
    captured, processed, dropped = map(int, summary.groups())
    return seconds, captured, processed, dropped, [thread.parts for thread in threads]


def main():
    args = clip_arguments(__doc__)

    rows = [(detector, realtime, serve) for detector in ("haar", "yunet") for realtime in (False, True)
            for serve in (False, True)]
    best = {}
    for _ in range(args.rounds):
        for row in rows:
            result = run(args.facecam, args.clip, *row)
            seconds, captured, processed, dropped, _ = result
            # As fast as it decodes: more processed per second is better; in real time: fewer dropped.
            key = processed / seconds if not row[1] else -dropped / captured
            if row not in best or key > best[row][0]:
                best[row] = (key, result)

    print("\n## live --serve: what serving costs (bench clip, 640x480; best of %d rounds)\n" % args.rounds)
    print("| detector | source | without --serve | with --serve, 4 readers | ratio | frames each reader got |")
    print("|---|---|---:|---:|---:|---|")
    for detector in ("haar", "yunet"):
        for realtime in (False, True):
            plain = best[(detector, realtime, False)][1]
            served = best[(detector, realtime, True)][1]
            if realtime:
                source = "30 frames/s (--realtime): dropped"
                text = ["%.1f%% of %d" % (100 * r[3] / r[1], r[1]) for r in (plain, served)]
                ratio = "-"
            else:
                source = "as fast as it decodes: processed frames/s"
                rates = [r[2] / r[0] for r in (plain, served)]
                text = ["%.1f" % rate for rate in rates]
                ratio = "%.2f" % (rates[1] / rates[0])
            print(f"| {detector} | {source} | {text[0]} | {text[1]} | {ratio} | "
                  f"{', '.join(map(str, served[4]))} of {served[2]} processed |")


if __name__ == "__main__":
    main()
