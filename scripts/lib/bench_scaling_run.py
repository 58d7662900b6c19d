"""One run of scripts/bench-scaling, from the figures the script took before and
after it (arguments in the script's order) and tailor-load's report: prints
its figures as a JSON line, a message's costs being per message accepted.
"""
import json, sys
(path, count, rate, cpu, pg, wakes, db_before, db_after, reads, applies, views_before, views_after, hz, bound, run_round, threads_before,
 threads_after, bus, serving, idle_before, idle_after, idle_run, quiet_run, window, kept_before, kept_after, quiet_seconds,
 bus_counts_before, bus_counts_after) = sys.argv[1:]
kept_before, kept_after = [int(x) for x in kept_before.split()], [int(x) for x in kept_after.split()]
idle_count = int(count) - int(serving)
bus_counts = [int(b) - int(a) for a, b in zip(bus_counts_before.split(), bus_counts_after.split())]
def threads(file):
    totals = {}
    for line in open(file):
        name, ticks = line.rsplit(" ", 1)
        totals[name] = totals.get(name, 0) + int(ticks)
    return totals
def grown(before_file, after_file):
    """Each thread's ticks that grew from one file to the other, by name."""
    before = threads(before_file)
    return {name: ticks - before.get(name, 0) for name, ticks in threads(after_file).items() if ticks > before.get(name, 0)}
try:
    report = json.load(open(path))
except Exception:
    print(json.dumps({"servers": int(count), "rate": int(rate), "round": int(run_round), "held": False, "why": "no report"}))
    sys.exit()
accepted = max(report["messages"]["accepted"], 1)
send = next((r for r in report["routes"] if r["name"].startswith("POST /api/chats/:id/messages")), {"p99Ms": 1e9})
commits = int(db_after.split()[0]) - int(db_before.split()[0])
statements = int(db_after.split()[1]) - int(db_before.split()[1])
per = lambda ticks: int(ticks) / int(hz) * 1e6 / accepted
held = (report["messages"]["lost"] == 0 and report["viewModelsStale"] == 0 and not report["errors"]
        and send["p99Ms"] < float(bound) and report["messagesPerSecond"] >= 0.97 * int(rate))
print(json.dumps({"servers": int(count), "rate": int(rate), "round": int(run_round), "accepted": report["messagesPerSecond"],
                  "p99": send["p99Ms"], "held": held, "lost": report["messages"]["lost"], "stale": report["viewModelsStale"],
                  "errors": report["errors"], "tailor_us": sum(per(c) for c in cpu.split(",")), "bus_us": per(bus),
                  "serving": int(serving),
                  "each_us": [round(per(c)) for c in cpu.split(",")], "pg_us": per(pg),
                  "commits": commits / accepted, "statements": statements / accepted, "feed_reads": int(reads) / accepted,
                  "feed_applies": int(applies) / accepted,
                  # The view models built (the cache's misses), taken from it, and the events they made, a message.
                  "views": [(int(b) - int(a)) / accepted for a, b in zip(views_before.split(), views_after.split())],
                  # Each server on average: users and chats kept; all servers, a message: users read again and let go.
                  "kept": {"users": kept_after[2] / int(count), "chats": kept_after[3] / int(count),
                           "read_again": (kept_after[0] - kept_before[0]) / accepted, "let_go": (kept_after[1] - kept_before[1]) / accepted},
                  "pg_wakes": int(wakes) / accepted,
                  "threads": {name: round(per(ticks)) for name, ticks in grown(threads_before, threads_after).items()},
                  # The bus's messages in and out and their bytes, a message.
                  "bus_counts": [round(c / accepted, 2) for c in bus_counts],
                  # One server with no client, on average, by run time: all it spent a message, what it
                  # spends a second with no message (over the quiet seconds before), and what the messages added to that.
                  **({"idle_run_us": int(idle_run) / 1e3 / accepted / idle_count,
                      "idle_quiet_us_s": int(quiet_run) / 1e3 / int(quiet_seconds) / idle_count,
                      "idle_added_us": (int(idle_run) - int(quiet_run) / int(quiet_seconds) * int(window) / 1e9) / 1e3 / accepted / idle_count}
                     if idle_count else {}),
                  # One server with no client, on average: tenths of a µs, since these are small.
                  "idle_threads": {name: round(per(ticks) / idle_count, 1) for name, ticks in grown(idle_before, idle_after).items()}
                                  if idle_count else {}}))
