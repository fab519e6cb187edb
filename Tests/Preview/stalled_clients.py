#!/usr/bin/python3
"""Clients that stall: each opens a connection to facecam's preview server, asks for PATH
(/stream.mjpg), reads the status line and nothing more, with a 4 KiB receive buffer so that the
server's writes back up at once. They hold on for SECONDS, then close.

  stalled_clients.py HOST PORT COUNT SECONDS [PATH]

Prints one JSON object: {"statuses": {"200": n, "503": m, ...}}.
"""
import json
import socket
import sys
import time


def main(host, port, count, seconds, path="/stream.mjpg"):
    connections = []
    statuses = {}
    for _ in range(count):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        connection.settimeout(10)
        connection.connect((host, port))
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        status = connection.recv(12).decode(errors="replace")[9:12]
        statuses[status] = statuses.get(status, 0) + 1
        connections.append(connection)
    time.sleep(seconds)
    for connection in connections:
        connection.close()
    print(json.dumps({"statuses": statuses}))


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), *sys.argv[5:])
