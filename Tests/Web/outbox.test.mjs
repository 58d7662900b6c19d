// The client's outbox alone: a message is kept before it is sent, sent with
// its clientId, kept while the server is away, sent again oldest first, and
// forgotten once taken or refused for good. The store is the memory one
// (no IndexedDB in Node) and fetch is a fake of the test's own.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

import { Outbox, isPassing } from "../../Public/js/client/outbox.js";
import { openStore } from "../../Public/js/client/store.js";

let answer = () => { throw new TypeError("no server"); };
const asked = [];
globalThis.fetch = async (href, options) => {
  asked.push({ href, body: JSON.parse(options.body) });
  return answer(href);
};
function json(status, body) {
  return { status, ok: status < 300, text: async () => JSON.stringify(body) };
}
const away = () => { throw new TypeError("away"); };

let store, outbox;
beforeEach(async () => {
  store = await openStore({ indexedDB: null });
  outbox = new Outbox(store.outbox);
  asked.length = 0;
});

const ids = async (chatId) => (await outbox.waiting(chatId)).map((kept) => kept.clientId);

test("a message is kept before it is sent, and forgotten once the server has it", async () => {
  answer = async () => {
    assert.deepEqual(await ids(), ["a"], "kept while its request is out");
    return json(201, { message: { id: "1" } });
  };
  const result = await outbox.send("7", "a", "hello");
  assert.deepEqual(result.answer, { message: { id: "1" } });
  assert.deepEqual(asked, [{ href: "/api/chats/7/messages", body: { text: "hello", clientId: "a" } }]);
  assert.deepEqual(await ids(), []);
});

test("with the server away a message waits, in the order written, by chat", async () => {
  answer = away;
  assert.ok((await outbox.send("7", "a", "one")).waiting);
  assert.ok((await outbox.send("8", "b", "two")).waiting);
  assert.ok((await outbox.send("7", "c", "three")).waiting);
  assert.deepEqual(await ids(), ["a", "b", "c"]);
  assert.deepEqual(await ids("7"), ["a", "c"]);
  await store.clear();
  assert.deepEqual(await ids(), []);
});

test("sent again oldest first with their clientId; the server away stops the rest, which wait", async () => {
  answer = away;
  for (const clientId of ["a", "b", "c"]) await outbox.send("7", clientId, `text ${clientId}`);
  asked.length = 0;
  answer = () => (asked.length === 1 ? json(201, { message: { id: "1" } }) : away());
  const done = [];
  await outbox.sendWaiting((kept, result) => done.push([kept.clientId, Boolean(result.answer)]));
  assert.deepEqual(done, [["a", true]]);
  assert.deepEqual(asked.map((request) => request.body.clientId), ["a", "b"]);
  assert.deepEqual(await ids(), ["b", "c"]);
});

test("one refused for good is forgotten and said; one the server cannot take now waits", async () => {
  answer = away;
  for (const clientId of ["b", "c", "d"]) await outbox.send("7", clientId, `text ${clientId}`);
  const answers = [json(403, { error: { code: "blocked", message: "blocked" } }), json(200, { message: { id: "2" } }),
                   json(503, { error: { code: "unavailable", message: "later" } })];
  answer = () => answers.shift();
  const done = [];
  await outbox.sendWaiting((kept, result) => done.push([kept.clientId, result.answer ? "sent" : result.refused.code]));
  assert.deepEqual(done, [["b", "blocked"], ["c", "sent"]]);
  assert.deepEqual(await ids(), ["d"]);
  assert.equal(isPassing({ status: 0 }), true);
  assert.equal(isPassing({ status: 429 }), true);
  assert.equal(isPassing({ status: 422 }), false);
});

test("two calls at once send each message once", async () => {
  answer = away;
  await outbox.send("7", "a", "once");
  asked.length = 0;
  answer = () => json(201, { message: { id: "1" } });
  await Promise.all([outbox.sendWaiting(() => {}), outbox.sendWaiting(() => {})]);
  assert.deepEqual(asked.map((request) => request.body.clientId), ["a"]);
});

test("a message goes only while its writer is signed in here: another's sign-in stops it", async () => {
  let me = "alice";
  outbox = new Outbox(store.outbox, { owner: async () => me });
  answer = away;
  for (const clientId of ["a", "b", "c"]) await outbox.send("7", clientId, clientId);
  asked.length = 0;
  // The network comes back slowly; after the first answer Alice signs out and Bob signs in.
  answer = async () => {
    me = "bob";
    return json(201, { message: {} });
  };
  await outbox.sendWaiting(() => {});
  assert.deepEqual(asked.map((request) => request.body.clientId), ["a"], "Alice's messages went out as Bob");
  assert.deepEqual(await ids(), ["b", "c"]);
  assert.deepEqual((await outbox.waiting()).map((entry) => entry.userId), ["alice", "alice"]);
});
