// One EventSource following a set of topics. It asks for patches: after a
// topic's first, whole view model, its changes may come as JSON Patches
// against the version before, which are applied here, so that whoever
// listens always gets whole view models. A patch that does not fit the
// version held starts a new stream without a position, whose first events
// are whole again. A stream that fails is opened again after a delay that
// grows with each failure, with jitter so that many pages do not come back
// at once, resuming after the last event seen; so is one whose patches keep
// not fitting (a faulty server or proxy), until a patch fits again.

import { applyPatch } from "./patch.js";
import { topicOf, viewModelNames } from "./topics.js";

/** The delay before the `attempt`th reopening (from 1): doubling from half a second to 30 s, each drawn from its upper half. */
export function retryDelay(attempt, random = Math.random) {
  const ceiling = Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 10));
  return Math.round(ceiling / 2 + random() * ceiling / 2);
}

export class EventStream {
  /**
   * Follows `topics` from `lastEventId` (null: everything whole). `onEvent`
   * gets `{topic, name, viewModel, id}` and `{notification, id}`; `onState`
   * gets "connecting", "live", "reconnecting" or "offline" (the browser has
   * no network, or the server was not reached twice in a row).
   */
  constructor({ topics, lastEventId, onEvent, onState, EventSourceType = globalThis.EventSource }) {
    this.topics = topics;
    this.lastEventId = lastEventId;
    this.onEvent = onEvent;
    this.onState = onState;
    this.EventSourceType = EventSourceType;
    this.held = new Map();   // topic → {id, viewModel}: the base the next patch must name
    this.failures = 0;
    this.misfits = 0;        // patches in a row that did not fit
    this.timer = null;
    this.source = null;
    this.closed = false;
    this.reopenNow = () => { if (this.failures > 0) this.open(); };
    globalThis.addEventListener?.("online", this.reopenNow);
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.source?.close();
    const query = new URLSearchParams({ topics: this.topics.join(","), patch: "json" });
    if (this.lastEventId != null) query.set("lastEventId", this.lastEventId);
    const source = new this.EventSourceType("/api/events?" + query);
    this.source = source;
    this.onState(this.failures === 0 ? "connecting" : this.failures === 1 ? "reconnecting" : "offline");
    source.onopen = () => {
      this.failures = 0;
      this.onState("live");
    };
    // The browser's own retry has no backoff: every failure is ours to handle.
    source.onerror = () => {
      if (source !== this.source) return;
      source.close();
      this.failures += 1;
      const away = this.failures > 1 || globalThis.navigator?.onLine === false;
      this.onState(away ? "offline" : "reconnecting");
      this.timer = setTimeout(() => this.open(), retryDelay(this.failures));
    };
    for (const name of viewModelNames) {
      source.addEventListener(name, (event) => this.whole(source, name, event));
      source.addEventListener(name + ".patch", (event) => this.patched(source, name, event));
    }
    source.addEventListener("notification", (event) => {
      if (source !== this.source) return;
      this.seen(event);
      this.onEvent({ notification: JSON.parse(event.data), id: event.lastEventId });
    });
  }

  whole(source, name, event) {
    if (source !== this.source) return;
    const viewModel = JSON.parse(event.data);
    const topic = topicOf(name, viewModel);
    this.held.set(topic, { id: event.lastEventId, viewModel });
    this.seen(event);
    this.onEvent({ topic, name, viewModel, id: event.lastEventId });
  }

  patched(source, name, event) {
    if (source !== this.source) return;
    const { base, patch, topic } = JSON.parse(event.data);
    const held = this.held.get(topic);
    let viewModel;
    try {
      if (!held || held.id !== String(base)) throw new Error(`a patch of ${topic} for ${base}, held ${held?.id}`);
      viewModel = applyPatch(held.viewModel, patch);
    } catch (error) {
      this.misfits += 1;
      const delay = retryDelay(this.misfits);
      console.warn(`starting over from whole view models in ${delay} ms:`, error.message);
      this.lastEventId = null;
      this.held.clear();
      source.close();
      this.source = null;
      this.timer = setTimeout(() => this.open(), delay);
      return;
    }
    this.misfits = 0;
    this.held.set(topic, { id: event.lastEventId, viewModel });
    this.seen(event);
    this.onEvent({ topic, name, viewModel, id: event.lastEventId, patched: true });
  }

  seen(event) {
    if (event.lastEventId) this.lastEventId = event.lastEventId;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    globalThis.removeEventListener?.("online", this.reopenNow);
    this.source?.close();
    this.source = null;
  }
}
