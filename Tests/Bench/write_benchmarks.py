#!/usr/bin/python3
"""make bench: writes docs/benchmarks.md from the template's notes and the tables the bench scripts
printed in this run (REPORTS/NAME.md for each {{NAME}} of the template), headed by the machine, the
date and the commit they were measured on."""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys


def output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def measured_commit(reports):
    """The commit the binary was built from, as make bench noted it before the run (the tree may
    change while it runs); else the tree's now."""
    noted = os.path.join(reports, "commit.txt")
    lines = open(noted).read().splitlines() if os.path.exists(noted) else []
    if not lines:
        lines = [output(["git", "rev-parse", "--short", "HEAD"])] + output(
            ["git", "status", "--porcelain", "--untracked-files=no"]).splitlines()
    changed = [line for line in lines[1:] if line.strip() and line != "unknown"]
    return lines[0] + (" with uncommitted changes" if changed else "")


def machine(facecam, reports):
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor() or "unknown CPU")
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    commit = measured_commit(reports)
    debian = open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "unknown"
    ffmpeg = output(["ffmpeg", "-version"]).split("\n")[0].split(" ")[2:3]
    return (f"Measured by `make bench` on {datetime.date.today().isoformat()}, commit {commit} "
            f"({output([facecam, '--version'])}): {cpu}, {os.cpu_count()} cores, "
            f"{memory / 1024 / 1024:.0f} GiB; Debian {debian}, OpenCV {output(['pkg-config', '--modversion', 'opencv4'])}, "
            f"FFmpeg {ffmpeg[0] if ffmpeg else 'unknown'}.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facecam", required=True)
    parser.add_argument("--reports", required=True, help="the directory of the scripts' tables, NAME.md")
    parser.add_argument("--template", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    template = open(args.template).read()
    names = re.findall(r"\{\{([a-z-]+)\}\}", template)
    reports = {name[:-3] for name in os.listdir(args.reports) if name.endswith(".md")}
    missing, unused = [n for n in names if n != "machine" and n not in reports], reports - set(names)
    if missing or unused:
        sys.exit(f"write_benchmarks: {args.template} and {args.reports} disagree: no table for "
                 f"{', '.join(missing) or 'none'}; no place for {', '.join(sorted(unused)) or 'none'}")

    def table(match):
        name = match.group(1)
        if name == "machine":
            return machine(args.facecam, args.reports)
        return open(os.path.join(args.reports, name + ".md")).read().strip()

    with open(args.output + ".partial", "w") as page:
        page.write(re.sub(r"\{\{([a-z-]+)\}\}", table, template))
    os.replace(args.output + ".partial", args.output)
    print(f"write_benchmarks: {args.output} written from {args.template} and {len(reports)} tables", file=sys.stderr)


if __name__ == "__main__":
    main()
