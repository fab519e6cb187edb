"""make bench: what a batch costs. Four copies of the bench clip, run with each detector two ways
on this machine's cores: one facecam process (its default --jobs), and one process per core, each
bound to its core (taskset, as a scheduler binds tasks; facecam then runs one job) and taking its
--shard. Both write --output-dir; their results must
be identical. Reports frames/s, frames/s per core and the core-hours a million such frames take."""
import argparse
import filecmp
import os
import subprocess
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("--facecam", required=True)
parser.add_argument("--clip", required=True, help="the 640x480 bench clip")
parser.add_argument("--frames", type=int, default=300, help="frames in the clip")
args = parser.parse_args()

cores = os.cpu_count()
copies = 4
verdicts = []
with tempfile.TemporaryDirectory(prefix="facecam-batch-") as work:
    inputs = []
    for k in range(copies):
        path = os.path.join(work, f"clip-{k + 1}.avi")
        os.symlink(os.path.abspath(args.clip), path)
        inputs.append(path)
    frames = copies * args.frames

    print(f"\n| {copies} x the 640x480 clip ({frames} frames) | frames/s | per core | core-hours per million frames |")
    print("|---|---:|---:|---:|")
    for detector in ("haar", "yunet"):
        base = [args.facecam, "video", "--quiet", "--detector", detector]
        whole = os.path.join(work, f"{detector}-whole")
        start = time.monotonic()
        subprocess.run(base + ["--output-dir", whole] + inputs, check=True)
        one_process = time.monotonic() - start

        sharded = os.path.join(work, f"{detector}-sharded")
        start = time.monotonic()
        tasks = [subprocess.Popen(["taskset", "-c", str(k - 1)] + base + ["--shard", f"{k}/{cores}", "--output-dir", sharded]
                                  + inputs)
                 for k in range(1, cores + 1)]
        if any(task.wait() != 0 for task in tasks):
            raise SystemExit(f"a --shard task failed ({detector})")
        shards = time.monotonic() - start

        comparison = filecmp.dircmp(whole, sharded)
        same = not comparison.left_only and not comparison.right_only and not filecmp.cmpfiles(
            whole, sharded, os.listdir(whole), shallow=False)[1]
        if not same:
            verdicts.append(f"{detector}: the shards' results differ from one process's")
        for label, seconds in ((f"{detector}: one process (--jobs {cores})", one_process),
                               (f"{detector}: {cores} processes, each on its core, --shard K/{cores}", shards)):
            rate = frames / seconds
            print(f"| {label} | {rate:.1f} | {rate / cores:.1f} | {1e6 / (rate / cores) / 3600:.1f} |")

if verdicts:
    raise SystemExit("batch bench: " + "; ".join(verdicts))
print("\nThe shards' results were identical to one process's for both detectors.")
