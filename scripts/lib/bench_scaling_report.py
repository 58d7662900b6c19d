"""The tables of scripts/bench-scaling, from its JSON lines (the file given)
and the quota, if the runs were held to one (empty otherwise).
"""
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
quota = sys.argv[2]
if not quota:
    print("| servers (serving) | offered msg/s | accepted msg/s | send p99 ms | Tailor CPU µs/msg (all servers) | PostgreSQL CPU µs/msg "
          "| bus CPU µs/msg | commits/msg | statements/msg | feed reads/msg | feed applies/msg | PostgreSQL wake-ups/msg |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        if "tailor_us" not in row:
            print(f"| {row['servers']} | {row['rate']} | failed: {row.get('why')} |"); continue
        print(f"| {row['servers']} ({row.get('serving', row['servers'])}) | {row['rate']} | {row['accepted']:.0f} | {row['p99']:.1f} | {row['tailor_us']:.0f} "
              f"({' + '.join(map(str, row['each_us']))}) | {row['pg_us']:.0f} | {row.get('bus_us', 0):.0f} | {row['commits']:.2f} | {row['statements']:.1f} "
              f"| {row['feed_reads']:.2f} | {row.get('feed_applies', 0):.2f} | {row['pg_wakes']:.1f} |")
    print()
    print("Servers' CPU by thread, all servers together, µs per message (threads under 10 µs left out):")
    print()
    for row in rows:
        if "threads" in row:
            busy = sorted(((t, n) for n, t in row["threads"].items() if t >= 10), reverse=True)
            print(f"- {row['servers']} servers, {row['rate']}/s: " + ", ".join(f"{n} {t}" for t, n in busy))
    print()
    if any(row.get("idle_threads") for row in rows):
        print("One server with no client, by thread, µs per message (the average of them):")
        print()
        for row in rows:
            if row.get("idle_threads"):
                idle = sorted(((t, n) for n, t in row["idle_threads"].items()), reverse=True)
                print(f"- {row['servers']} servers, {row['rate']}/s: " + ", ".join(f"{n} {t}" for t, n in idle))
        print()
        print("One server with no client by its threads' run time (schedstat), the average of them, from the first message "
              "to the end: all it spent, µs a message; what it spends a second with no message; what the messages added to that:")
        print()
        for row in rows:
            if "idle_run_us" in row:
                print(f"- {row['servers']} servers, {row['rate']}/s: {row['idle_run_us']:.1f} µs a message, quiet "
                      f"{row['idle_quiet_us_s']:.0f} µs a second, **added {row['idle_added_us']:.1f} µs a message**")
        print()
    if any(any(row.get("bus_counts", [])) for row in rows):
        print("The bus's messages a message: in (sent by the servers) and out (delivered to them), and their bytes:")
        print()
        for row in rows:
            if any(row.get("bus_counts", [])):
                into, out, bytes_in, bytes_out = row["bus_counts"]
                print(f"- {row['servers']} servers, {row['rate']}/s: {into:.2f} in, {out:.2f} out, {bytes_in:.0f} and {bytes_out:.0f} bytes")
        print()
    print("View models a message, all servers together: built (the view cache's misses), taken from the cache, events published:")
    print()
    for row in rows:
        if "views" in row:
            built, cached, published = row["views"]
            print(f"- {row['servers']} servers, {row['rate']}/s: built {built:.2f}, from the cache {cached:.2f}, published {published:.2f}")
    print()
    print("Kept chats once the messages are sent: users and chats each server keeps (the average), and users read again "
          "and let go a message, all servers together:")
    print()
    for row in rows:
        if "kept" in row:
            kept = row["kept"]
            print(f"- {row['servers']} servers, {row['rate']}/s: {kept['users']:.0f} users and {kept['chats']:.0f} chats kept a server, "
                  f"read again {kept['read_again']:.3f} and let go {kept['let_go']:.3f} a message")
else:
    # The highest rate each run held: its steps went up until the first that failed.
    runs = {}
    for row in rows:
        best = runs.setdefault(row["servers"], {}).setdefault(row["round"], 0)
        if row.get("held"):
            runs[row["servers"]][row["round"]] = max(best, row["rate"])
    one = statistics.median(runs[min(runs)].values()) or 1
    print(f"| servers (each {quota} of a CPU) | highest rate held, each run | median | × one server |")
    print("|---:|---|---:|---:|")
    for count, by_round in sorted(runs.items()):
        median = statistics.median(by_round.values())
        print(f"| {count} | {', '.join(map(str, by_round.values()))} | {median:.0f} | {median / one:.2f} |")
