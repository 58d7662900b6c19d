#!/usr/bin/env python3
"""The web page in a real browser: two Chromium sessions against a real server.

Alice and Bob sign up, chat live (unread count, banner, read tick), Alice
talks to the bot, and an order is made, paid and cancelled through the page's
buttons. Screenshots of the chat and orders screens at phone and desktop widths
are saved in a temporary folder, whose path is printed.

Usage: web_client_test.py TAILOR_EXECUTABLE PUBLIC_FOLDER
       TAILOR_TEST_URL=http://127.0.0.1:8080 web_client_test.py [PUBLIC_FOLDER]
The second form runs against a server already running there, such as the
servers behind nginx that scripts/cluster starts. What the page does with the
server away is offline_test.py's.
"""

import json
import os
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
import uuid


from support import (PAGE_BUDGET, PUBLIC, WAIT, DevTools, Keys, PageTest, Server, attribute, browser, count, is_shown,
                     text_of, texts)


class WebClientTest(PageTest):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="tailor-browser-")
        # A folder asked for outlives the test's own, which its runner may remove.
        cls.shots = os.environ.get("TAILOR_TEST_SCREENSHOTS") or os.path.join(cls.folder, "screenshots")
        os.makedirs(cls.shots, exist_ok=True)
        cls.server = Server(cls.folder)
        cls.origin = cls.server.url
        cls.alice, cls.bob = browser(), browser()
        suffix = uuid.uuid4().hex[:6]
        cls.alice_name, cls.bob_name = f"alice_{suffix}", f"bob_{suffix}"

    @classmethod
    def tearDownClass(cls):
        for driver in (cls.alice, cls.bob):
            driver.quit()
        cls.server.stop()
        print(f"screenshots: {cls.shots}", file=sys.stderr)

    # The scenario, in order

    def test_1_two_people_chat_live(self):
        alice, bob = self.alice, self.bob
        self.sign_up(alice, self.alice_name)
        self.sign_up(bob, self.bob_name)
        self.find(bob, ".chat-list .empty")

        # A contact who does not exist: the error shows inline.
        alice.get(self.server.url + "/#/chats")
        self.type(alice, "#new-chat-contact", "nobody_here", Keys.ENTER)
        self.text_in(alice, "#new-chat-error", "nobody_here")

        self.open_chat_with(alice, self.bob_name)
        self.send(alice, "Hello Bob")
        # Waited for by its text, found anew at each look: the list may be
        # drawn again (the message becoming sent) between finding and reading.
        self.text_in(alice, ".message.mine .text", "Hello Bob")
        self.find(alice, '.message.mine .state[data-state="sent"]', "the message never became sent")

        # Bob, on his chat list, sees it arrive with an unread count and a banner.
        self.text_in(bob, ".chat-item .last-message", "Hello Bob")
        self.text_in(bob, ".chat-item .count", "1")
        self.text_in(bob, "#badge", "1")
        self.text_in(bob, "#banner", "Hello Bob")
        self.assertTrue(bob.title.startswith("(1)"), bob.title)

        # He opens it from the banner (before it hides itself, after 8 s); Alice
        # sees her message read.
        self.click(bob, "#banner .banner-open")
        self.text_in(bob, "#chat-title", self.alice_name)
        self.find(bob, ".message.theirs .text")
        self.find(alice, '.message.mine .state[data-state="read"]', "Alice never saw the read tick")
        self.wait(bob, lambda driver: attribute(driver, "#badge", "hidden") is not None,
                  "Bob's badge stayed after reading")

        self.send(bob, "Hi Alice!")
        self.wait(alice, lambda driver: "Hi Alice!" in (text_of(driver, ".messages") or ""),
                  "Alice never got Bob's answer")
        self.screenshot(alice, "chat")
        bob.get(self.server.url + "/#/chats")
        self.text_in(bob, ".chat-item .last-message", "Hi Alice!")
        self.screenshot(bob, "chat-list")

    def test_2_the_bot_answers(self):
        alice = self.alice
        self.open_chat_with(alice, "bot")
        self.send(alice, "ping from the browser")
        self.wait(alice, lambda driver: any("ping from the browser" in text for text in texts(driver, ".message.theirs .text")),
                  "the bot never answered")

    def test_3_an_order_is_made_paid_and_cancelled(self):
        alice = self.alice
        alice.get(self.server.url + "/#/orders")
        self.text_in(alice, "#connection", "Live")
        self.text_in(alice, ".summary", "0 orders")
        self.click(alice, ".new-order summary")

        # Invalid fields: the server's 422 message is shown.
        self.type(alice, "#new-order [name=title]", "Milk")
        self.type(alice, "#new-order [name=price]", "1.29")
        self.click(alice, '#new-order button[type="submit"]')
        self.text_in(alice, "#new-order-error", "name")

        self.type(alice, "#new-order [name=name]", "Groceries")
        self.type(alice, "#new-order [name=quantity]", "2", clear=True)
        self.click(alice, '#new-order button[type="submit"]')
        self.text_in(alice, "#order-title", "Groceries #")
        self.text_in(alice, ".facts .status", "Placed")
        self.text_in(alice, ".facts", "$2.58")

        self.click(alice, 'button[data-action="pay"]')
        self.text_in(alice, ".facts .status", "Paid")
        self.click(alice, 'button[data-action="cancel"]')
        self.text_in(alice, ".facts .status", "Cancelled")
        self.assertEqual(count(alice, ".order .actions button"), 0)
        self.screenshot(alice, "order")

        # The list, searched: a later query always wins.
        alice.get(self.server.url + "/#/orders")
        self.text_in(alice, ".summary", "1 order")
        self.type(alice, "#order-search", "zzz")
        self.text_in(alice, ".summary", "0 orders")
        self.type(alice, "#order-search", Keys.BACKSPACE * 3, "milk")
        self.text_in(alice, ".summary", "1 order")
        self.choose(alice, "#order-layout", "compact")
        self.find(alice, ".order-list.compact .order-item")
        self.screenshot(alice, "orders")

        # The controls offer the list's choices, and a price is typed in the
        # currency's unit: 250 yen is 250 minor units, not 25,000.
        self.assertEqual(self.options(alice, "#order-status"),
                         ["", "placed", "paid", "shipped", "delivered", "cancelled"])
        self.click(alice, ".new-order summary")
        self.type(alice, "#new-order [name=name]", "Tea")
        self.choose(alice, "#new-order [name=currency]", "JPY")
        self.type(alice, "#new-order [name=title]", "Sencha")
        self.type(alice, "#new-order [name=price]", "250")
        self.click(alice, '#new-order button[type="submit"]')
        self.text_in(alice, "#order-title", "Tea #")
        self.text_in(alice, ".facts", "¥250")
        # Gone again, so that the next test starts from one order.
        self.click(alice, ".order-screen .danger")
        self.accept_alert(alice)
        self.text_in(alice, ".summary", "1 order")

    def test_3b_a_long_list_comes_in_pages(self):
        alice = self.alice
        alice.get(self.server.url + "/#/orders")
        self.text_in(alice, ".summary", "1 order")
        # A page holds 100 orders: 101 more make a second page.
        placed = alice.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const order = { name: "Bulk", items: [{ title: "Tea", quantity: 1, priceCents: 100 }] };
            const posts = [];
            for (let index = 0; index < 101; index++) {
              posts.push(fetch("/api/orders", { method: "POST", credentials: "same-origin",
                headers: { "Content-Type": "application/json" }, body: JSON.stringify(order) }).then((r) => r.status));
            }
            Promise.all(posts).then(done);
        """)
        self.assertEqual(set(placed), {201})
        alice.refresh()
        self.text_in(alice, ".summary", "100 orders so far")
        self.click(alice, "#more-orders")
        self.text_in(alice, ".summary", "102 orders")
        self.assertFalse(is_shown(alice, "#more-orders"))
        self.assertEqual(count(alice, ".order-item"), 102)

    def test_4_the_page_is_small_and_stays_on_its_server(self):
        size = 0
        for root, _, names in os.walk(PUBLIC):
            for name in names:
                path = os.path.relpath(os.path.join(root, name), PUBLIC).replace(os.sep, "/")
                request = urllib.request.Request(f"{self.server.url}/{path}", headers={"Accept-Encoding": "gzip"})
                with urllib.request.urlopen(request) as answer:
                    size += len(answer.read())
        self.assertLess(size, PAGE_BUDGET, f"the page's files weigh {size} bytes as sent")
        origin = self.server.url
        for driver in (self.alice, self.bob):
            urls = driver.execute_script("return performance.getEntriesByType('resource').map(entry => entry.name)")
            self.assertEqual([url for url in urls if not url.startswith(origin)], [])

    def test_4_the_page_installs_as_an_app(self):
        # The manifest the page names, with its media type, and its icon.
        href = self.alice.execute_script("return document.querySelector('link[rel=manifest]').href")
        with urllib.request.urlopen(href) as answer:
            self.assertEqual(answer.headers["Content-Type"].split(";")[0], "application/manifest+json")
            manifest = json.load(answer)
        self.assertEqual((manifest["start_url"], manifest["display"]), ("/", "standalone"))
        self.assertTrue(manifest["name"])
        for icon in manifest["icons"]:
            with urllib.request.urlopen(urllib.parse.urljoin(href, icon["src"])) as answer:
                self.assertEqual(answer.headers["Content-Type"].split(";")[0], icon["type"])

    def test_4b_live_screens_equal_a_fresh_read(self):
        # The page takes changes as patches; what it draws from them must be
        # what it draws from whole view models after a reload.
        alice, bob = self.alice, self.bob
        self.open_chat_with(alice, self.bob_name)
        bob.get(self.server.url + "/#/chats")
        self.text_in(bob, "#connection", "Live")
        for index in range(3):
            self.send(alice, f"patched {index}")
        self.text_in(bob, ".chat-item .last-message", "patched 2")
        self.wait(alice, lambda driver: count(driver, '.message.mine .state[data-state="sending"]') == 0
                  and "patched 2" in (text_of(driver, ".messages") or ""),
                  "Alice's messages never all arrived")
        applied = sum(int(attribute(driver, "html", "data-patches-applied") or 0) for driver in (alice, bob))
        self.assertGreater(applied, 0, "no patch was applied")
        for driver, selector in ((alice, ".messages"), (bob, ".chat-list")):
            live = text_of(driver, selector)
            driver.refresh()
            self.text_in(driver, "#connection", "Live")
            self.wait(driver, lambda d: text_of(d, selector) == live,
                      f"{selector} drawn from patches differs from a fresh read:\n{live}")

    def test_4c_a_password_signs_in_on_another_browser(self):
        alice, bob = self.alice, self.bob
        name = "pat_" + self.alice_name.split("_")[-1]
        # Alice's browser signs out and signs up a new account with a password.
        alice.get(self.server.url + "/")
        self.click(alice, "#sign-out")
        self.type(alice, "#sign-up-name", name)
        self.type(alice, "#sign-up-password", "correct horse", Keys.ENTER)
        self.text_in(alice, "#who-name", name)
        # Bob's browser signs out and in as that account with the name and password.
        bob.get(self.server.url + "/")
        self.click(bob, "#sign-out")
        self.type(bob, "#password-sign-in-name", name)
        self.type(bob, "#password-sign-in-password", "wrong horse", Keys.ENTER)
        self.text_in(bob, "#password-sign-in-error", "do not match")
        self.type(bob, "#password-sign-in-password", "correct horse", Keys.ENTER, clear=True)
        self.text_in(bob, "#who-name", name)
        self.text_in(bob, "#connection", "Live")
        # From there, Bob's browser ends the session of Alice's, which then is signed out.
        self.click(bob, "#account summary")
        self.wait(bob, lambda driver: count(driver, "#sessions .session") == 2,
                  "the account menu never listed both sessions")
        self.click(bob, "#sessions .end-session")
        self.wait(bob, lambda driver: count(driver, "#sessions .session") == 1,
                  "the ended session stayed in the list")
        self.screenshot(bob, "account")
        alice.refresh()
        self.find(alice, "#sign-up-name", "Alice's browser was not signed out")
        self.click(bob, "#account summary")

    def test_4d_a_push_shows_a_notification(self):
        # A headless browser reaches no real push service, so the push goes to
        # the page's service worker through DevTools, as a push service would
        # hand it over once decrypted: the server's notification view model.
        bob = self.bob
        bob.get(self.server.url + "/")
        self.click(bob, "#account summary")
        self.text_in(bob, "#push-toggle", "Notify me")
        self.click(bob, "#account summary")
        origin = self.server.url
        bob.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
        devtools = DevTools(bob)
        self.addCleanup(devtools.close)
        # DevTools names a registration by a number the page cannot read; it
        # tells it in the events of its ServiceWorker domain, and a push is
        # delivered once the registration's worker is active.
        devtools.call("ServiceWorker.enable")
        scope = bob.execute_async_script(
            "import('/js/push.js').then(push => push.pushWorker()).then(() => navigator.serviceWorker.ready)"
            ".then(registration => arguments[0](registration.scope), error => arguments[0]('failed: ' + error))")
        self.assertEqual(scope, origin + "/")
        active = devtools.wait_for(
            "ServiceWorker.workerVersionUpdated",
            lambda params: any(version["scriptURL"] == origin + "/service-worker.js" and version["status"] == "activated"
                               for version in params["versions"]),
            WAIT)
        self.assertIsNotNone(active, "DevTools told of no active push worker")
        registration = next(version["registrationId"] for version in active["versions"]
                            if version["scriptURL"] == origin + "/service-worker.js" and version["status"] == "activated")
        payload = json.dumps({"chatId": "7", "contact": "alice", "open": {"href": "/api/chats/7", "method": "GET"},
                              "text": "a push for bob"})
        notifications = "navigator.serviceWorker.ready.then(r => r.getNotifications())" \
                        ".then(list => arguments[0](list.map(n => [n.title, n.body, n.tag])))"
        # A worker that has only just become active may miss a push DevTools
        # hands it (seen on a loaded machine); a push service would send it
        # again, and so does this test. One tag, so a second shows as one.
        shown, deliveries = [], 0
        while not shown and deliveries < 3:
            devtools.call("ServiceWorker.deliverPushMessage",
                          {"origin": origin, "registrationId": registration, "data": payload})
            deliveries += 1
            deadline = time.time() + WAIT / 3
            while not shown and time.time() < deadline:
                shown = bob.execute_async_script(notifications)
                time.sleep(0.1)
        if shown and deliveries > 1:
            print(f"the push showed after {deliveries} deliveries", file=sys.stderr)
        self.assertEqual(shown, [["alice", "a push for bob", "chat-7"]],
                         f"registration {registration}, {deliveries} pushes; DevTools told: {devtools.unread + devtools.drain()}")
        # A click on it makes the worker ask the page to open the chat (DevTools
        # cannot click a notification): the page's half, given that message.
        bob.execute_script("navigator.serviceWorker.dispatchEvent(new MessageEvent('message', {data: {openChat: '7'}}))")
        self.wait(bob, lambda driver: driver.execute_script("return location.hash") == "#/chats/7",
                  "the page did not open the chat a notification named")
        bob.get(self.server.url + "/#/chats")

    def test_4a_typing_and_presence_show_in_the_other_browser(self):
        alice, bob = self.alice, self.bob
        self.open_chat_with(alice, self.bob_name)
        bob.get(self.server.url + "/#/chats")
        self.text_in(bob, "#connection", "Live")
        # Alice types without sending: Bob's list says so in place of the last message.
        self.type(alice, "#composer-text", "still thinking")
        self.text_in(bob, ".chat-item .last-message.typing", "typing…")
        # Clicked in the page: the list is drawn anew at each event, and an
        # element found before may be gone by the click.
        bob.execute_script("document.querySelector('.chat-item').click()")
        self.text_in(bob, "#chat-title", self.alice_name)
        self.type(alice, "#composer-text", " about it")
        self.text_in(bob, "#contact-status", "typing…")
        self.screenshot(bob, "typing")
        # Her message ends it; she is still there, so Bob sees her online.
        self.type(alice, "#composer-text", Keys.ENTER)
        self.wait(bob, lambda driver: "still thinking about it" in (text_of(driver, ".messages") or ""),
                  "Bob never got the message")
        self.text_in(bob, "#contact-status", "online")
        # Alice's tab closes (a page navigated away from may be kept, stream and
        # all, for going back): after the grace Bob sees when she was last seen.
        page = alice.current_window_handle
        alice.switch_to.new_window("tab")
        blank = alice.current_window_handle
        alice.switch_to.window(page)
        alice.close()
        alice.switch_to.window(blank)
        self.text_in(bob, "#contact-status", "last seen")
        alice.get(self.server.url + "/")
        self.text_in(alice, "#connection", "Live")

    def test_5_no_script_errors(self):
        for driver in (self.alice, self.bob):
            self.assertEqual(self.script_errors(driver), [])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
