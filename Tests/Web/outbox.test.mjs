// The page's outbox alone: messages kept in order, sent oldest first with
// their clientId, kept while the server is away, forgotten once taken or
// refused for good. localStorage and fetch are fakes of the test's own.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

const stored = new Map();
globalThis.localStorage = {
  getItem: (key) => (stored.has(key) ? stored.get(key) : null),
  setItem: (key, value) => stored.set(key, String(value)),
  removeItem: (key) => stored.delete(key),
};
let answer = () => { throw new TypeError("no server"); };
const asked = [];
globalThis.fetch = async (href, options) => {
  asked.push({ href, body: JSON.parse(options.body) });
  return answer(href);
};
function json(status, body) {
  return { status, ok: status < 300, text: async () => JSON.stringify(body) };
}

const outbox = await import("../../Public/js/outbox.js");
const entry = (clientId, chatId = "7") => ({ chatId, clientId, text: `text ${clientId}` });

beforeEach(() => {
  stored.clear();
  asked.length = 0;
});

test("messages wait in the order written; one written again takes its new place", () => {
  outbox.keep(entry("a"));
  outbox.keep(entry("b"));
  outbox.keep(entry("a"));
  assert.deepEqual(outbox.waiting().map((kept) => kept.clientId), ["b", "a"]);
  outbox.forget("b");
  assert.deepEqual(outbox.waiting().map((kept) => kept.clientId), ["a"]);
  outbox.clear();
  assert.deepEqual(outbox.waiting(), []);
});

test("sent oldest first with their clientId; the server away stops the rest, which wait", async () => {
  for (const clientId of ["a", "b", "c"]) outbox.keep(entry(clientId));
  answer = (href) => (asked.length === 1 ? json(201, { message: { id: "1" } }) : (() => { throw new TypeError("away"); })());
  const done = [];
  await outbox.sendWaiting((kept, sent, failure) => done.push([kept.clientId, Boolean(sent), failure?.status]));
  assert.deepEqual(done, [["a", true, undefined]]);
  assert.deepEqual(asked.map((request) => request.body.clientId), ["a", "b"]);
  assert.equal(asked[0].href, "/api/chats/7/messages");
  assert.deepEqual(outbox.waiting().map((kept) => kept.clientId), ["b", "c"]);
});

test("one refused for good is forgotten and said; one the server cannot take now waits", async () => {
  outbox.keep(entry("b"));
  outbox.keep(entry("c"));
  outbox.keep(entry("d"));
  const answers = [json(403, { error: { code: "blocked", message: "blocked" } }), json(200, { message: { id: "2" } }),
                   json(503, { error: { code: "unavailable", message: "later" } })];
  answer = () => answers.shift();
  const done = [];
  await outbox.sendWaiting((kept, sent, failure) => done.push([kept.clientId, Boolean(sent), failure?.code]));
  assert.deepEqual(done, [["b", false, "blocked"], ["c", true, undefined]]);
  assert.deepEqual(outbox.waiting().map((kept) => kept.clientId), ["d"]);
  assert.equal(outbox.isPassing({ status: 0 }), true);
  assert.equal(outbox.isPassing({ status: 429 }), true);
  assert.equal(outbox.isPassing({ status: 422 }), false);
});
