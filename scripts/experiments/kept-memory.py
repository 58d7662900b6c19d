"""Memory a kept user costs the server: the growth of its resident memory
as users with many chats become kept, measured from outside.

  python3 scripts/experiments/kept-memory.py PATH_TO_TAILOR [--hubs 10] [--chats 1000]

Sets up HUBS users with CHATS chats each (one message in each, with CHATS
contacts shared among them), restarts the server so that nothing is kept,
then makes the hubs kept in two halves, one message each (a change keeps
the users it touches, reading their chats): the first half warms SQLite's
page cache, and the second half's growth over its hubs is what a kept user
with CHATS chats costs (its chats, their contacts' lists, and the kept rows
of nothing else: no stream is open, so no view is built).
"""
import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("tailor")
parser.add_argument("--hubs", type=int, default=10)
parser.add_argument("--chats", type=int, default=1000)
options = parser.parse_args()
folder = tempfile.mkdtemp(prefix="tailor-kept-memory.")
database = os.path.join(folder, "kept.sqlite")


def start():
    server = subprocess.Popen([options.tailor, "serve", "--port", "0", "--db", database, "--log-level", "warning",
                               "--write-rate", "0", "--account-rate", "0"], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    port = int(re.search(r":(\d+)", line.split("http://")[1]).group(1))
    return server, port


def rss_kib(server):
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


class Client:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port)

    def call(self, method, path, token=None, body=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        answer = self.connection.getresponse()
        data = answer.read()
        if answer.status >= 300:
            sys.exit(f"{method} {path}: {answer.status} {data[:200]}")
        return json.loads(data) if data else None


server, port = start()
client = Client(port)
contacts = [client.call("POST", "/api/users", body={"name": f"contact{i}"})["user"]["name"] for i in range(options.chats)]
hubs = [client.call("POST", "/api/users", body={"name": f"hub{i}"})["token"] for i in range(options.hubs)]
first_chats = []
for token in hubs:
    for index, contact in enumerate(contacts):
        chat = client.call("POST", "/api/chats", token, {"contact": contact})
        client.call("POST", f"/api/chats/{chat['id']}/messages", token, {"text": f"hello {contact}, how are you?"})
        if index == 0:
            first_chats.append(chat["id"])
server.send_signal(signal.SIGTERM)
server.wait()

server, port = start()
client = Client(port)
client.call("GET", "/readyz")
time.sleep(1)
before = rss_kib(server)
half = options.hubs // 2
marks = []
for part in (hubs[:half], hubs[half:]):
    for token in part:
        chat = first_chats[hubs.index(token)]
        client.call("POST", f"/api/chats/{chat}/messages", token, {"text": "kept now"})
    time.sleep(1)
    marks.append(rss_kib(server))
server.send_signal(signal.SIGTERM)
server.wait()
second = hubs[half:]
per_user = (marks[1] - marks[0]) / len(second)
print(f"{options.hubs} users with {options.chats} chats each: RSS {before} KiB with none kept, "
      f"{marks[0]} KiB with {half} kept, {marks[1]} KiB with all kept")
print(f"a kept user with {options.chats} chats: {per_user:.0f} KiB, {per_user * 1024 / options.chats:.0f} bytes a chat "
      f"(the budget counts {2048} bytes a chat)")
