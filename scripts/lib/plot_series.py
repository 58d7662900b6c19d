#!/usr/bin/env python3
"""Draws a load report's series (tailor-load scenario --json): latency per
interval (p99 and max of sending and of end to end, p99.9 of end to end) on a
log scale; the server's CPU, memory and write-ahead log beneath; and the CPU
of the server's busiest threads at the bottom, so that a stall shows beside
what the server was doing then, and which stage did it."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SEND = "POST /api/chats/:id/messages"
END_TO_END = "message due → recipient's stream"


def series(intervals, name, field):
    points = []
    for interval in intervals:
        for latency in interval["latencies"]:
            if latency["name"] == name and latency["count"] > 0:
                points.append((interval["startSeconds"] / 60, max(latency[field], 0.01)))
    return zip(*points) if points else ([], [])


def draw_threads(axes, intervals, minutes, shown=6):
    """The CPU % of the threads that used the most over the whole run."""
    totals = {}
    for interval in intervals:
        for name, percent in (interval.get("threadCPUPercent") or {}).items():
            totals[name] = totals.get(name, 0) + percent
    for name in sorted(totals, key=totals.get, reverse=True)[:shown]:
        points = [(m, interval["threadCPUPercent"][name]) for m, interval in zip(minutes, intervals)
                  if name in (interval.get("threadCPUPercent") or {})]
        axes.plot([p[0] for p in points], [p[1] for p in points], label=name)
    if totals:
        axes.set_ylabel("thread CPU %")
        axes.legend(loc="upper left", fontsize="small", ncol=3)


def main(report_path, out_path):
    with open(report_path) as file:
        report = json.load(file)
    intervals = report["intervals"]
    figure, (top, bottom, threads) = plt.subplots(3, 1, figsize=(11, 9), sharex=True, gridspec_kw={"height_ratios": [3, 2, 2]})
    for name, field, style, label in [(SEND, "p99Ms", "-", "send p99"), (SEND, "maxMs", ":", "send max"),
                                      (END_TO_END, "p99Ms", "-", "end to end p99"), (END_TO_END, "p999Ms", "--", "end to end p99.9"),
                                      (END_TO_END, "maxMs", ":", "end to end max")]:
        x, y = series(intervals, name, field)
        top.plot(list(x), list(y), style, label=label)
    top.set_yscale("log")
    top.axhline(20, color="grey", linewidth=0.8)
    top.axhline(100, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylabel("ms (log)")
    top.set_title(f"Tailor: {report['users']} users, {report['rate']:.0f} messages/s, "
                  f"{report['intervalSeconds']:.0f}-second intervals (lines at 20 and 100 ms)")
    top.legend(loc="upper left", fontsize="small")
    minutes = [interval["startSeconds"] / 60 for interval in intervals]
    for key, label in [("serverCPUPercent", "server CPU %"), ("serverRSSMiB", "server RSS MiB"), ("logMiB", "log MiB")]:
        values = [interval.get(key) for interval in intervals]
        points = [(m, v) for m, v in zip(minutes, values) if v is not None]
        if points:
            bottom.plot([p[0] for p in points], [p[1] for p in points], label=label)
    bottom.legend(loc="upper left", fontsize="small")
    draw_threads(threads, intervals, minutes)
    threads.set_xlabel("minutes")
    figure.tight_layout()
    figure.savefig(out_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
