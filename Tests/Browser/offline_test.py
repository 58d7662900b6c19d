#!/usr/bin/env python3
"""The page with the server away, in a real browser: it opens from its own
store, keeps what is written meanwhile, holds one event stream for all its
tabs, forgets everything when the session ends, and takes a new release.

The browser reaches the server through a gate (support.Gate) that the test
closes and opens, as a network that comes and goes, so the same scenario runs
against one server and against the servers behind nginx.

Usage: offline_test.py TAILOR_EXECUTABLE PUBLIC_FOLDER
       TAILOR_TEST_URL=http://127.0.0.1:8080 [TAILOR_TEST_SERVERS=…] offline_test.py
"""

import os
import re
import shutil
import sys
import tempfile
import unittest
import urllib.error
import urllib.request
import uuid

from support import PUBLIC, RUNNING, Gate, PageTest, Server, browser, count, is_shown, text_of, texts

# The store's content, read in the page: how many entries each table holds, and the caches kept.
READ_STORE = """
const done = arguments[arguments.length - 1];
const opening = indexedDB.open("tailor");
opening.onsuccess = () => {
  const database = opening.result;
  const names = [...database.objectStoreNames];
  if (names.length === 0) { database.close(); return caches.keys().then((kept) => done({ tables: {}, caches: kept })); }
  const transaction = database.transaction(names, "readonly");
  const counts = {};
  for (const name of names) transaction.objectStore(name).count().onsuccess = (event) => { counts[name] = event.target.result; };
  transaction.oncomplete = () => { database.close(); caches.keys().then((kept) => done({ tables: counts, caches: kept })); };
};
opening.onerror = () => done({ error: String(opening.error) });
"""


