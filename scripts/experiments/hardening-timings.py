"""The measurement behind README's figures for the password queue, the user
agent's cut and /readyz's shared write. Not part of the tests; needs wrk.

    swift build -c release --product tailor
    python3 scripts/experiments/hardening-timings.py .build/release/tailor

Prints: the time of a sign-up with a 64,000-byte User-Agent; a real user's
sign-in while 200 sign-ins come at once from two addresses; a user's message
POST median while /readyz is asked as fast as wrk can.
"""
import http.client, json, os, socket, statistics, subprocess, sys, tempfile, threading, time

binary = sys.argv[1]

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def start(extra=()):
    port = free_port()
    folder = tempfile.mkdtemp()
    proc = subprocess.Popen([binary, "serve", "--port", str(port), "--db", folder + "/t.sqlite", "--public", folder,
                             "--log-level", "error", "--trust-proxy", "127.0.0.1", "--max-connections-per-address", "0", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/healthz"); c.getresponse().read(); break
        except OSError:
            time.sleep(0.05)
    return proc, port

def call(port, method, path, body=None, headers=None, timeout=120):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Content-Type": "application/json"} if body is not None else {}
    h.update(headers or {})
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, data

proc, port = start()
try:
    started = time.monotonic()
    status, _ = call(port, "POST", "/api/users", {"name": "ua"}, {"User-Agent": "é" * 32_000, "X-Forwarded-For": "198.51.100.9"})
    print(f"sign-up with a 64,000-byte User-Agent: {status} in {(time.monotonic() - started) * 1000:.0f} ms")

    call(port, "POST", "/api/users", {"name": "alice", "password": "correct horse"}, {"X-Forwarded-For": "198.51.100.1"})
    answers = []
    def guess(i):
        try:
            s, _ = call(port, "POST", "/api/session", {"name": f"x{i}", "password": "guess guess"},
                        {"X-Forwarded-For": "203.0.113.%d" % (1 + i % 2)})
        except Exception as e:
            s = str(e)
        answers.append(s)
    threads = [threading.Thread(target=guess, args=(i,)) for i in range(200)]
    for t in threads: t.start()
    time.sleep(0.2)
    started = time.monotonic()
    status, _ = call(port, "POST", "/api/session", {"name": "alice", "password": "correct horse"}, {"X-Forwarded-For": "198.51.100.1"})
    print(f"a real sign-in while 200 come at once from two addresses: {status} in {(time.monotonic() - started) * 1000:.0f} ms")
    for t in threads: t.join()
    print("  the 200:", {s: answers.count(s) for s in set(answers)})
finally:
    proc.terminate(); proc.wait()

proc, port = start(["--write-rate", "0"])
try:
    status, body = call(port, "POST", "/api/users", {"name": "bob"})
    token = json.loads(body)["token"]
    call(port, "POST", "/api/users", {"name": "carol"})
    auth = {"Authorization": f"Bearer {token}"}
    _, body = call(port, "POST", "/api/chats", {"contact": "carol"}, auth)
    chat = json.loads(body)["id"]
    def posts(seconds):
        times = []
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            started = time.monotonic()
            c.request("POST", f"/api/chats/{chat}/messages", body=json.dumps({"text": "hi"}), headers={**auth, "Content-Type": "application/json"})
            c.getresponse().read()
            times.append((time.monotonic() - started) * 1000)
            time.sleep(0.05)
        return statistics.median(times)
    quiet = posts(4)
    flood = subprocess.Popen(["wrk", "-t1", "-c32", "-d6s", f"http://127.0.0.1:{port}/readyz"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    loud = posts(4)
    out = flood.communicate()[0]
    rate = [l for l in out.splitlines() if "Requests/sec" in l]
    print(f"message POST median: {quiet:.2f} ms alone, {loud:.2f} ms under /readyz at {rate[0].split()[-1] if rate else '?'}/s")
finally:
    proc.terminate(); proc.wait()
