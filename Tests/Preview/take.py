#!/usr/bin/python3
"""Reads a stream of facecam's preview server until it has COUNT items, then writes the bytes it read to stdout and
closes: parts of /stream.mjpg (each whole, as long as its Content-Length says) or records of /events ("data: " lines).
Counting what arrived, rather than reading for a fixed time, keeps the tests that use it from depending on how fast
a loaded machine makes frames. Exits 1, with what it read, when TIMEOUT seconds pass first.

  take.py parts|records URL COUNT [TIMEOUT]
"""
import re
import sys
import time
import urllib.request

LENGTH = re.compile(rb"Content-Length: (\d+)\r\n\r\n")


def whole_parts(body):
    count, position = 0, 0
    while match := LENGTH.search(body, position):
        end = match.end() + int(match.group(1))
        if end > len(body):
            break
        count, position = count + 1, end
    return count


def records(body):
    return sum(1 for line in body.split(b"\n")[:-1] if line.startswith(b"data: "))


def main(kind, url, count, timeout=60):
    counted = {"parts": whole_parts, "records": records}[kind]
    deadline = time.monotonic() + float(timeout)
    body = b""
    with urllib.request.urlopen(url, timeout=float(timeout)) as response:
        while counted(body) < int(count) and time.monotonic() < deadline:
            chunk = response.read1(65536)
            if not chunk:
                break
            body += chunk
    sys.stdout.buffer.write(body)
    return 0 if counted(body) >= int(count) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
