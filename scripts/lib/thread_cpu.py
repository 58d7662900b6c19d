"""CPU per message of one run of scripts/bench-cpu, from the snapshots it took.

    python3 scripts/lib/thread_cpu.py RUN_FOLDER LABEL MESSAGES

RUN_FOLDER holds before.threads/after.threads (a thread's name and its CPU
ticks per line) and before.process/after.process (the process's user and
system ticks). Threads are grouped by name without their number (loop-0 and
loop-1 are "loop"). Prints one line: LABEL, microseconds per message, the
user and system parts, then each group's share, largest first.
"""
import collections
import os
import re
import sys


def thread_ticks(path):
    ticks = collections.Counter()
    with open(path) as lines:
        for line in lines:
            name, count = line.rsplit(" ", 1)
            ticks[re.sub(r"[-_]?\d+$", "", name)] += int(count)
    return ticks


def process_ticks(path):
    with open(path) as text:
        user, system = text.read().split()
    return int(user), int(system)


def main():
    folder, label, messages = sys.argv[1], sys.argv[2], int(sys.argv[3])
    per_message = 1e6 / os.sysconf("SC_CLK_TCK") / messages
    before, after = thread_ticks(f"{folder}/before.threads"), thread_ticks(f"{folder}/after.threads")
    groups = {name: (after[name] - before.get(name, 0)) * per_message for name in after}
    (user_before, system_before), (user_after, system_after) = (
        process_ticks(f"{folder}/before.process"), process_ticks(f"{folder}/after.process"))
    user = (user_after - user_before) * per_message
    system = (system_after - system_before) * per_message
    shares = ", ".join(f"{name} {value:.0f}" for name, value in sorted(groups.items(), key=lambda item: -item[1]) if value >= 1)
    print(f"{label} {user + system:.0f} µs per message (user {user:.0f}, system {system:.0f}): {shares}")


main()
