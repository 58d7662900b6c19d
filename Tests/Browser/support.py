"""What the browser tests share: the server they talk to, Chromium, a
DevTools connection, a gate that takes the server out of the browser's reach,
and the steps every scenario takes (sign up, open a chat, send).

Run alone, a test starts `tailor` itself (TAILOR_EXECUTABLE PUBLIC_FOLDER on
the command line); with TAILOR_TEST_URL it talks to servers already running
there, such as the ones behind nginx that scripts/cluster starts, and
TAILOR_TEST_SERVERS (their own addresses, comma-separated) lets it read each
one's metrics.
"""

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse
import urllib.request

import websocket

from selenium import webdriver
from selenium.common.exceptions import (ElementClickInterceptedException, ElementNotInteractableException,
                                        NoSuchElementException, StaleElementReferenceException, TimeoutException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as shown
from selenium.webdriver.support.ui import Select, WebDriverWait

RUNNING = os.environ.get("TAILOR_TEST_URL")
EXECUTABLE = None if RUNNING else sys.argv[1]
PUBLIC = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "Public")
# Seconds for anything to appear: long enough for a machine busy with other
# work. Passing tests never wait for it, since every wait is for an event.
WAIT = 30
# Bytes of the page's files as the server sends them (each gzipped, as a
# browser asks): what a first visit downloads before it works offline.
PAGE_BUDGET = 40 * 1024
PHONE, DESKTOP = (390, 844), (1280, 900)


class Server:
    """`tailor` on 127.0.0.1 with a kernel-chosen port and a database in a temp folder."""

    def __init__(self, folder, public=PUBLIC, arguments=()):
        if RUNNING:
            self.process, self.url = None, RUNNING.rstrip("/")
            return
        self.folder = folder
        self.public = public
        self.arguments = list(arguments)
        self.start("0")

    def start(self, port):
        self.process = subprocess.Popen(
            [EXECUTABLE, "--port", port, "--db", os.path.join(self.folder, "tailor.sqlite"),
             "--public", self.public, "--bot-delay", "0.2", "--log-level", "warning", *self.arguments],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = match.group(1)

    def restart(self):
        """The same server again, on its port and database, after `stop`."""
        self.process.stdout.close()
        self.start(self.url.rsplit(":", 1)[1])

    def stop(self):
        if self.process is None:
            return
        self.process.terminate()
        if self.process.wait(timeout=10) != 0:
            raise RuntimeError(f"the server exited with {self.process.returncode}")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_window_size(*DESKTOP)
    return driver


class DevTools:
    """A DevTools connection of our own to a browser's page, to read the events
    it sends, which Selenium's commands do not return."""

    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/list") as answer:
            pages = [target for target in json.load(answer) if target["type"] == "page"]
        # Without an Origin header: the browser refuses connections from pages.
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=WAIT,
                                                  suppress_origin=True)
        self.last_id = 0
        self.unread = []

    def command(self, method, params=None):
        self.last_id += 1
        self.socket.send(json.dumps({"id": self.last_id, "method": method, "params": params or {}}))
        return self.last_id

    def call(self, method, params=None):
        """Sends a command and waits for its answer; the events before it stay unread."""
        sent = self.command(method, params)
        answer = self.next(lambda message: message.get("id") == sent, WAIT)
        if answer is None or "error" in answer:
            raise AssertionError(f"{method} failed: {answer}")
        return answer.get("result")

    def wait_for(self, method, matches, seconds):
        """The params of the first event named `method` that `matches`."""
        event = self.next(lambda message: message.get("method") == method and matches(message["params"]), seconds)
        return event and event["params"]

    def next(self, wanted, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            unread = [message for message in self.unread if wanted(message)]
            if unread:
                self.unread.remove(unread[0])
                return unread[0]
            self.socket.settimeout(max(0.1, deadline - time.time()))
            try:
                self.unread.append(json.loads(self.socket.recv()))
            except websocket.WebSocketTimeoutException:
                break
        return None

    def drain(self):
        """What is left to read now."""
        left = []
        while True:
            self.socket.settimeout(0.2)
            try:
                left.append(json.loads(self.socket.recv()))
            except websocket.WebSocketTimeoutException:
                return left

    def close(self):
        self.socket.close()


class Gate:
    """A door between the browser and the server, as a network that comes and
    goes: open, it passes connections through; closed, new ones are refused
    and open ones cut, so the page finds the server unreachable. It keeps its
    port, so the page keeps its origin (and its store) across."""

    def __init__(self, target):
        parsed = urllib.parse.urlsplit(target)
        self.target = (parsed.hostname, parsed.port)
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.listener = None
        self.passing = set()
        self.lock = threading.Lock()
        self.open()

    def open(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.listener = listener
        threading.Thread(target=self.accept, args=(listener,), daemon=True).start()

    def close(self):
        listener, self.listener = self.listener, None
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        with self.lock:
            cut, self.passing = self.passing, set()
        for connection in cut:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    def accept(self, listener):
        while True:
            try:
                browser_side, _ = listener.accept()
            except OSError:
                return
            try:
                server_side = socket.create_connection(self.target)
            except OSError:
                browser_side.close()
                continue
            with self.lock:
                if listener is not self.listener:
                    browser_side.close()
                    server_side.close()
                    return
                self.passing.update((browser_side, server_side))
            for source, sink in ((browser_side, server_side), (server_side, browser_side)):
                threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    def pump(self, source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


# What a page drawn anew does to an element found before, or to one not yet there.
REDRAWN = (StaleElementReferenceException, NoSuchElementException, ElementNotInteractableException,
           ElementClickInterceptedException)


def page_text(driver):
    return driver.execute_script("return document.body ? document.body.innerText : ''")


def text_of(driver, selector):
    """The text `selector` shows, read in one step; None when nothing matches."""
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", selector)


def texts(driver, selector):
    """The text of each element `selector` matches, read in one step."""
    return driver.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)", selector)


def count(driver, selector):
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)


def is_shown(driver, selector):
    """Whether `selector` matches an element that takes room on the page."""
    return driver.execute_script("""
        const e = document.querySelector(arguments[0]);
        return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
    """, selector)


def attribute(driver, selector, name):
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null",
                                 selector, name)


