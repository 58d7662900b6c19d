"""What scripts/lib/faults.py stands on: a PostgreSQL server of its own, Tailor
servers as processes, HTTP requests and event streams with Python's own library."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def say(*words):
    print("faults:", *words, file=sys.stderr, flush=True)


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(address, method, path, body=None, token=None, headers=None, timeout=5.0):
    """(status, lower-cased headers, body); status 0 when no answer came in time."""
    host, port = address
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    fields = dict(headers or {})
    if token:
        fields["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        fields["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=data, headers=fields)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    except (OSError, http.client.HTTPException):
        return 0, {}, b""
    finally:
        connection.close()


def as_postgres(command):
    return ["runuser", "-u", "postgres", "--"] + command if os.getuid() == 0 else command


class Postgres:
    """A PostgreSQL server in `folder`, listening on `addresses`, trusting the networks of `clients`."""

    def __init__(self, bin_folder, folder, addresses, clients):
        self.bin, self.data, self.addresses = bin_folder, os.path.join(folder, "postgres"), addresses
        self.port = free_port()
        os.makedirs(self.data)
        if os.getuid() == 0:
            subprocess.run(["chown", "postgres", self.data], check=True)
        subprocess.run(as_postgres([f"{self.bin}/initdb", "-D", self.data, "-U", "tailor", "--auth=trust", "--locale=C"]),
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "pg_hba.conf"), "a") as rules:
            for network in clients:
                rules.write(f"host all all {network} trust\n")
        self.created = False

    def start(self):
        options = (f"-p {self.port} -c listen_addresses='{','.join(self.addresses)}' -c unix_socket_directories='' "
                   "-c max_connections=400")
        subprocess.run(as_postgres([f"{self.bin}/pg_ctl", "-D", self.data, "-l", os.path.join(self.data, "server.log"),
                                    "-w", "-t", "60", "-o", options, "start"]), check=True, stdout=subprocess.DEVNULL)
        if not self.created:
            subprocess.run(as_postgres([f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tailor", "tailor"]),
                           check=True)
            self.created = True

    def stop_immediately(self):
        subprocess.run(as_postgres([f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"]),
                       stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run(as_postgres([f"{self.bin}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sql(self, query):
        """Rows of `query`, each a list of texts."""
        result = subprocess.run([f"{self.bin}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tailor", "-d", "tailor",
                                 "-AtX", "-F", "\t", "-c", query], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"psql: {result.stderr.strip()}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]


class Server:
    """`tailor serve` on `host`, in a network namespace when given; its log in `folder`."""

    def __init__(self, name, binary, host, database, flags, folder, namespace=None):
        self.name, self.binary, self.host, self.database, self.flags = name, binary, host, database, flags
        self.namespace, self.port, self.process = namespace, free_port(), None
        self.log = os.path.join(folder, f"server-{name}.log")

    @property
    def address(self):
        return (self.host, self.port)

    def start(self):
        command = [self.binary, "serve", "--host", self.host, "--port", str(self.port), "--db", self.database] + self.flags
        if self.namespace:
            command = ["ip", "netns", "exec", self.namespace] + command
        environment = dict(os.environ, PGAPPNAME=f"tailor-{self.name}")
        log = open(self.log, "a")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, env=environment, text=True)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"server {self.name} did not start: see {self.log}")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def send(self, number):
        self.process.send_signal(number)
        if number == signal.SIGKILL:
            self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a stopped process cannot stop
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Stream:
    """A user's event stream on one server, resumed with Last-Event-ID: the message ids its chat events showed."""

    def __init__(self, server, token, topics):
        self.server, self.token, self.topics = server, token, topics
        self.seen_messages = set()
        self.last_id = None
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.thread.start()

    def run(self):
        while True:
            try:
                self.follow()
            except (OSError, http.client.HTTPException, ValueError):
                pass
            time.sleep(0.5)

    def follow(self):
        connection = http.client.HTTPConnection(*self.server.address, timeout=10)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        if self.last_id:
            headers["Last-Event-ID"] = self.last_id
        connection.request("GET", f"/api/events?topics={self.topics}", headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            response.read()
            return
        name, data, event_id = None, None, None
        while True:
            line = response.fp.readline()
            if not line:
                return
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line.startswith("id: "):
                event_id = line[4:]
            elif line == "":
                if name == "chat" and data:
                    self.seen_messages.update(message["id"] for message in json.loads(data).get("messages", []))
                if event_id:
                    self.last_id = event_id
                name, data, event_id = None, None, None
