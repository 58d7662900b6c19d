#!/usr/bin/env python3
"""Where a page's main thread goes under a flood of messages: one headless
Chromium signed in as alice with her chat with bob open (or her chat list),
bob (or five contacts) sending at a steady rate through the API, and every
0.25 s a trivial script timed from WebDriver. Before and after the flood,
the CPU time of the renderer's main thread (from /proc) and Chromium's own
counters (`Performance.getMetrics`: task, script, layout and style time of
the main thread); with --trace the main thread's trace events summed by name,
with --profile a sampled CPU profile of the page's scripts summed by function
(both slow the page).

    scripts/experiments/page-flood.py TAILOR [--rate 50] [--seconds 15] [--senders 1] [--screen chat|list]
                                             [--public FOLDER] [--trace | --profile]

TAILOR is a built `tailor`; the page comes from Public/. The server runs with
--write-rate 0 so that one sender reaches the rate. A measurement, not a test:
it prints figures and asserts nothing.
"""

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Browser"))
arguments = argparse.ArgumentParser()
arguments.add_argument("tailor")
arguments.add_argument("--rate", type=float, default=50)
arguments.add_argument("--seconds", type=float, default=15)
arguments.add_argument("--senders", type=int, default=1)
arguments.add_argument("--screen", choices=("chat", "list"), default="chat")
arguments.add_argument("--public", help="the page's files (default: Public/)")
arguments.add_argument("--profile", action="store_true", help="sample the page's scripts (which slows them)")
arguments.add_argument("--trace", action="store_true", help="trace the renderer's main thread and sum its events by name")
options = arguments.parse_args()
sys.argv = [sys.argv[0], options.tailor] + ([options.public] if options.public else [])

import support  # noqa: E402  (reads sys.argv for the executable)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def api(url, method, path, body=None, token=None):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


