#!/usr/bin/python3
"""`make bench`: what live --mqtt costs, side by side in one run.

The bench clip (640x480) is played through `facecam live --source` with YuNet, as fast as it
decodes, looped for 8 seconds of capture, with --events: without --mqtt; publishing to Debian's mosquitto
(with --mqtt-snapshot); and to a listener that accepts the MQTT connection and never reads again
(a broker that hangs), which must cost no frames. Rows alternate in rounds; each row's best round
counts. Prints a table.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import clip_arguments  # noqa: E402


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port):
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"mqtt_bench: nothing listens on {port}")


def deaf_broker(port):
    """Accepts, answers CONNECT with an accepted CONNACK, and never reads again."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(8)
    held = []

    def serve():
        while True:
            connection, _ = server.accept()
            connection.recv(2)
            connection.sendall(bytes([0x20, 0x02, 0x00, 0x00]))
            held.append(connection)

    threading.Thread(target=serve, daemon=True).start()


DURATION = 8


def run(facecam, clip, url, snapshot):
    """(seconds, captured, processed, summary line of MQTT) of one run."""
    command = [facecam, "live", "--source", clip, "--loop", "--duration", str(DURATION), "--events"]
    if url:
        command += ["--mqtt", url] + (["--mqtt-snapshot"] if snapshot else [])
    start = time.perf_counter()
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if finished.returncode != 0:
        sys.exit(f"mqtt_bench: {' '.join(command)} exited {finished.returncode}: {finished.stderr.strip()}")
    summary = re.search(r"captured (\d+) frames, processed (\d+)", finished.stderr)
    mqtt = re.search(r"MQTT: the broker acknowledged .*", finished.stderr)
    return seconds, int(summary.group(1)), int(summary.group(2)), mqtt.group(0) if mqtt else ""


def main():
    args = clip_arguments(__doc__)

    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        configuration = f"{directory}/mosquitto.conf"
        with open(configuration, "w") as file:
            file.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", configuration], stderr=subprocess.DEVNULL)
        wait_listening(port)
        deaf = free_port()
        deaf_broker(deaf)
        rows = [("none", None, False), ("mosquitto, with snapshots", f"mqtt://127.0.0.1:{port}", True),
                ("a broker that never reads", f"mqtt://127.0.0.1:{deaf}", True)]
        best = {}
        try:
            for _ in range(args.rounds):
                for name, url, snapshot in rows:
                    result = run(args.facecam, args.clip, url, snapshot)
                    # Over the capture's 8 s: the stop's wait for a broker's acknowledgements (up to 2 s, which
                    # a broker that never reads uses whole) is after the last frame.
                    rate = result[2] / DURATION
                    if name not in best or rate > best[name][0]:
                        best[name] = (rate, result)
        finally:
            broker.terminate()
            broker.wait()

    print("\n## live --mqtt: what publishing costs (bench clip, 640x480, YuNet, as fast as it decodes; best of %d rounds)\n"
          % args.rounds)
    print("| broker | processed frames/s | ratio to none | seconds to the end | what facecam said |")
    print("|---|---:|---:|---:|---|")
    base = best["none"][0]
    for name, _, _ in rows:
        rate, result = best[name]
        print(f"| {name} | {rate:.1f} | {rate / base:.2f} | {result[0]:.1f} | {result[3] or '-'} |")


if __name__ == "__main__":
    main()
