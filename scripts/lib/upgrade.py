"""A rolling update under load: two servers of an earlier build on one
PostgreSQL database, users and their streams on both, messages at a steady
rate; then each server in turn stopped (SIGTERM, as Kubernetes does) and
started again on its port with this build, as deploy/kubernetes rolls (the
new one beside the old for a while). Then: nothing acknowledged lost, nothing
twice, read-your-writes on the other server, every stored message on every
stream (each resumes from its last event on the server that comes back), and
every view model on both servers equal to a fresh server's of this build.
With --bus the new servers are on a NATS bus of the run's own and the old
ones are not: the new must keep notifying through PostgreSQL while an old
one is heard. With --old-on-bus as well the old ones are on it too (a build
that knows the bus), and the new must send them every commit as they expect. Run by scripts/upgrade-check, which builds what it needs.
"""
import argparse
import signal
import subprocess
import sys
import time

from faults import Load, check_outcome, report, wait_ready
from faults_support import Postgres, Server, free_port, request, say


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True, help="the earlier build's tailor")
    parser.add_argument("--new", required=True, help="this build's tailor")
    parser.add_argument("--postgres-bin", required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--bus", help="nats-server, to put the new servers on a bus")
    parser.add_argument("--old-on-bus", action="store_true", help="the old servers on the bus too")
    options = parser.parse_args()
    postgres = Postgres(options.postgres_bin, options.folder, ["127.0.0.1"], ["127.0.0.1/32"])
    servers, failures, nats = [], [], None
    try:
        postgres.start()
        database = f"postgresql://tailor@127.0.0.1:{postgres.port}/tailor"
        flags = ["--presence-lifetime", "3", "--heartbeat", "2", "--write-rate", "0", "--account-rate", "0",
                 "--max-connections-per-address", "0", "--log-level", "warning", "--public", options.folder]
        new_flags = list(flags)
        if options.bus:
            port = free_port()
            nats = subprocess.Popen([options.bus, "-a", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            new_flags += ["--bus", f"nats://127.0.0.1:{port}"]
            if options.old_on_bus:
                flags += ["--bus", f"nats://127.0.0.1:{port}"]
        a = Server("a", options.old, "127.0.0.1", database, flags, options.folder)
        b = Server("b", options.old, "127.0.0.1", database, flags, options.folder)
        servers = [a, b]
        for server in servers:
            server.start()
        load = Load(a, b, options.users, options.rate, prefix="u")
        users = load.users
        say(f"{len(users)} users in {len(users) // 2} chats, about {options.rate:.0f} messages/s through two servers of the earlier build")
        time.sleep(6)
        for server in (b, a):
            server.stop()
            server.binary, server.flags = options.new, new_flags
            server.start()
            ready = wait_ready(server)
            if ready is None:
                failures.append(f"{server.name} of this build was not ready within 60 s")
            say(f"{server.name} rolled to this build, ready in {ready if ready is None else round(ready, 1)} s, beside "
                + ("the other of the earlier build" if server is b else "the other of this build"))
            time.sleep(10)
        failures += check_outcome(postgres, users, servers, load.end())
        failures += check_against_fresh(options.new, database, flags, options.folder, users, servers)
    finally:
        for server in servers:
            server.stop()
        if nats:
            nats.send_signal(signal.SIGTERM)
            nats.wait()
        postgres.stop()
    return report(failures)


def check_against_fresh(binary, database, flags, folder, users, servers):
    """Every user's view models on the rolled servers as a server of this build that just started reads them."""
    fresh = Server("fresh", binary, "127.0.0.1", database, flags, folder)
    fresh.start()
    try:
        wait_ready(fresh)
        differing = []
        for user in users:
            for path in ["/api/chats", "/api/badge", f"/api/chats/{user.chat}"]:
                expected = request(fresh.address, "GET", path, None, user.token)[2]
                for server in servers:
                    if request(server.address, "GET", path, None, user.token)[2] != expected:
                        differing.append(f"{user.name} {path} on {server.name}")
        if differing:
            return [f"{len(differing)} view models differ from a fresh server's, e.g. {differing[:3]}"]
        say(f"all {len(users) * 3 * len(servers)} view models equal a fresh server's")
        return []
    finally:
        fresh.stop()


if __name__ == "__main__":
    sys.exit(main())
