"""Two Tailor servers on one PostgreSQL database under load, and one fault at a
time: checks that one server's failure stays its own and that nothing is lost.

Server A listens on 127.0.0.1; server B runs in a network namespace of its
own (reached over a veth pair), so that it can be cut off from PostgreSQL
alone. Users come in pairs, one on each server, each pair a chat; every user
sends messages at a steady rate with a clientId, and sends one again (same
clientId) when it failed or took 5 s, as a client that retries does; marks
its chat read every few seconds; and holds a stream of chats, badge and its
chat on both servers. With --bus both servers are on a NATS bus of the run's
own (on the host's side of the veth pair), and three faults more: the bus killed
and started again, B cut off from the bus but not from PostgreSQL, and B a slow
consumer that the bus drops (what it sends B held to a trickle). Run by
scripts/faults, which prepares what it needs.
"""
import argparse
import json
import random
import signal
import sys
import threading
import time
import uuid

from faults_network import HOST_ADDRESS, NAMESPACE, NAMESPACE_ADDRESS, Bus, Network
from faults_support import Postgres, Server, Stream, request, say, percentile

SEND_TIMEOUT = 5.0


class Ledger:
    """Every send's attempts and every acknowledgement, shared by the senders."""

    def __init__(self):
        self.lock = threading.Lock()
        self.attempts = []   # (server, started, seconds, status)
        self.acked = {}      # clientId -> (message id, chat, server)
        self.unacked = []    # clientIds given up at the end
        self.read_your_writes = [0, []]  # checked, failures
        self.checks = []     # the read-your-writes checks under way

    def attempt(self, server, started, seconds, status):
        with self.lock:
            self.attempts.append((server, started, seconds, status))


class User:
    def __init__(self, name, home, other):
        self.name, self.home, self.other = name, home, other
        self.token = self.id = self.chat = None
        self.streams = []


def sign_up(user):
    status, _, body = request(user.home.address, "POST", "/api/users", {"name": user.name})
    assert status == 201, f"sign-up of {user.name}: {status} {body[:200]}"
    answer = json.loads(body)
    user.token, user.id = answer["token"], answer["user"]["id"]


def send_messages(user, ledger, stop, give_up, interval, rng):
    """Sends at a steady pace, each message until it is acknowledged; marks read now and then."""
    next_read = time.monotonic() + rng.uniform(1, 4)
    sent = 0
    while not stop.is_set():
        client_id = str(uuid.uuid4())
        text = f"{user.name} {sent}"
        while True:
            started = time.monotonic()
            status, headers, body = request(user.home.address, "POST", f"/api/chats/{user.chat}/messages",
                                            {"text": text, "clientId": client_id}, user.token, timeout=SEND_TIMEOUT)
            ledger.attempt(user.home.name, started, time.monotonic() - started, status)
            if status in (200, 201):
                message = json.loads(body)["message"]["id"]
                with ledger.lock:
                    ledger.acked[client_id] = (message, user.chat, user.home.name)
                if sent % 5 == 0:
                    # Apart, so that a frozen other server does not hold up the sender.
                    check = threading.Thread(target=check_read_your_write, daemon=True,
                                             args=(user, message, headers.get("tailor-position"), ledger))
                    check.start()
                    with ledger.lock:
                        ledger.checks.append(check)
                break
            if give_up.is_set():
                with ledger.lock:
                    ledger.unacked.append(client_id)
                break
            time.sleep(0.2)
        sent += 1
        if time.monotonic() >= next_read:
            request(user.home.address, "POST", f"/api/chats/{user.chat}/read", None, user.token, timeout=SEND_TIMEOUT)
            next_read = time.monotonic() + rng.uniform(2, 5)
        time.sleep(rng.uniform(0.5, 1.5) * interval)


