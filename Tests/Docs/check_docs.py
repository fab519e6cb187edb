#!/usr/bin/env python3
"""Checks that facecam's documentation matches the program (make test runs it).

For README.md, CHANGELOG.md and every Markdown file under docs/:
  - every relative link resolves: the file exists and, for a `#fragment`, the heading does;
  - every facecam command line in a ```sh block runs and exits 0, unless the block is marked as an
    illustration by an HTML comment on the line before its fence: <!-- illustration: why -->
    (a camera, a network, a scheduler...);
  - every ```console block's `$ facecam ...` lines print exactly the output written under them
    (standard output and standard error together; `; echo "status $?"` shows a status other than 0);
  - every option a facecam command line names exists in that command's --help, and every option
    named in prose (`--name` in a code span) exists in some command's --help;
  - every guide a command's --help points to ("Guide: docs/....md") exists.

The commands run in a scratch directory holding a link to Fixtures/ and the example inputs the
docs name, made from the fixtures (SANDBOX below), with the built facecam first on PATH.
"""
import argparse
import functools
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND_SECONDS = 120

# The example inputs the docs name, and how the check makes each from Fixtures/: a dozen frames
# of each clip, so that the examples run in seconds.
SHORT = ["-frames:v", "12"]
SANDBOX = [
    ("clip.mp4", ["ffmpeg", "-i", "Fixtures/video/pan-zoom.avi", *SHORT, "-c:v", "mpeg4", "-q:v", "3", "clip.mp4"]),
    ("interview.mp4", ["ffmpeg", "-i", "Fixtures/video/pan-zoom-audio.mkv", *SHORT, "-c:v", "mpeg4", "-q:v", "3",
                       "-c:a", "aac", "interview.mp4"]),
    ("long-recording.mp4", ["ffmpeg", "-i", "Fixtures/video/crossing.avi", *SHORT, "-c:v", "mpeg4", "-q:v", "3",
                            "long-recording.mp4"]),
    ("holiday.jpg", ["cp", "Fixtures/images/two-faces.jpg", "holiday.jpg"]),
    ("photos", ["cp", "-r", "Fixtures/images", "photos"]),
    ("clips", ["sh", "-c", "mkdir clips && cp clip.mp4 long-recording.mp4 clips/"]),
    ("footage", ["sh", "-c", "mkdir footage && cp clip.mp4 Fixtures/images/two-faces.jpg footage/"]),
    ("videos.txt", ["sh", "-c", "printf '%s\\n' Fixtures/video/crossing.avi Fixtures/video/leave-enter.avi "
                                "Fixtures/video/pan-zoom.avi clip.mp4 > videos.txt"]),
]

# Options of the tools beside facecam that the docs name in prose.
OTHER_TOOLS_OPTIONS = {
    "--array",                # sbatch
    "--root",                 # dpkg
    "--build-tests",          # swift build
    "--lock",                 # Tests/Environments/make.sh
    "--generate-completion-script", "--help", "--version", "--help-hidden",  # ArgumentParser's own
}

FENCE = re.compile(r"^(\s*)```\s*([\w-]*)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
ILLUSTRATION = re.compile(r"<!--\s*illustration:\s*\S.*-->")
# facecam at the start of a command, after exec, or as the command GNU parallel runs.
FACECAM_COMMAND = re.compile(r"(?:^|[|;&]\s*|\bexec\s+|\bparallel\s+(?:-\S+\s+(?:\S+\s+)?)*?)facecam\s")


def markdown_files():
    files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CHANGELOG.md")]
    for directory, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".md")]
    return files


def blocks_and_prose(text):
    """Splits Markdown into fenced blocks (line number, info string, illustration?, lines) and prose lines."""
    blocks, prose = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        start, info = i + 1, match.group(2)
        illustration = i > 0 and ILLUSTRATION.search(lines[i - 1]) is not None
        body = []
        i += 1
        while i < len(lines) and not lines[i].lstrip().startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append((start, info, illustration, body))
        i += 1
    return blocks, prose


def logical_lines(body):
    """(index of the first line, text) of each command, backslash continuations joined; no comment lines."""
    joined, current, first = [], "", 0
    for index, line in enumerate(body):
        if not current:
            first = index
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        if current.strip() and not current.lstrip().startswith("#"):
            joined.append((first, current.strip()))
        current = ""
    return joined


def strip_comment(line):
    """The command without its trailing `# comment` (a # after a space, outside quotes)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and index > 0 and line[index - 1] == " ":
            return line[:index].rstrip()
    return line


def slug(heading):
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.cache
def headings(path):
    """The anchors of a Markdown file's headings, read once per file."""
    _, prose = blocks_and_prose(open(path, encoding="utf-8").read())
    return {slug(line.lstrip("#")) for _, line in prose if line.startswith("#")}