class OfflineTest(PageTest):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="tailor-offline-")
        # A copy of the page's files, which the release test changes.
        cls.public = os.path.join(cls.folder, "public")
        shutil.copytree(PUBLIC, cls.public)
        cls.server = Server(cls.folder, public=cls.public)
        cls.gate = Gate(cls.server.url)
        cls.origin = cls.gate.url
        cls.driver = browser()
        cls.name = "olive_" + uuid.uuid4().hex[:6]

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        if cls.gate.listener is not None:
            cls.gate.close()
        cls.server.stop()

    def connection_says(self, driver, text):
        self.text_in(driver, "#connection", text)

    def mine(self, driver):
        return texts(driver, ".message.mine .text")

    def store(self, driver):
        return driver.execute_async_script(READ_STORE)

    def streams_open(self):
        """Open event streams on every server, from their metrics."""
        servers = os.environ.get("TAILOR_TEST_SERVERS", "").split(",") if RUNNING else [self.server.url]
        if not any(servers):
            self.skipTest("TAILOR_TEST_SERVERS does not say where the servers behind the proxy are")
        total = 0
        for server in filter(None, servers):
            with urllib.request.urlopen(server.rstrip("/") + "/metrics") as answer:
                total += float(re.search(r"^tailor_streams_open (\S+)$", answer.read().decode(), re.M).group(1))
        return total

    # The scenario, in order

    def test_1_the_page_opens_from_its_store_with_the_server_away(self):
        driver = self.driver
        self.sign_up(driver, self.name)
        self.open_chat_with(driver, "bot")
        self.send(driver, "kept for later")
        self.wait(driver, lambda d: count(d, ".message.theirs") > 0, "the bot never answered")
        driver.get(self.origin + "/#/chats")
        self.text_in(driver, ".chat-list", "kept for later")
        # The service worker keeps the page's files from the next load on.
        driver.execute_async_script("navigator.serviceWorker.ready.then(() => arguments[arguments.length - 1]())")
        driver.refresh()
        self.wait(driver, lambda d: d.execute_script("return navigator.serviceWorker.controller !== null"),
                  "no service worker controls the page")
        self.connection_says(driver, "Live")
        shown = text_of(driver, ".chat-list")
        self.gate.close()
        driver.refresh()
        self.wait(driver, lambda d: text_of(d, ".chat-list") == shown,
                  "the page did not open with the chats it showed before the server went away")
        self.assertEqual(text_of(driver, "#who-name"), self.name)
        self.connection_says(driver, "Offline")
        # A chat shown before opens too, though the server is away.
        driver.execute_script("document.querySelector('.chat-list .chat-item').click()")
        self.text_in(driver, "#chat-title", "bot")
        self.text_in(driver, ".messages", "kept for later")

    def test_2_a_message_written_offline_is_sent_once_when_the_server_is_back(self):
        driver = self.driver
        # The gate is still closed (the test before).
        self.send(driver, "written offline")
        self.find(driver, ".message.mine.waiting")
        # The tab is closed and opened again meanwhile: the message still waits.
        driver.refresh()
        self.text_in(driver, ".messages", "kept for later")
        self.wait(driver, lambda d: "written offline" in self.mine(d) and count(d, ".message.mine.waiting") > 0,
                  "the message written offline was lost with the tab")
        self.gate.open()
        self.connection_says(driver, "Live")
        self.wait(driver, lambda d: count(d, ".message.mine.waiting") == 0
                  and self.mine(d).count("written offline") == 1,
                  "the waiting message was not sent once the server was back")
        driver.refresh()
        self.connection_says(driver, "Live")
        self.text_in(driver, ".messages", "written offline")
        self.assertEqual(self.mine(driver).count("written offline"), 1)
        self.assertEqual(self.store(driver)["tables"]["outbox"], 0)

    def test_2b_a_chat_read_offline_is_marked_read_when_the_server_is_back(self):
        driver = self.driver
        driver.get(self.origin + "/#/chats")
        self.connection_says(driver, "Live")
        self.find(driver, ".chat-list .chat-item")
        # Read in one step: the list may be drawn anew between two of Selenium's.
        chat = driver.execute_script("return document.querySelector('.chat-list .chat-item').href")
        # Written from another tab's session, as it were: the bot's answer comes while the list shows.
        driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0].replace("#/chats/", "api/chats/") + "/messages", { method: "POST",
              headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "answer me later" }) }).then(() => done());
        """, chat)
        self.wait(driver, lambda d: is_shown(d, "#badge"), "the bot's answer never counted as unread")
        self.gate.close()
        try:
            # The chat opens from the store (as it was last shown) and cannot be marked read now.
            driver.get(chat)
            self.text_in(driver, "#chat-title", "bot")
            self.connection_says(driver, "Offline")
        finally:
            self.gate.open()
        self.connection_says(driver, "Live")
        self.wait(driver, lambda d: not is_shown(d, "#badge"),
                  "the chat shown while the server was away was not marked read once it was back")

    def test_3_order_actions_wait_for_the_server(self):
        driver = self.driver
        placed = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch("/api/orders", { method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ name: "Offline pens", currency: "USD", items: [{ title: "Pen", quantity: 2, priceCents: 150 }] }) })
              .then((answer) => answer.json()).then(done);
        """)
        driver.get(f"{self.origin}/#/orders/{placed['id']}")
        self.text_in(driver, "#order-title", "Offline pens")
        self.connection_says(driver, "Live")
        # Read in one step: the screen draws its buttons anew with each version of the order.
        disabled = lambda d: d.execute_script(
            "return [...document.querySelectorAll('.order-screen [data-needs-server]')].map((button) => button.disabled)")
        self.wait(driver, lambda d: disabled(d) and not any(disabled(d)), "the order's actions are not enabled")
        self.gate.close()
        self.connection_says(driver, "Offline")
        self.wait(driver, lambda d: all(disabled(d)), "the order's actions stayed enabled offline")
        self.text_in(driver, ".order-screen .offline-note", "once the server answers again")
        self.gate.open()
        self.connection_says(driver, "Live")
        self.wait(driver, lambda d: not any(disabled(d)), "the order's actions stayed disabled with the server back")
        self.assertFalse(is_shown(driver, ".order-screen .offline-note"))

    def test_4_seven_tabs_hold_one_stream(self):
        driver = self.driver
        driver.get(self.origin + "/#/chats")
        self.connection_says(driver, "Live")
        # A browser opens six HTTP/1.1 connections to one origin: a stream per tab would leave the seventh waiting.
        for _ in range(6):
            driver.switch_to.new_window("tab")
            driver.get(self.origin + "/#/chats")
            self.connection_says(driver, "Live")
            self.text_in(driver, ".chat-list .contact", "bot")
        self.wait(driver, lambda d: self.streams_open() == 1, f"seven tabs hold {self.streams_open()} streams")

    def test_5_the_leaders_tab_closed_the_others_stay_live(self):
        driver = self.driver
        tabs = driver.window_handles
        # The first tab took the stream; it goes.
        driver.switch_to.window(tabs[0])
        driver.close()
        driver.switch_to.window(tabs[1])
        self.open_chat_with(driver, "bot")
        self.send(driver, "after the leader left")
        self.wait(driver, lambda d: len([text for text in texts(d, ".message.theirs .text")
                                         if "after the leader left" in text]) == 1,
                  "the bot's answer did not come live after the leader's tab closed")
        driver.switch_to.window(tabs[2])
        self.connection_says(driver, "Live")
        self.text_in(driver, ".chat-list", "after the leader left")

    def test_6_an_ended_session_leaves_nothing(self):
        driver = self.driver
        tabs = driver.window_handles
        self.assertGreater(sum(self.store(driver)["tables"].values()), 0)
        self.click(driver, "#sign-out")
        for tab in tabs:
            driver.switch_to.window(tab)
            self.find(driver, "#sign-up-name", "a tab stayed signed in after signing out in another")
        stored = self.store(driver)
        self.assertEqual(sum(stored["tables"].values()), 0, f"the store keeps {stored['tables']}")
        self.assertEqual(stored["caches"], ["tailor-page"])
        for tab in tabs[1:]:
            driver.switch_to.window(tab)
            driver.close()
        driver.switch_to.window(tabs[0])

    def test_6b_a_sign_out_with_the_server_away_ends_the_session_once_it_is_back(self):
        driver = self.driver
        self.sign_up(driver, "otto_" + uuid.uuid4().hex[:6])
        cookie = driver.get_cookie("tailor_session")["value"]
        self.gate.close()
        try:
            self.click(driver, "#sign-out")
            self.find(driver, "#sign-up-name", "the page stayed signed in")
            driver.refresh()
            self.find(driver, "#sign-up-name", "the page signed in again with the server away")
        finally:
            self.gate.open()
        driver.refresh()
        self.find(driver, "#sign-up-name", "the page signed in again once the server was back")

        def session_ended(_):
            request = urllib.request.Request(self.server.url + "/api/me", headers={"Cookie": f"tailor_session={cookie}"})
            try:
                urllib.request.urlopen(request).close()
                return False
            except urllib.error.HTTPError as error:
                return error.code == 401
        self.wait(driver, session_ended, "the session signed out of with the server away still works on the server")
        self.assertEqual(sum(self.store(driver)["tables"].values()), 0)

    def test_7_a_new_release_replaces_the_old_files(self):
        if RUNNING:
            self.skipTest("the files behind nginx are the repository's; they are not this test's to change")
        driver = self.driver
        release = "return getComputedStyle(document.documentElement).getPropertyValue('--release').trim()"
        driver.get(self.origin + "/")
        self.find(driver, "#sign-up-name")
        self.assertEqual(driver.execute_script(release), "")
        # The release: new files, the server started again on them.
        self.server.stop()
        with open(os.path.join(self.public, "style.css"), "a") as style:
            style.write(':root { --release: "next"; }\n')
        self.server.restart()
        driver.refresh()
        self.wait(driver, lambda d: d.execute_script(release) == '"next"', "the new release's style was not taken")
        # The kept copy is the new one: the page opens as the new release with the server away.
        self.gate.close()
        driver.refresh()
        self.find(driver, "#sign-up-name")
        self.assertEqual(driver.execute_script(release), '"next"')
        self.gate.open()


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
