#!/usr/bin/env python3
"""Hostile clients against a Tailor binary on loopback, one attack per fresh server.

For each attack it samples the server's resident memory before, during (peak)
and after, and times GET /healthz every 20 ms on a connection of its own
throughout. Every attack is bounded in time and connections and stops by itself;
everything goes to 127.0.0.0/8.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

PER_ADDRESS = 200  # connections per source address, below the server's default limit of 256


def source_address(index):
    block = index // PER_ADDRESS
    return f"127.0.{block // 250}.{1 + block % 250}"


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return 0.0


class Server:
    def __init__(self, binary, extra):
        self.folder = tempfile.mkdtemp(prefix="tailor-abuse-")
        self.public = os.path.join(self.folder, "public")
        os.makedirs(self.public)
        with open(os.path.join(self.public, "index.html"), "w") as index:
            index.write("<!doctype html><title>Tailor</title>")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--db", os.path.join(self.folder, "tailor.sqlite"), "--public", self.public,
             "--log-level", "error"] + extra,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        match = re.search(r":(\d+)\s*$", line)
        if not match:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.port = int(match.group(1))
        self.pid = self.process.pid

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def connect(port, index=0, receive_buffer=None, timeout=5):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source_address(index), 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def request(sock, method, path, body=None, token=None):
    head = f"{method} {path} HTTP/1.1\r\nHost: t\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    data = b""
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    sock.sendall((head + "\r\n").encode() + data)
    return read_response(sock)


def read_response(sock):
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buffer += chunk
    head, rest = buffer.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ")[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        rest += chunk
    return status, rest[:length]


class Probe(threading.Thread):
    """GET /healthz every 20 ms and the server's RSS every 100 ms, until stopped."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.latencies = []
        self.failures = 0
        self.peak = 0.0
        self.running = True

    def run(self):
        sock = None
        last_rss = 0
        while self.running:
            started = time.monotonic()
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=2)
                status, _ = request(sock, "GET", "/healthz")
                if status != 200:
                    self.failures += 1
                self.latencies.append((time.monotonic() - started) * 1000)
            except OSError:
                self.failures += 1
                self.latencies.append((time.monotonic() - started) * 1000)
                if sock:
                    sock.close()
                sock = None
            if time.monotonic() - last_rss > 0.1:
                self.peak = max(self.peak, rss_mib(self.server.pid))
                last_rss = time.monotonic()
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.join()

    def summary(self):
        values = sorted(self.latencies) or [0.0]
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        return {"healthz_p50_ms": round(pick(0.5), 2), "healthz_p99_ms": round(pick(0.99), 2),
                "healthz_max_ms": round(values[-1], 2), "healthz_failures": self.failures, "rss_peak_mib": round(self.peak, 1)}


def sign_up(port, name):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    status, body = request(sock, "POST", "/api/users", {"name": name})
    sock.close()
    if status != 201:
        raise RuntimeError(f"sign-up of {name}: {status} {body[:200]!r}")
    return json.loads(body)["token"]


def slow_streams(server, args):
    """One account's non-reading streams on its own chat while its messages, each
    as large as allowed, change the chat."""
    token = sign_up(server.port, "victim")
    sign_up(server.port, "other")
    sender = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    status, body = request(sender, "POST", "/api/chats", {"contact": "other"}, token)
    chat = json.loads(body)["id"]
    streams = []
    for index in range(args.streams):
        try:
            sock = connect(server.port, index, receive_buffer=4096)
            sock.sendall(f"GET /api/events?topics=chat:{chat} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
            streams.append(sock)
        except OSError:
            break
    text = "x" + "\u0001" * 3999
    sent = refused = 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        try:
            status, _ = request(sender, "POST", f"/api/chats/{chat}/messages", {"text": text}, token)
        except OSError:
            sender = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            continue
        sent += status == 201
        refused += status == 429
        time.sleep(args.message_interval)
    open_streams = sum(1 for sock in streams if still_open(sock))
    for sock in streams:
        sock.close()
    return {"streams": len(streams), "messages": sent, "refused_429": refused, "streams_still_open": open_streams}


def still_open(sock):
    sock.setblocking(False)
    try:
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def silent_connections(server, args):
    """Connections that never send a byte."""
    held = []
    for index in range(args.connections):
        try:
            held.append(connect(server.port, index))
        except OSError:
            break
    time.sleep(args.seconds)
    closed = sum(1 for sock in held if not still_open(sock))
    for sock in held:
        sock.close()
    return {"connections": len(held), "closed_by_server": closed, "after_s": args.seconds}


def large_file(server, args):
    """Clients of a large static file that do not read it."""
    size = args.file_mib << 20
    with open(os.path.join(server.public, "big.bin"), "wb") as file:
        file.truncate(size)
    held = []
    for index in range(args.file_clients):
        sock = connect(server.port, index, receive_buffer=4096)
        sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n")
        held.append(sock)
    time.sleep(args.seconds)
    for sock in held:
        sock.close()
    return {"clients": len(held), "file_mib": args.file_mib}


def account_flood(server, args):
    """Sign-ups from one address as fast as they go."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    outcomes = {}
    for index in range(args.sign_ups):
        status, _ = request(sock, "POST", "/api/users", {"name": f"flood{index}"})
        outcomes[status] = outcomes.get(status, 0) + 1
    return {"sign_ups": args.sign_ups, "answers": outcomes}


ATTACKS = {"slow-streams": slow_streams, "silent-connections": silent_connections, "large-file": large_file,
           "account-flood": account_flood}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--file-mib", type=int, default=64)
    parser.add_argument("--file-clients", type=int, default=20)
    parser.add_argument("--sign-ups", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--message-interval", type=float, default=0, help="seconds between the slow-streams attack's messages")
    parser.add_argument("--server-arg", action="append", default=[], help="passed on to tailor serve")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()

    results = {}
    for name in args.attacks.split(","):
        server = Server(args.binary, args.server_arg)
        try:
            time.sleep(0.5)
            before = rss_mib(server.pid)
            probe = Probe(server)
            probe.start()
            outcome = ATTACKS[name](server, args)
            time.sleep(6)  # what the attack held is freed, if it is (the server looks every 5 s)
            after = rss_mib(server.pid)
            probe.stop()
            results[name] = {"rss_before_mib": round(before, 1), "rss_after_mib": round(after, 1), **probe.summary(), **outcome}
        finally:
            server.stop()
        print(f"{name}: " + json.dumps(results[name]), flush=True)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=2)


if __name__ == "__main__":
    sys.exit(main())
