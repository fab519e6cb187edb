#!/usr/bin/python3
"""Idle clients against facecam's preview server, whose clock the caller moves: COUNT connections from 127.0.0.2 that
send nothing.

The server's request timeout is TIMEOUT seconds on a clock the caller moves by hand: when this script prints
"advance S", the caller moves it S seconds on and answers "ok". Nothing is closed for being idle before that, so what
this script sees does not depend on how fast the machine is.

Prints one JSON object: how many idle connections the server closed at once (those beyond its per-address limit:
closed before a viewer from 127.0.0.1 was answered), the status that viewer gets for /, how many of the idle ones held
were closed once the clock moved TIMEOUT seconds on, and after how many seconds on the clock a connection from
127.0.0.3, sending its header a byte a clock second, was closed (None: not within its header).

usage: idle_clients.py HOST PORT COUNT TIMEOUT
"""
import http.client
import json
import select
import socket
import sys

host, port, count, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


def advance(seconds):
    """Has the caller move the server's clock `seconds` on."""
    print(f"advance {seconds}", flush=True)
    if sys.stdin.readline().strip() != "ok":
        sys.exit("the caller did not move the clock")


def closed(connection, wait):
    """True when the server closed `connection` within `wait` seconds (end of file or reset)."""
    ready, _, _ = select.select([connection], [], [], wait)
    if not ready:
        return False
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True


idle = []
for _ in range(count):
    connection = socket.socket()
    connection.bind(("127.0.0.2", 0))
    connection.connect((host, port))
    idle.append(connection)
# The server accepts in order, so those beyond the limit were closed before the viewer's answer; the short wait is the
# loopback's, not the server's.
viewer = http.client.HTTPConnection(host, port, timeout=60)
viewer.request("GET", "/")
status = viewer.getresponse().status
ready, _, _ = select.select(idle, [], [], 0.2)
refused = [c for c in ready if closed(c, 0)]
held = [c for c in idle if c not in refused]
advance(timeout)
# Generous: closing takes the server's event loop a moment, however loaded the machine.
closed_later = sum(1 for c in held if closed(c, 60))

# A header sent a byte a clock second, from 127.0.0.3: each byte arrives, but no whole request does.
trickle = socket.socket()
trickle.bind(("127.0.0.3", 0))
trickle.connect((host, port))
header, trickle_closed_after = b"GET / HTTP/1.1\r\n" + b"X-Slow: y\r\n" * 4, None
for second, byte in enumerate(header, 1):
    try:
        trickle.send(bytes([byte]))
    except (BrokenPipeError, ConnectionResetError):
        trickle_closed_after = second - 1
        break
    advance(1)
    if closed(trickle, 0.5):
        trickle_closed_after = second
        break
print(json.dumps({"refused": len(refused), "held": len(held), "viewer": status, "closed_after_idle": closed_later,
                  "trickle_closed_after": trickle_closed_after}))
