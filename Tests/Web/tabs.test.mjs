// One stream for every tab, alone: the tabs' lock and channel are fakes that
// behave as the browser's (one holder at a time, the next waiting one
// granted on release; a message reaches every other tab, later), and the
// streams are records of what was opened. What the browser does "later" is
// a queue of tasks here, run to the end by `settle`.
import { test } from "node:test";
import assert from "node:assert/strict";

import { TabGroup } from "../../Public/js/client/tabs.js";

class Locks {
  constructor() { this.queue = []; this.held = false; }
  request(name, work) {
    this.queue.push(work);
    this.grant();
  }
  grant() {
    if (this.held || this.queue.length === 0) return;
    this.held = true;
    const work = this.queue.shift();
    Promise.resolve(work()).then(() => { this.held = false; this.grant(); });
  }
}

class Channels {
  constructor() { this.channels = new Set(); }
  open() {
    const hub = this;
    const channel = {
      onmessage: null,
      postMessage(data) {
        for (const other of hub.channels) {
          if (other !== channel) later.push(() => other.onmessage?.({ data: structuredClone(data) }));
        }
      },
    };
    this.channels.add(channel);
    return channel;
  }
}

const later = [];

/** Runs every message, scheduled turn and lock grant, and what they lead to, until nothing is left. */
async function settle() {
  for (let turn = 0; turn < 1000; turn++) {
    // A lock is granted on a promise's turn: let those run too.
    for (let step = 0; step < 5; step++) await null;
    if (later.length === 0) return;
    later.shift()();
  }
  throw new Error("the tabs never settle");
}

function tabs(count) {
  const locks = new Locks();
  const channels = new Channels();
  const opened = [];
  return Array.from({ length: count }, (_, index) => {
    const heard = [];
    const group = new TabGroup({
      lockName: "stream",
      locks,
      channel: channels.open(),
      schedule: (work) => later.push(work),
      frame: (work) => later.push(work),
      deliver: (message) => heard.push(message),
      openStream: (options) => {
        const stream = { tab: index, ...options, closed: false, close() { this.closed = true; } };
        opened.push(stream);
        return stream;
      },
    });
    return { group, heard, opened };
  });
}

const open = (opened) => opened.filter((stream) => !stream.closed);

test("the tabs hold one stream, with the union of their topics, and share what it brings", async () => {
  const [a, b, c] = tabs(3);
  a.group.start(40);
  b.group.start(40);
  c.group.start(null);
  a.group.want(["badge", "chats"], 40);
  b.group.want(["badge", "chat:7"], 41);
  c.group.want(["badge", "order:2"], 40);
  await settle();
  assert.equal(a.group.isLeader, true);
  assert.equal(b.group.isLeader || c.group.isLeader, false);
  const streams = open(a.opened);
  assert.equal(streams.length, 1);
  assert.deepEqual(streams[0].topics, ["badge", "chat:7", "chats", "order:2"]);
  // From the oldest position a tab read at: what changed after any tab's read comes.
  assert.equal(streams[0].lastEventId, 40);
  streams[0].onState("live");
  streams[0].onEvent({ topic: "chat:7", name: "chat", viewModel: { id: "7" }, id: "45" });
  await settle();
  for (const tab of [a, b, c]) {
    assert.deepEqual(tab.heard.filter((message) => message.type === "event").map((message) => message.event.id), ["45"]);
    assert.equal(tab.heard.filter((message) => message.type === "state").at(-1).state, "live");
  }
});

test("events between two frames reach every tab once, the newest of each topic and every notification", async () => {
  const [a, b] = tabs(2);
  a.group.start(1);
  b.group.start(1);
  a.group.want(["chat:7", "badge"], 1);
  b.group.want(["chat:7"], 1);
  await settle();
  const stream = open(a.opened)[0];
  for (let id = 2; id <= 40; id += 2) {
    stream.onEvent({ topic: "chat:7", name: "chat", viewModel: { id: "7", text: `m${id}` }, id: String(id) });
    stream.onEvent({ topic: "badge", name: "badge", viewModel: { unread: id }, id: String(id + 1) });
  }
  stream.onEvent({ notification: { chatId: "9", text: "first" }, id: "42" });
  stream.onEvent({ notification: { chatId: "9", text: "second" }, id: "43" });
  stream.onEvent({ topic: "chat:7", name: "chat", viewModel: { id: "7", text: "last" }, id: "44" });
  await settle();
  for (const tab of [a, b]) {
    const events = tab.heard.filter((message) => message.type === "event").map((message) => message.event);
    assert.deepEqual(events.map((event) => event.viewModel?.text ?? event.viewModel?.unread ?? event.notification.text),
      ["last", 40, "first", "second"]);
  }
  // The next leader resumes after the newest event, not the last one of its topic.
  assert.equal(b.group.lastEventId, 44);
});

