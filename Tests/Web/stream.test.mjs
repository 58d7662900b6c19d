// One stream alone, with a stand-in for the browser's EventSource and the
// clock in the test's hands: a patch that does not fit starts over from
// whole view models, after a pause that grows while patches keep not fitting.
import { mock, test } from "node:test";
import assert from "node:assert/strict";

import { EventStream } from "../../Public/js/client/stream.js";

class FakeSource {
  static opened = [];
  constructor(url) {
    this.url = url;
    this.listeners = new Map();
    this.closed = false;
    FakeSource.opened.push(this);
  }
  addEventListener(name, listener) { this.listeners.set(name, listener); }
  close() { this.closed = true; }
  open() { this.onopen?.(); }
  send(name, data, id) { this.listeners.get(name)?.({ data: JSON.stringify(data), lastEventId: id }); }
}

function stream() {
  FakeSource.opened = [];
  const events = [];
  const live = new EventStream({ topics: ["badge"], lastEventId: null, onEvent: (event) => events.push(event), onState: () => {},
                                 EventSourceType: FakeSource });
  return { live, events, latest: () => FakeSource.opened.at(-1) };
}

test("a patch that does not fit reopens after a pause that doubles while patches keep not fitting", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { live, events, latest } = stream();
    const faulty = () => {
      latest().open();
      latest().send("badge", { unread: 1 }, "5");
      latest().send("badge.patch", { base: 4, topic: "badge", patch: [] }, "6");
    };
    faulty();
    assert.equal(events.length, 1);
    assert.ok(latest().closed, "the stream whose patch did not fit is closed");
    assert.equal(FakeSource.opened.length, 1, "not reopened at once");
    mock.timers.tick(499);
    mock.timers.tick(1);
    assert.equal(FakeSource.opened.length, 2, "reopened within half a second the first time");
    assert.ok(!latest().url.includes("lastEventId"), "from whole view models");
    faulty();
    mock.timers.tick(499);
    mock.timers.tick(501);
    assert.equal(FakeSource.opened.length, 3, "within a second the second time, though the stream had opened");
    faulty();
    mock.timers.tick(999);
    assert.equal(FakeSource.opened.length, 3, "not within a second the third time");
    mock.timers.tick(1001);
    assert.equal(FakeSource.opened.length, 4);
    // A patch that fits ends the run of misfits.
    latest().open();
    latest().send("badge", { unread: 1 }, "7");
    latest().send("badge.patch", { base: 7, topic: "badge", patch: [{ op: "replace", path: "/unread", value: 2 }] }, "8");
    assert.deepEqual(events.at(-1).viewModel, { unread: 2 });
    latest().send("badge.patch", { base: 4, topic: "badge", patch: [] }, "9");
    mock.timers.tick(500);
    assert.equal(FakeSource.opened.length, 5);
    live.close();
  } finally {
    mock.timers.reset();
  }
});
