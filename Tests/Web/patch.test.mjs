// The page's JSON Patch (RFC 6902) alone, with Node's own test runner: what
// the server sends applies, and what does not fit throws so that the page
// starts over from whole view models.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyPatch } from "../../Public/js/client/patch.js";

test("add, replace and remove as the server sends them", () => {
  const chat = { title: "bob", unreadMessageCount: 0, messages: [{ id: "1", text: "hi" }] };
  const patched = applyPatch(chat, [
    { op: "add", path: "/messages/-", value: { id: "2", text: "there" } },
    { op: "replace", path: "/unreadMessageCount", value: 1 },
    { op: "add", path: "/messages/0", value: { id: "0", text: "first" } },
    { op: "remove", path: "/messages/1" },
  ]);
  assert.deepEqual(patched.messages.map((message) => message.id), ["0", "2"]);
  assert.equal(patched.unreadMessageCount, 1);
});

test("pointers escape / and ~ (RFC 6901)", () => {
  const document = { "a/b": { "c~d": 1 } };
  assert.deepEqual(applyPatch(document, [{ op: "replace", path: "/a~1b/c~0d", value: 2 }]), { "a/b": { "c~d": 2 } });
});

test("the whole document replaced, and never removed", () => {
  assert.deepEqual(applyPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }]), { b: 2 });
  assert.throws(() => applyPatch({ a: 1 }, [{ op: "remove", path: "" }]));
});

test("a patch that does not fit the document throws", () => {
  const list = { items: [{ id: "1" }] };
  for (const operation of [
    { op: "replace", path: "/missing", value: 1 },
    { op: "remove", path: "/items/1" },
    { op: "add", path: "/items/2", value: {} },
    { op: "replace", path: "/items/01", value: {} },
    { op: "add", path: "/items/0/deep/er", value: 1 },
    { op: "move", path: "/items/0", value: 1 },
  ]) {
    assert.throws(() => applyPatch(structuredClone(list), [operation]), `${operation.op} ${operation.path}`);
  }
});

test("the document patched stays as it was, and what the patch does not touch is shared", () => {
  const chat = { title: "bob", actions: { markRead: { href: "/read" } }, messages: [{ id: "1", text: "hi" }, { id: "2", text: "yo" }] };
  const before = structuredClone(chat);
  const patched = applyPatch(chat, [
    { op: "replace", path: "/messages/1/text", value: "there" },
    { op: "add", path: "/messages/-", value: { id: "3", text: "new" } },
    { op: "remove", path: "/messages/0" },
  ]);
  assert.deepEqual(chat, before);
  assert.deepEqual(patched.messages, [{ id: "2", text: "there" }, { id: "3", text: "new" }]);
  assert.equal(patched.actions, chat.actions);
  // A patch that throws halfway leaves the document as it was too.
  assert.throws(() => applyPatch(chat, [{ op: "replace", path: "/title", value: "x" }, { op: "remove", path: "/messages/5" }]));
  assert.deepEqual(chat, before);
});