class PageTest(unittest.TestCase):
    """The steps the scenarios share; `origin` is where the browsers go."""

    origin = None

    # Helpers. The page draws a screen anew at each event, so an element found
    # may be gone by the next step: tests name elements by selector, and each
    # action finds its element anew (`act`); reads are made in one script.

    def wait(self, driver, condition, message):
        try:
            return WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(condition)
        except TimeoutException:
            self.fail(f"{message}; the page shows:\n{page_text(driver)}")

    def find(self, driver, selector, message=None):
        """Waits until `selector` shows; gives nothing to keep, since it may be drawn anew."""
        self.wait(driver, shown.visibility_of_element_located((By.CSS_SELECTOR, selector)),
                  message or f"{selector} never showed")

    def act(self, driver, selector, action, verb):
        """Does `action` to the element `selector` finds once it shows, finding
        it again when the page drew it anew before the action reached it."""
        deadline = time.time() + WAIT
        while True:
            try:
                element = driver.find_element(By.CSS_SELECTOR, selector)
                if element.is_displayed():
                    return action(element)
                why = "it is not shown"
            except REDRAWN as error:
                why = type(error).__name__
            if time.time() > deadline:
                self.fail(f"could not {verb} {selector} ({why}); the page shows:\n{page_text(driver)}")
            time.sleep(0.05)

    def click(self, driver, selector):
        self.act(driver, selector, lambda element: element.click(), "click")

    def type(self, driver, selector, *keys, clear=False):
        def typing(element):
            if clear:
                element.clear()
            element.send_keys(*keys)
        self.act(driver, selector, typing, "type into")

    def choose(self, driver, selector, value):
        self.act(driver, selector, lambda element: Select(element).select_by_value(value), f"choose {value!r} in")

    def options(self, driver, selector):
        return self.act(driver, selector, lambda element: [option.get_attribute("value") for option in Select(element).options],
                        "read the options of")

    def accept_alert(self, driver):
        self.wait(driver, shown.alert_is_present(), "no dialog opened")
        driver.switch_to.alert.accept()

    def text_in(self, driver, selector, text):
        self.wait(driver, shown.text_to_be_present_in_element((By.CSS_SELECTOR, selector), text),
                  f"{selector} never said {text!r}")

    def sign_up(self, driver, name):
        driver.get(self.origin + "/")
        self.type(driver, "#sign-up-name", name, Keys.ENTER)
        self.text_in(driver, "#who-name", name)
        self.text_in(driver, "#connection", "Live")

    def open_chat_with(self, driver, contact):
        driver.get(self.origin + "/#/chats")
        # The form takes its action from the chat list's view model: it waits for it.
        self.wait(driver, shown.element_to_be_clickable((By.CSS_SELECTOR, "#new-chat button[type=submit]")),
                  "the new-chat form never became ready")
        self.type(driver, "#new-chat-contact", contact, Keys.ENTER, clear=True)
        self.text_in(driver, "#chat-title", contact)
        self.text_in(driver, "#connection", "Live")

    def send(self, driver, text):
        self.type(driver, "#composer-text", text, Keys.ENTER)

    def screenshot(self, driver, name):
        for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
            driver.set_window_size(*size)
            time.sleep(0.3)  # let the layout settle before the picture; nothing is asserted on it
            driver.save_screenshot(os.path.join(self.shots, f"{name}-{label}.png"))
        driver.set_window_size(*DESKTOP)

    def script_errors(self, driver):
        # Failed requests (a 401 before sign-in, a 422 shown in a form) are the
        # network's log, not the page's: only the page's own errors count.
        return [entry for entry in driver.get_log("browser")
                if entry["level"] == "SEVERE" and entry.get("source") != "network"]
