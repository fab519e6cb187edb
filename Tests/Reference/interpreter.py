#!/usr/bin/python3
"""Runs the Swift tests' reference scripts in one interpreter that stays up, so that OpenCV and NumPy load once:
`import cv2` alone costs about half a second of CPU, which each of some two hundred runs paid as a process of its own.

  interpreter.py
      Reads requests on standard input, a JSON line each: {"argv": ["SCRIPT.py", ARG...]} runs SCRIPT as its own
      process would (as __main__, with sys.argv and its folder first on sys.path); {"argv": ["-c", CODE, ARG...]}
      runs CODE as `python3 -c` would. Answers each with a JSON line on standard output: {"status": N, "stdout":
      TEXT, "stderr": TEXT}, where N is the exit status the process would have had (1 for an exception, after its
      traceback on "stderr"). Each runs in the folder, and with the environment, the interpreter started with, and
      reads /dev/null; what C code prints goes to this process's standard error, never into the answers. Ends at
      the end of its input.
"""
import contextlib
import io
import json
import os
import runpy
import sys
import traceback


def exit_status(code, stderr):
    """The status `sys.exit(code)` gives a process: an int as it is, None 0, anything else printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


def answer(argv, search_path, folder, environment):
    """Runs one request's argv as a process of its own would start: in `folder`, with `environment`, reading nothing.
    Its status and what it printed."""
    stdout, stderr = io.StringIO(), io.StringIO()
    status = 0
    os.chdir(folder)
    os.environ.clear()
    os.environ.update(environment)
    sys.stdin = open(os.devnull)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            if argv[0] == "-c":
                sys.argv = ["-c"] + argv[2:]
                sys.path[:] = [""] + search_path
                exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
            else:
                sys.argv = list(argv)
                sys.path[:] = [os.path.dirname(os.path.abspath(argv[0]))] + search_path
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as ended:
            status = exit_status(ended.code, stderr)
        except BaseException:  # noqa: B036: a script's failure is its answer, as it would be its process's
            traceback.print_exc()
            status = 1
    return {"status": status, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def main():
    # The requests and answers keep descriptors of their own: a script, and any program it starts, reads /dev/null and
    # writes on standard output into this process's standard error.
    requests = os.fdopen(os.dup(0), encoding="utf-8")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    search_path, folder, environment = sys.path[1:], os.getcwd(), dict(os.environ)
    for line in requests:
        answers.write(json.dumps(answer(json.loads(line)["argv"], search_path, folder, environment)) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