class FloodServer(support.Server):
    def start(self, port):
        import re
        import subprocess
        self.process = subprocess.Popen(
            [support.EXECUTABLE, "--port", port, "--db", os.path.join(self.folder, "tailor.sqlite"), "--public", self.public,
             "--write-rate", "0", "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
        self.url = re.search(r"listening on (http://\S+)", self.process.stdout.readline()).group(1)


def shown(driver, selector, until=lambda element: element.is_displayed()):
    """The element once it shows (and meets `until`), within 30 s."""
    deadline = time.time() + 30
    while True:
        try:
            element = driver.find_element(By.CSS_SELECTOR, selector)
            if until(element):
                return element
        except support.REDRAWN:
            pass
        if time.time() > deadline:
            raise RuntimeError(f"{selector} never showed")
        time.sleep(0.1)


def renderer_cpu():
    """CPU seconds of each Chromium renderer's main thread (the task whose id is the process's), by pid."""
    seconds = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if b"--type=renderer" not in file.read():
                    continue
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def summarize_trace(tools, messages):
    """Time of the renderer's main thread by event name (nested events are counted in each)."""
    tools.command("Tracing.end")
    events = []
    while True:
        message = tools.next(lambda m: m.get("method") in ("Tracing.dataCollected", "Tracing.tracingComplete"), 60)
        if message is None or message["method"] == "Tracing.tracingComplete":
            break
        events += message["params"]["value"]
    main = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    spent, times = collections.Counter(), collections.Counter()
    for event in events:
        if (event.get("pid"), event.get("tid")) in main and event.get("ph") == "X":
            spent[event["name"]] += event.get("dur", 0) / 1000
            times[event["name"]] += 1
    print("  renderer main thread by event (ms a message, times):")
    for name, total in spent.most_common(12):
        print(f"    {total / max(messages, 1):6.2f}  {times[name]:6}  {name}")


def main():
    folder = tempfile.mkdtemp(prefix="tailor-page-flood-")
    server = FloodServer(folder)
    driver = support.browser()
    try:
        driver.get(server.url + "/")
        shown(driver, "#sign-up-name").send_keys("alice", Keys.ENTER)
        shown(driver, "#connection", until=lambda element: "Live" in element.text)
        senders = [api(server.url, "POST", "/api/users", {"name": f"sender{index}"}) for index in range(options.senders)]
        chats = [api(server.url, "POST", "/api/chats", {"contact": "alice"}, sender["token"])["id"] for sender in senders]
        driver.get(server.url + (f"/#/chats/{chats[0]}" if options.screen == "chat" else "/#/chats"))
        shown(driver, "#chat-title" if options.screen == "chat" else ".chat-list a")
        tools = support.DevTools(driver)
        tools.call("Performance.enable")
        if options.profile:
            tools.call("Profiler.enable")
            tools.call("Profiler.setSamplingInterval", {"interval": 200})
            tools.call("Profiler.start")
        if options.trace:
            tools.call("Tracing.start", {"categories": "devtools.timeline", "transferMode": "ReportEvents"})
        before = {metric["name"]: metric["value"] for metric in tools.call("Performance.getMetrics")["metrics"]}
        cpu_before = renderer_cpu()
        stop = threading.Event()
        sent = collections.Counter()

        def send(sender, chat):
            interval = options.senders / options.rate
            due = time.time()
            while not stop.is_set():
                api(server.url, "POST", f"/api/chats/{chat}/messages", {"text": f"m{sent[sender['token']]}"}, sender["token"])
                sent[sender["token"]] += 1
                due += interval
                time.sleep(max(0, due - time.time()))

        threads = [threading.Thread(target=send, args=(sender, chat), daemon=True) for sender, chat in zip(senders, chats)]
        for thread in threads:
            thread.start()
        trips = []
        started = time.time()
        while time.time() - started < options.seconds:
            began = time.time()
            driver.execute_script("return document.querySelectorAll('*').length")
            trips.append((time.time() - began) * 1000)
            time.sleep(max(0, 0.25 - (time.time() - began)))
        stop.set()
        for thread in threads:
            thread.join()
        cpu_after = renderer_cpu()
        after = {metric["name"]: metric["value"] for metric in tools.call("Performance.getMetrics")["metrics"]}
        messages = sum(sent.values())
        trips.sort()
        print(f"{options.screen}, {options.senders} sender(s) at {options.rate:g}/s for {options.seconds:g} s: {messages} messages")
        print(f"script round trip: median {statistics.median(trips):.0f} ms, p99 {trips[int(len(trips) * 0.99) - 1]:.0f} ms, "
              f"max {trips[-1]:.0f} ms ({len(trips)} trips)")
        busiest = max(cpu_after[pid] - cpu_before.get(pid, 0) for pid in cpu_after)
        print(f"  the page's renderer, main thread's CPU: {busiest * 1000:.0f} ms, {busiest * 1000 / max(messages, 1):.2f} ms a message")
        for name in ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration"):
            spent = (after[name] - before[name]) * 1000
            print(f"  {name}: {spent:.0f} ms, {spent / max(messages, 1):.2f} ms a message")
        print(f"  Nodes at the end: {after.get('Nodes', 0):.0f}, JS heap {after.get('JSHeapUsedSize', 0) / 1e6:.1f} MB")
        if options.trace:
            summarize_trace(tools, messages)
        if not options.profile:
            return
        # Self time by function, from the samples.
        profile = tools.call("Profiler.stop")["profile"]
        nodes = {node["id"]: node for node in profile["nodes"]}
        self_time = collections.Counter()
        for sample, delta in zip(profile["samples"], profile["timeDeltas"]):
            frame = nodes[sample]["callFrame"]
            place = os.path.basename(frame["url"]) if frame["url"] else ""
            self_time[f"{frame['functionName'] or '(anonymous)'} {place}".strip()] += delta / 1000
        total = sum(self_time.values()) - self_time["(idle)"]
        print(f"  sampled busy time {total:.0f} ms; by function (self):")
        for name, spent in self_time.most_common(18):
            if name != "(idle)":
                print(f"    {spent:7.0f} ms  {spent / max(messages, 1):5.2f} ms/msg  {name}")
    finally:
        driver.quit()
        server.stop()


main()