test("a state shared between two frames leaves one share of events waiting, not two", async () => {
  const frames = [];
  const heard = [];
  let stream;
  const group = new TabGroup({
    lockName: "stream", locks: null, channel: null, schedule: (work) => later.push(work), frame: (work) => frames.push(work),
    deliver: (message) => heard.push(message.event?.id ?? message.state), openStream: (options) => (stream = { ...options, close() {} }),
  });
  group.start(1);
  group.want(["chat:1"], 1);
  await settle();
  stream.onEvent({ topic: "chat:1", name: "chat", viewModel: {}, id: "2" });
  stream.onState("live");
  stream.onEvent({ topic: "chat:1", name: "chat", viewModel: {}, id: "3" });
  assert.deepEqual(heard, ["2", "live"]);
  frames[0]();
  assert.deepEqual(heard, ["2", "live"], "the frame asked for before the state shared what came after it");
  frames[1]();
  assert.deepEqual(heard, ["2", "live", "3"]);
});

test("a tab that reads with no position asks for everything whole", async () => {
  const [a, b] = tabs(2);
  a.group.start(40);
  b.group.start(null);
  a.group.want(["badge"], 40);
  await settle();
  b.group.want(["badge", "chat:1"], null);
  await settle();
  assert.equal(open(a.opened).at(-1).lastEventId, null);
});

test("when the leader's tab closes the next takes over, with the others' topics, after the last event seen", async () => {
  const [a, b, c] = tabs(3);
  for (const tab of [a, b, c]) tab.group.start(10);
  a.group.want(["chats"], 10);
  b.group.want(["chat:1"], 10);
  c.group.want(["chat:2"], 10);
  await settle();
  const first = open(a.opened)[0];
  first.onEvent({ topic: "chats", name: "chats", viewModel: {}, id: "12" });
  await settle();
  a.group.leave();
  await settle();
  assert.equal(first.closed, true);
  assert.equal(b.group.isLeader, true);
  const next = open(a.opened);
  assert.equal(next.length, 1);
  assert.equal(next[0].tab, 1);
  assert.deepEqual(next[0].topics, ["chat:1", "chat:2"]);
  assert.equal(next[0].lastEventId, 12);
  // The closed tab's topics are gone; a tab that leaves later takes its own with it.
  c.group.leave();
  await settle();
  assert.deepEqual(open(a.opened).map((stream) => stream.topics), [["chat:1"]]);
});

test("a tab changing screens changes the one stream's topics; the same topics keep it", async () => {
  const [a, b] = tabs(2);
  a.group.start(5);
  b.group.start(5);
  a.group.want(["chats"], 5);
  b.group.want(["chats"], 5);
  await settle();
  assert.equal(a.opened.length, 1);
  b.group.want(["chat:3"], 6);
  await settle();
  assert.deepEqual(open(a.opened).map((stream) => [stream.topics, stream.lastEventId]), [[["chat:3", "chats"], 5]]);
  b.group.want(["chats"], 6);
  await settle();
  assert.deepEqual(open(a.opened).map((stream) => stream.topics), [["chats"]]);
  assert.equal(a.opened.length, 3);
});

test("without Web Locks every tab holds a stream of its own", async () => {
  const opened = [];
  const group = new TabGroup({
    lockName: "stream", locks: null, channel: null, schedule: (work) => later.push(work), frame: (work) => later.push(work), deliver: () => {},
    openStream: (options) => { opened.push(options); return { close() {} }; },
  });
  group.start("3");
  group.want(["badge"], 3);
  await settle();
  assert.equal(group.isLeader, true);
  assert.deepEqual(opened.map((stream) => [stream.topics, stream.lastEventId]), [[["badge"], 3]]);
});
