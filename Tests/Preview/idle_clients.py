#!/usr/bin/python3
"""Idle clients against facecam's preview server: COUNT connections from 127.0.0.2 that send nothing.

Prints one JSON object: how many the server closed at once (beyond its per-address limit), the
status a viewer from 127.0.0.1 gets for / while the idle ones are held, and how many idle ones the
server had closed WAIT seconds later (its request timeout).

usage: idle_clients.py HOST PORT COUNT WAIT
"""
import http.client
import json
import select
import socket
import sys
import time

host, port, count, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


def closed(connection, timeout):
    """True when the server closed `connection` within `timeout` seconds (end of file or reset)."""
    ready, _, _ = select.select([connection], [], [], timeout)
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
time.sleep(0.5)
refused = [c for c in idle if closed(c, 0)]
held = [c for c in idle if c not in refused]
viewer = http.client.HTTPConnection(host, port, timeout=5)
viewer.request("GET", "/")
status = viewer.getresponse().status
deadline = time.monotonic() + wait
closed_later = sum(1 for c in held if closed(c, max(0, deadline - time.monotonic())))
print(json.dumps({"refused": len(refused), "held": len(held), "viewer": status, "closed_after_idle": closed_later}))
