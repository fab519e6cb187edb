#!/usr/bin/python3
"""Idle clients against facecam's preview server: COUNT connections from 127.0.0.2 that send nothing.

Prints one JSON object: how many the server closed within REFUSED seconds (those beyond its
per-address limit, closed at once; REFUSED must be shorter than its request timeout), the status a
viewer from 127.0.0.1 gets for / while the idle ones are held, how many idle ones the server had
closed WAIT seconds later (its request timeout), and whether it closed, within WAIT seconds, a
connection from 127.0.0.3 sending its header a byte a second.

usage: idle_clients.py HOST PORT COUNT WAIT REFUSED
"""
import http.client
import json
import select
import socket
import sys
import time

host, port, count, wait, refusing = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])


def closed(connection, timeout):
    """True when the server closed `connection` within `timeout` seconds (end of file or reset)."""
    ready, _, _ = select.select([connection], [], [], timeout)
    if not ready:
        return False
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True


def closed_within(connections, seconds):
    """The connections of `connections` the server closes within `seconds`."""
    found, waiting = [], list(connections)
    deadline = time.monotonic() + seconds
    while waiting and time.monotonic() < deadline:
        ready, _, _ = select.select(waiting, [], [], max(0, deadline - time.monotonic()))
        for connection in ready:
            waiting.remove(connection)
            if closed(connection, 0):
                found.append(connection)
    return found


idle = []
for _ in range(count):
    connection = socket.socket()
    connection.bind(("127.0.0.2", 0))
    connection.connect((host, port))
    idle.append(connection)
# Those beyond the limit are closed as soon as the server accepts them.
refused = closed_within(idle, refusing)
held = [c for c in idle if c not in refused]
viewer = http.client.HTTPConnection(host, port, timeout=5)
viewer.request("GET", "/")
status = viewer.getresponse().status
deadline = time.monotonic() + wait
closed_later = sum(1 for c in held if closed(c, max(0, deadline - time.monotonic())))

# A header sent a byte a second, from 127.0.0.3: each byte arrives, but no whole request does.
trickle = socket.socket()
trickle.bind(("127.0.0.3", 0))
trickle.connect((host, port))
started, header, trickle_closed = time.monotonic(), b"GET / HTTP/1.1\r\n" + b"X-Slow: y\r\n" * 100, None
for byte in header:
    try:
        trickle.send(bytes([byte]))
    except (BrokenPipeError, ConnectionResetError):
        trickle_closed = True
        break
    if closed(trickle, 1):
        trickle_closed = True
        break
    if time.monotonic() - started > wait:
        break
print(json.dumps({"refused": len(refused), "held": len(held), "viewer": status, "closed_after_idle": closed_later,
                  "trickle_closed": bool(trickle_closed) and time.monotonic() - started < wait}))
