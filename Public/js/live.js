// One EventSource per page, following the topics the current screen needs.
// Every event is a whole view model, so drawing the newest one is all a
// screen does with it.

const eventNames = ["chats", "chat", "badge", "orders", "order", "notification"];

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
  }

  /** Follows `topics` on a new stream, resuming where the last one stopped. */
  follow(topics) {
    this.close();
    this.topics = topics;
    const query = new URLSearchParams({ topics: topics.join(",") });
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
        this.onState("reconnecting");
      }
    };
    for (const name of eventNames) {
      source.addEventListener(name, (event) => {
        if (source !== this.source) return;
        if (event.lastEventId) this.lastEventId = event.lastEventId;
        this.onEvent(name, JSON.parse(event.data));
      });
    }
  }

  /** Closes the stream; `follow` opens the next one. */
  close() {
    clearTimeout(this.reopenTimer);
    if (this.source) this.source.close();
    this.source = null;
  }
}
