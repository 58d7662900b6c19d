// The store's bounds alone: each kind of view model keeps its limit, the
// least recently shown going first; the store keeps what it is given, with
// its ETag and position, and forgets everything when cleared.
import { test } from "node:test";
import assert from "node:assert/strict";

import { evictions } from "../../Public/js/client/eviction.js";
import { openStore } from "../../Public/js/client/store.js";
import { kindOf, pathOf, topicOf } from "../../Public/js/client/topics.js";

test("past a kind's limit the least recently shown go; other kinds keep theirs", () => {
  const entries = [
    { topic: "chats", shownAt: 5 },
    { topic: "chat:1", shownAt: 1 }, { topic: "chat:2", shownAt: 4 }, { topic: "chat:3", shownAt: 3 },
    { topic: "order:9", shownAt: 2 },
  ];
  assert.deepEqual(evictions(entries, { chats: 1, chat: 2, order: 1 }), ["chat:1"]);
  assert.deepEqual(evictions(entries, { chats: 1, chat: 1, order: 1 }).sort(), ["chat:1", "chat:3"]);
  // A kind with no limit is not kept at all.
  assert.deepEqual(evictions(entries, { chat: 3, order: 1 }), ["chats"]);
});

test("the store keeps a view model with its ETag and position, within its bounds", async () => {
  const store = await openStore({ indexedDB: null, limits: { chat: 2 } });
  // Each in a later millisecond: shown after the one before.
  const later = () => new Promise((resolve) => setTimeout(resolve, 2));
  await store.keepView("chat:1", { id: "1" }, { etag: '"a"', position: 10 });
  await later();
  await store.keepView("chat:2", { id: "2" }, { position: 11 });
  await later();
  await store.keepView("chat:3", { id: "3" }, { position: 12 });
  assert.equal(await store.view("chat:1"), undefined, "the least recently shown went");
  assert.deepEqual((await store.view("chat:2")).viewModel, { id: "2" });
  const { shownAt, ...kept } = await store.view("chat:3");
  assert.deepEqual(kept, { topic: "chat:3", viewModel: { id: "3" }, etag: null, position: 12 });
  await store.keepFact("position", 12);
  await store.outbox.put({ clientId: "a", chatId: "1", text: "t", writtenAt: 1 });
  await store.clear();
  assert.equal(await store.view("chat:3"), undefined);
  assert.equal(await store.fact("position"), null);
  assert.deepEqual(await store.outbox.all(), []);
});

test("topics name their view models and where they are read", () => {
  assert.equal(pathOf("chats"), "/api/chats");
  assert.equal(pathOf("chat:7"), "/api/chats/7");
  assert.equal(pathOf("order:a b"), "/api/orders/a%20b");
  assert.equal(pathOf("badge"), "/api/badge");
  assert.throws(() => pathOf("chat"));
  assert.throws(() => pathOf("badge:1"));
  assert.equal(topicOf("chat", { id: "7" }), "chat:7");
  assert.equal(topicOf("orders", {}), "orders");
  assert.equal(kindOf("order:3"), "order");
});

test("a view model being kept when the store is cleared is not kept after it", async () => {
  const store = await openStore({ indexedDB: null });
  const keeping = store.keepView("chat:7", { title: "Alice's chat" });
  await store.clear();
  await keeping;
  assert.equal(await store.view("chat:7"), undefined, "a late write of the ended session stayed");
  await store.keepView("chat:8", { title: "Bob's chat" });
  assert.ok(await store.view("chat:8"));
});