def check_read_your_write(user, message, position, ledger):
    """The other server, told the write's position, shows the message. A 503 (`behind`, or the
    database away) is asked again for 30 s; a 200 without the message breaks the rule."""
    deadline = time.monotonic() + 30
    problem, status = None, 0
    while time.monotonic() < deadline:
        status, _, body = request(user.other.address, "GET", f"/api/chats/{user.chat}", None, user.token,
                                  headers={"Tailor-Position": position or "0"}, timeout=SEND_TIMEOUT)
        if status == 200:
            if not any(m["id"] == message for m in json.loads(body)["messages"]):
                problem = f"{user.name}: {user.other.name} answered position {position} without message {message}"
            break
        time.sleep(0.2)
    else:
        problem = f"{user.name}: {user.other.name} did not answer position {position} within 30 s (last status {status})"
    with ledger.lock:
        ledger.read_your_writes[0] += 1
        if problem:
            ledger.read_your_writes[1].append(problem)


def aim(caught, attempt, release, tries=400):
    """Applies `attempt` at random moments until `caught` says it landed inside a commit."""
    for number in range(1, tries + 1):
        time.sleep(random.uniform(0.02, 0.2))
        attempt()
        time.sleep(0.05)
        if caught():
            return number
        release()
    return None


class Load:
    """Users in pairs, one on `a` and one on `b`, each pair a chat, every user with
    a stream on both servers and sending at `rate` messages a second in all."""

    def __init__(self, a, b, count, rate, prefix):
        run = uuid.uuid4().hex[:6]
        self.users = []
        for pair in range(count // 2):
            self.users += [User(f"{prefix}a{pair}x{run}", a, b), User(f"{prefix}b{pair}x{run}", b, a)]
        for user in self.users:
            sign_up(user)
        for first, second in zip(self.users[::2], self.users[1::2]):
            status, _, body = request(a.address, "POST", "/api/chats", {"contact": second.name}, first.token)
            assert status == 201, f"chat: {status} {body[:200]}"
            first.chat = second.chat = json.loads(body)["id"]
        for user in self.users:
            for server in (a, b):
                stream = Stream(server, user.token, f"chats,badge,chat:{user.chat}")
                user.streams.append(stream)
                stream.start()
        self.ledger, self.stop, self.give_up = Ledger(), threading.Event(), threading.Event()
        interval = len(self.users) / rate
        self.senders = [threading.Thread(target=send_messages, args=(user, self.ledger, self.stop, self.give_up, interval, random.Random(index)),
                                         daemon=True) for index, user in enumerate(self.users)]
        for sender in self.senders:
            sender.start()

    def end(self):
        """Stops the senders, lets the last sends and checks finish; the ledger."""
        self.stop.set()
        time.sleep(SEND_TIMEOUT + 1)
        self.give_up.set()
        for sender in self.senders:
            sender.join(timeout=SEND_TIMEOUT * 3)
        for check in self.ledger.checks:
            check.join()
        return self.ledger


def wait_ready(server, limit=60):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if request(server.address, "GET", "/readyz", timeout=2)[0] == 200:
            return time.monotonic() - started
        time.sleep(0.1)
    return None


class ReadinessWatch:
    """Polls a server's /readyz through a fault: how many answers were not 200."""

    def __init__(self, server):
        self.server, self.stop, self.answers, self.unready = server, threading.Event(), 0, 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            status = request(self.server.address, "GET", "/readyz", timeout=3)[0]
            self.answers += 1
            self.unready += status != 200
            time.sleep(0.25)

    def end(self):
        self.stop.set()
        self.thread.join()
        return self.unready, self.answers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tailor", required=True)
    parser.add_argument("--postgres-bin", required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--short", action="store_true", help="the faults inside a commit and a burst of ended backends only")
    parser.add_argument("--bus", help="nats-server: both servers on a bus, and the bus's faults")
    options = parser.parse_args()
    bus = Bus(options.bus, HOST_ADDRESS, options.folder) if options.bus else None
    network = Network()
    network.create()
    postgres = Postgres(options.postgres_bin, options.folder, ["127.0.0.1", HOST_ADDRESS], [HOST_ADDRESS.rsplit(".", 1)[0] + ".0/24"])
    servers = []
    failures = []
    try:
        postgres.start()
        if bus:
            bus.start()
        flags = (["--bus", bus.url] if bus else []) + ["--idle-transaction-timeout", "3", "--lock-wait", "1", "--presence-lifetime", "3",
                 "--heartbeat", "2", "--write-rate", "0", "--account-rate", "0", "--max-connections-per-address", "0",
                 "--log-level", "warning", "--public", options.folder]
        a = Server("a", options.tailor, "127.0.0.1", f"postgresql://tailor@127.0.0.1:{postgres.port}/tailor", flags, options.folder)
        b = Server("b", options.tailor, NAMESPACE_ADDRESS, f"postgresql://tailor@{HOST_ADDRESS}:{postgres.port}/tailor", flags,
                   options.folder, namespace=NAMESPACE)
        servers = [a, b]
        for server in servers:
            server.start()
        load = Load(a, b, options.users, options.rate, prefix="f")
        users, ledger = load.users, load.ledger
        say(f"{len(users)} users in {len(users) // 2} chats, about {options.rate:.0f} messages/s through both servers")
        time.sleep(5)

        def writer_idle_in_transaction(server):
            return lambda: postgres.sql(f"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tailor-{server.name}-writer' "
                                        "AND state = 'idle in transaction'") == [["1"]]

        def during(name, fault_server, healthy, act, hold, heal, aimed=None):
            """Runs one fault: `act` (aimed inside a commit when `aimed`), held `hold` seconds, then `heal`."""
            watch = ReadinessWatch(healthy) if healthy else None
            started = time.monotonic()
            tries = None
            if aimed:
                tries = aim(writer_idle_in_transaction(fault_server), act, heal)
                if tries is None:
                    failures.append(f"{name}: never landed inside a commit")
            else:
                act()
            time.sleep(hold)
            healed = time.monotonic()
            heal()
            ready = wait_ready(fault_server) if fault_server else None
            ready_text = f"ready {ready:.1f} s after the heal" if ready is not None else "not ready within 60 s"
            if fault_server and ready is None:
                failures.append(f"{name}: {fault_server.name} {ready_text}")
            line = f"{name}:" + (f" landed inside a commit at try {tries};" if tries else "") + f" {fault_server.name if fault_server else 'both'} {ready_text}"
            if healthy:
                unready, answers = watch.end()
                window = [(s, t, status) for server, s, t, status in ledger.attempts if server == healthy.name and started <= s <= healed]
                seconds = sorted(t for _, t, _ in window)
                acks = sorted(s + t for s, t, status in window if status in (200, 201))
                gap = max((later - earlier for earlier, later in zip([started] + acks, acks + [healed])), default=0)
                p99 = percentile(seconds, 0.99)
                line += (f"; {healthy.name}: {len(window)} sends, p99 {p99 * 1000:.0f} ms, longest time without an acknowledged "
                         f"send {gap:.2f} s, /readyz not ready {unready} of {answers}")
                if gap > 2.5 or p99 > 2.5:
                    failures.append(f"{name}: {healthy.name}'s writes were held up: p99 {p99:.2f} s, {gap:.2f} s without an acknowledged send")
                if unready:
                    failures.append(f"{name}: the healthy server {healthy.name} said not ready {unready} times")
            say(line)
            time.sleep(4)

        during("B frozen inside a commit (SIGSTOP, 10 s)", b, a, lambda: b.send(signal.SIGSTOP), 10 if not options.short else 6,
               lambda: b.send(signal.SIGCONT), aimed=True)
        during("B cut off from PostgreSQL inside a commit (12 s)", b, a, lambda: network.cut(postgres.port), 12 if not options.short else 6,
               network.heal, aimed=True)
        def terminate():
            for _ in range(3):
                postgres.sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'tailor%'")
                time.sleep(1.6)
        during("PostgreSQL's backends ended three times in 5 s", b, None, terminate, 0, lambda: None)
        if bus:
            during("the bus killed (SIGKILL) and started again after 5 s", b, a, bus.kill, 5, bus.start)
            during("B cut off from the bus, not from PostgreSQL (8 s)", b, a, lambda: network.cut(bus.port), 8, network.heal)
            dropped = bus.slow_consumers()
            during("B a slow consumer of the bus (what it sends B held to 2 KB/s, 8 s)", b, a, lambda: network.slow(bus.port), 8,
                   network.heal)
            if bus.slow_consumers() == dropped:
                failures.append("B a slow consumer of the bus: the bus never dropped B as one")
        if not options.short:
            during("A killed (SIGKILL) and started again", a, None, lambda: a.send(signal.SIGKILL), 1, a.start)
            during("PostgreSQL stopped (-m immediate) for 8 s", a, None, postgres.stop_immediately, 8, postgres.start)
            wait_ready(b)

        failures += check_outcome(postgres, users, servers, load.end())
    finally:
        for server in servers:
            server.stop()
        if bus:
            bus.kill()
        postgres.stop()
        network.remove()
    return report(failures)


def report(failures):
    """Says each failed check and the verdict; the exit status."""
    for failure in failures:
        say("FAILED: " + failure)
    say("passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


def check_outcome(postgres, users, servers, ledger):
    """Nothing acknowledged lost, nothing twice, every message on every stream, both servers alike."""
    failures = []
    stored = {}
    for message, chat, client in postgres.sql("SELECT id, chat_id, coalesce(client_id, '') FROM messages"):
        stored.setdefault(client, []).append((message, chat))
    twice = [client for client, rows in stored.items() if len(rows) > 1]
    lost = [client for client, (message, _, _) in ledger.acked.items() if [row[0] for row in stored.get(client, [])] != [message]]
    say(f"{len(ledger.acked)} messages acknowledged, {sum(map(len, stored.values()))} stored, {len(ledger.unacked)} given up unanswered")
    if twice:
        failures.append(f"{len(twice)} client ids stored twice")
    if lost:
        failures.append(f"{len(lost)} acknowledged messages not stored as acknowledged, e.g. {lost[:3]}")
    checked, unread = ledger.read_your_writes
    say(f"read-your-writes on the other server: {checked - len(unread)} of {checked}")
    failures += unread[:5]
    # Streams: every stored message on both members' streams on both servers, once the streams settle.
    by_chat = {}
    for rows in stored.values():
        for message, chat in rows:
            by_chat.setdefault(chat, set()).add(message)
    deadline = time.monotonic() + 20
    while True:
        missing = [(user.name, stream.server.name, len(by_chat.get(user.chat, set()) - stream.seen_messages))
                   for user in users for stream in user.streams if by_chat.get(user.chat, set()) - stream.seen_messages]
        if not missing or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if missing:
        failures.append(f"{len(missing)} streams missed stored messages, e.g. {missing[:3]}")
    else:
        say(f"every stored message reached all {sum(len(u.streams) for u in users)} streams")
    # Both servers' view models alike, and each stream's last events as the server answers.
    differing = []
    for user in users:
        for path in ["/api/chats", "/api/badge", f"/api/chats/{user.chat}"]:
            bodies = [request(server.address, "GET", path, None, user.token)[2] for server in servers]
            if bodies[0] != bodies[1]:
                differing.append(f"{user.name} {path}")
    if differing:
        failures.append(f"{len(differing)} view models differ between the servers, e.g. {differing[:3]}")
    else:
        say(f"all {len(users) * 3} view models are the same on both servers")
    return failures


if __name__ == "__main__":
    sys.exit(main())
