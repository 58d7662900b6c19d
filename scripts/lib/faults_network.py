"""What scripts/lib/faults.py cuts server B off from: B's network namespace,
reached over a veth pair, with the nft rules that cut it off from a port or
slow what comes from it, and the NATS bus on the host's side of the pair.
"""
import os
import socket
import subprocess
import time

from faults_support import free_port

NAMESPACE = "tailor-faults"
HOST_ADDRESS, NAMESPACE_ADDRESS = "10.231.0.1", "10.231.0.2"


class Network:
    """B's network namespace, and the rules that cut it off from PostgreSQL."""

    def __init__(self):
        self.ran = []
        self.receive_buffers = None

    def ip(self, *arguments, namespace=False):
        command = (["ip", "netns", "exec", NAMESPACE] if namespace else []) + list(arguments)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    def create(self):
        self.remove()
        subprocess.run(["ip", "netns", "add", NAMESPACE], check=True)
        self.ip("ip", "link", "add", "tf-host", "type", "veth", "peer", "name", "tf-server")
        self.ip("ip", "link", "set", "tf-server", "netns", NAMESPACE)
        self.ip("ip", "addr", "add", HOST_ADDRESS + "/24", "dev", "tf-host")
        self.ip("ip", "link", "set", "tf-host", "up")
        self.ip("ip", "addr", "add", NAMESPACE_ADDRESS + "/24", "dev", "tf-server", namespace=True)
        self.ip("ip", "link", "set", "tf-server", "up", namespace=True)
        self.ip("ip", "link", "set", "lo", "up", namespace=True)

    def cut(self, port):
        rules = f"""table inet faults {{
            chain out {{ type filter hook output priority 0; ip daddr {HOST_ADDRESS} tcp dport {port} drop; }}
            chain in {{ type filter hook input priority 0; ip saddr {HOST_ADDRESS} tcp sport {port} drop; }}
        }}"""
        self.rules(rules)

    def slow(self, port):
        """What B takes in from `port` held to 2 KB/s (packets over it dropped,
        so TCP sends again, slower), and B's receive buffers small: the
        sender's writes block within a second."""
        self.receive_buffers = subprocess.run(["ip", "netns", "exec", NAMESPACE, "sysctl", "-n", "net.ipv4.tcp_rmem"],
                                              check=True, capture_output=True, text=True).stdout.split()
        self.ip("sysctl", "-q", "-w", "net.ipv4.tcp_rmem=4096 4096 4096", namespace=True)
        self.rules(f"""table inet faults {{
            chain in {{ type filter hook input priority 0; ip saddr {HOST_ADDRESS} tcp sport {port} limit rate over 2 kbytes/second drop; }}
        }}""")

    def rules(self, text):
        """Loads nft's rules `text` in B's namespace."""
        subprocess.run(["ip", "netns", "exec", NAMESPACE, "nft", "-f", "-"], input=text.encode(), check=True)

    def heal(self):
        subprocess.run(["ip", "netns", "exec", NAMESPACE, "nft", "delete", "table", "inet", "faults"],
                       stderr=subprocess.DEVNULL)
        if self.receive_buffers:
            self.ip("sysctl", "-q", "-w", "net.ipv4.tcp_rmem=" + " ".join(self.receive_buffers), namespace=True)
            self.receive_buffers = None

    def remove(self):
        subprocess.run(["ip", "link", "delete", "tf-host"], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "delete", NAMESPACE], stderr=subprocess.DEVNULL)


class Bus:
    """A nats-server on `address`, killed and started again on its port as a
    fault. A client whose writes block for a second, or with 1 MiB waiting
    for it, is a slow consumer, dropped (its limits are NATS's defaults made
    small, so that the fault lands within seconds)."""

    def __init__(self, program, address, folder):
        self.program, self.address, self.port = program, address, free_port()
        self.log, self.process = os.path.join(folder, "nats.log"), None
        self.url = f"nats://{address}:{self.port}"
        self.configuration = os.path.join(folder, "nats.conf")
        with open(self.configuration, "w") as file:
            file.write('write_deadline: "1s"\nmax_pending: 1048576\n')

    def slow_consumers(self):
        """How many times the bus has dropped a slow consumer so far."""
        try:
            with open(self.log) as file:
                return sum("Slow Consumer" in line for line in file)
        except OSError:
            return 0

    def start(self):
        self.process = subprocess.Popen([self.program, "-c", self.configuration, "-a", self.address, "-p", str(self.port), "-l", self.log],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection((self.address, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"nats-server did not start: see {self.log}")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
