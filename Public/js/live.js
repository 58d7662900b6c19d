// One EventSource per page, following the topics the current screen needs.
// The stream asks for patches: after a topic's first, whole view model, its
// changes may come as JSON Patches against the version before. This module
// applies them, so a screen always gets the whole newest view model and
// drawing it is all the screen does. A patch that does not apply to the
// version held (a different base, or a path that is not there) starts a new
// stream, whose first events are whole view models again.

import { applyPatch } from "./patch.js";

const viewModelNames = ["chats", "chat", "badge", "orders", "order"];

/** How long to wait before opening a stream the browser gave up on. */
const reopenDelay = 3000;

export class LiveStream {
  /**
   * `onEvent(name, data)` gets each event; `onState(state)` gets `"connecting"`,
   * `"live"`, `"reconnecting"` or `"offline"`.
   */
  constructor({ onEvent, onState }) {
    this.onEvent = onEvent;
    this.onState = onState;
    this.source = null;
    this.topics = [];
    // The id of the last event seen on any stream: a new stream resumes from it.
    this.lastEventId = null;
    this.reopenTimer = null;
    // Per topic ("chat:7", "orders"…), the view model held and the id of the
    // event that brought it: the base the next patch must name.
    this.held = new Map();
    this.patchesApplied = 0;
  }

  /** Follows `topics` on a new stream, resuming where the last one stopped. */
  follow(topics) {
    this.close();
    this.topics = topics;
    const query = new URLSearchParams({ topics: topics.join(","), patch: "json" });
    if (this.lastEventId !== null) query.set("lastEventId", this.lastEventId);
    const source = new EventSource("/api/events?" + query);
    this.source = source;
    this.onState(this.lastEventId === null ? "connecting" : "reconnecting");
    source.onopen = () => this.onState("live");
    source.onerror = () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        // The browser stops retrying after an error answer (a 401 after sign-out
        // elsewhere, a 404 for an order deleted meanwhile); try again later.
        this.onState("offline");
        this.reopenTimer = setTimeout(() => this.follow(this.topics), reopenDelay);
      } else {
        // The browser retries by itself; with no network at all, say so.
        this.onState(navigator.onLine ? "reconnecting" : "offline");
      }
    };
    for (const name of viewModelNames) {
      source.addEventListener(name, (event) => {
        if (source !== this.source) return;
        const viewModel = JSON.parse(event.data);
        this.held.set(topicOf(name, viewModel), { id: event.lastEventId, viewModel });
        this.seen(event);
        this.onEvent(name, viewModel);
      });
      source.addEventListener(name + ".patch", (event) => {
        if (source !== this.source) return;
        const { base, patch, topic } = JSON.parse(event.data);
        const held = this.held.get(topic);
        let viewModel;
        try {
          if (!held || held.id !== String(base)) throw new Error(`a patch of ${topic} for ${base}, held ${held?.id}`);
          viewModel = applyPatch(structuredClone(held.viewModel), patch);
        } catch (error) {
          console.warn("starting over from whole view models:", error.message);
          this.startOver();
          return;
        }
        this.held.set(topic, { id: event.lastEventId, viewModel });
        this.seen(event);
        // Counted where a test (or a curious person) can see that patches are used.
        document.documentElement.dataset.patchesApplied = String(++this.patchesApplied);
        this.onEvent(name, viewModel);
      });
    }
    source.addEventListener("notification", (event) => {
      if (source !== this.source) return;
      this.seen(event);
      this.onEvent("notification", JSON.parse(event.data));
    });
  }

  seen(event) {
    if (event.lastEventId) this.lastEventId = event.lastEventId;
  }

  /** A new stream that sends every topic whole. */
  startOver() {
    this.lastEventId = null;
    this.held.clear();
    this.follow(this.topics);
  }

  /** Closes the stream; `follow` opens the next one. */
  close() {
    clearTimeout(this.reopenTimer);
    if (this.source) this.source.close();
    this.source = null;
  }
}

/** The topic a whole view model belongs to, as the stream names it. */
function topicOf(name, viewModel) {
  return name === "chat" || name === "order" ? `${name}:${viewModel.id}` : name;
}