class Checker:
    def __init__(self, facecam):
        self.facecam = facecam
        self.failures = []
        self.help = {}
        self.commands = self.subcommands()
        self.checked = self.illustrated = 0

    def fail(self, path, line, message):
        self.failures.append(f"{os.path.relpath(path, ROOT)}:{line}: {message}")

    def help_text(self, subcommand):
        if subcommand not in self.help:
            arguments = [self.facecam] + ([subcommand] if subcommand else []) + ["--help"]
            self.help[subcommand] = subprocess.run(arguments, capture_output=True, text=True).stdout
        return self.help[subcommand]

    def subcommands(self):
        text = self.help_text("")
        section = text.split("SUBCOMMANDS:", 1)[1] if "SUBCOMMANDS:" in text else ""
        return [m.group(1) for m in re.finditer(r"^\s+([a-z]+)\s", section, re.M) if m.group(1) != "help"]

    def all_options(self):
        options = set(OTHER_TOOLS_OPTIONS)
        for command in [""] + self.commands:
            options |= set(OPTION.findall(self.help_text(command)))
        return options

    def check_help_guides(self):
        for command in [""] + self.commands:
            text = " ".join(self.help_text(command).split())
            guides = re.findall(r"Guide: ((?:\S+\.md|docs/)(?: and (?:\S+\.md|docs/))*)", text)
            if not guides:
                self.failures.append(f"facecam {command} --help: no \"Guide: ...\" pointer to its guide")
            for guide in (g for found in guides for g in found.split(" and ")):
                if not os.path.exists(os.path.join(ROOT, guide)):
                    self.failures.append(f"facecam {command} --help: its guide {guide} does not exist")

    def check_command_options(self, path, line_number, command):
        for segment in re.split(r"[|;&]", command):
            words = segment.split()
            if "facecam" not in words:
                continue
            words = words[words.index("facecam") + 1:]
            subcommand = next((w for w in words if not w.startswith("-")), "")
            if subcommand not in self.commands:
                self.fail(path, line_number, f"`facecam {subcommand}` is not a facecam command")
                continue
            known = set(OPTION.findall(self.help_text(subcommand))) | OTHER_TOOLS_OPTIONS
            for option in OPTION.findall(" ".join(w.split("=")[0] for w in words if w.startswith("--"))):
                if option not in known:
                    self.fail(path, line_number, f"`facecam {subcommand}` has no option {option} (see its --help)")

    def check_links(self, path, prose):
        for line_number, line in prose:
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, fragment = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(resolved):
                    self.fail(path, line_number, f"link to {target}: {os.path.relpath(resolved, ROOT)} does not exist")
                elif fragment and resolved.endswith(".md") and fragment not in headings(resolved):
                    self.fail(path, line_number, f"link to {target}: no heading #{fragment} in {file_part or 'this file'}")

    def check_prose_options(self, path, prose, known):
        for line_number, line in prose:
            for span in CODE_SPAN.findall(line):
                for option in OPTION.findall(span):
                    if option not in known:
                        self.fail(path, line_number, f"{option} is no facecam option (see facecam COMMAND --help)")

    def run(self, sandbox, path, line_number, command, expected=None):
        self.checked += 1
        try:
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=sandbox, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT if expected is not None else subprocess.PIPE,
                                    text=True, timeout=COMMAND_SECONDS,
                                    env=dict(os.environ, PATH=os.path.dirname(self.facecam) + os.pathsep + os.environ["PATH"]))
        except subprocess.TimeoutExpired:
            self.fail(path, line_number, f"`{command}` did not end within {COMMAND_SECONDS} s")
            return
        if result.returncode != 0:
            last = ((result.stderr or result.stdout).strip().splitlines() or ["(nothing on standard error)"])[-1]
            self.fail(path, line_number, f"`{command}` exited {result.returncode}: {last}")
        elif expected is not None and result.stdout.rstrip("\n") != expected.rstrip("\n"):
            self.fail(path, line_number, f"`{command}` printed {result.stdout.strip()!r}, the doc says {expected.strip()!r}")

    def check_file(self, path, sandbox, known):
        blocks, prose = blocks_and_prose(open(path, encoding="utf-8").read())
        self.check_links(path, prose)
        self.check_prose_options(path, prose, known)
        for start, info, illustration, body in blocks:
            if info == "console":
                command, output = None, []
                for offset, line in enumerate(body + ["$ "]):
                    if line.startswith("$ "):
                        if command and FACECAM_COMMAND.search(command):
                            self.check_command_options(path, start + offset, command)
                            if illustration:
                                self.illustrated += 1
                            else:
                                self.run(sandbox, path, start + offset, command, "\n".join(output))
                        command, output = line[2:].strip(), []
                    else:
                        output.append(line)
            elif info == "sh":
                for offset, line in enumerate(body):
                    if line.startswith("$ "):
                        self.fail(path, start + 1 + offset, "a `$ ` prompt in a sh block: make it a console block")
                for index, command in logical_lines(body):
                    command = strip_comment(command)
                    if not FACECAM_COMMAND.search(command):
                        continue
                    line_number = start + 1 + index
                    self.check_command_options(path, line_number, command)
                    if illustration:
                        self.illustrated += 1
                    else:
                        self.run(sandbox, path, line_number, command)


def make_sandbox(directory):
    os.symlink(os.path.join(ROOT, "Fixtures"), os.path.join(directory, "Fixtures"))
    for name, command in SANDBOX:
        if command[0] == "ffmpeg":
            command = ["ffmpeg", "-loglevel", "error", "-nostdin"] + command[1:]
        subprocess.run(command, cwd=directory, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facecam", required=True, help="the built facecam binary")
    args = parser.parse_args()
    checker = Checker(os.path.abspath(args.facecam))
    known = checker.all_options()
    checker.check_help_guides()
    files = markdown_files()
    with tempfile.TemporaryDirectory(prefix="facecam-docs-") as sandbox:
        make_sandbox(sandbox)
        for path in files:
            checker.check_file(path, sandbox, known)
    for failure in checker.failures:
        print(f"check_docs: {failure}", file=sys.stderr)
    print(f"check_docs: {len(files)} files; {checker.checked} command lines run, {checker.illustrated} marked as "
          f"illustrations; {len(checker.failures)} problems", file=sys.stderr)
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
