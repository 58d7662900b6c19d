// One event stream for every tab of a browser. The tabs elect a leader with
// a Web Lock that only one can hold; the leader opens the stream with the
// union of the topics every tab shows and passes what arrives to the others
// over a BroadcastChannel. When the leader's tab closes, its lock is
// released, the next tab waiting for it becomes the leader, asks the others
// for their topics, and resumes after the last event it saw.
//
// Messages on the channel: {type: "want", tab, topics, position} from a tab
// to the leader; {type: "bye", tab} when a tab leaves; {type: "leader"} from
// a new leader; {type: "event", event} and {type: "state", state} from the
// leader to the others. Events go out together, the newest of each topic
// only: at the next frame after a quiet spell, and while they keep coming at
// most every `shareInterval`, so that a flood is drawn a few times a second.

/** Milliseconds between two shares of events while they keep coming. */
const shareInterval = 250;

/** A position as a number, or null when there is none. */
function numeric(position) {
  return position == null || position === "" ? null : Number(position);
}

export class TabGroup {
  /**
   * `locks` and `channel` are the browser's (null where it has none: this tab
   * then holds a stream of its own); `openStream({topics, lastEventId,
   * onEvent, onState})` gives an object with `close()`; `deliver(message)`
   * gets this tab's `{type: "event", event}` and `{type: "state", state}`.
   */
  constructor({ lockName, locks, channel, openStream, deliver, schedule = (work) => setTimeout(work, 30), frame = nextFrame }) {
    this.lockName = lockName;
    this.locks = locks;
    this.channel = channel;
    this.openStream = openStream;
    this.deliver = deliver;
    this.schedule = schedule;
    this.frame = frame;
    this.due = new Map();        // topic (or a notification's turn) → the event to share at the next frame
    this.notifications = 0;
    this.sharedAt = -Infinity;
    this.shareTurn = null;
    this.tab = Math.random().toString(36).slice(2);
    this.isLeader = false;
    this.left = false;
    this.mine = null;            // {topics, position} this tab shows
    this.lastEventId = null;     // the last event seen, from the stream or the leader
    this.state = "connecting";
    // The leader's: each tab's wants, the stream, its topics, and the oldest position to resume from.
    this.wants = new Map();
    this.stream = null;
    this.streamed = "";
    this.floor = undefined;
    this.restreaming = false;
  }

  /** Joins the group; `lastEventId` is where a stream this tab opens resumes. */
  start(lastEventId) {
    this.lastEventId = numeric(lastEventId);
    if (this.channel) this.channel.onmessage = (message) => this.heard(message.data);
    if (!this.locks || !this.channel) return this.lead();
    this.locks.request(this.lockName, () => {
      if (this.left) return undefined;
      this.lead();
      return new Promise((release) => { this.releaseLock = release; });
    });
  }

  /** The topics this tab shows, and the last position its reads of them were made at (or after). */
  want(topics, position) {
    this.mine = { topics, position: numeric(position) };
    if (this.isLeader) this.wanted(this.tab, this.mine);
    else this.post({ type: "want", tab: this.tab, ...this.mine });
  }

  /** Leaves the group: another tab takes the stream over. */
  leave() {
    this.left = true;
    this.post({ type: "bye", tab: this.tab });
    this.stream?.close();
    this.stream = null;
    this.streamTurn = null;
    this.releaseLock?.();
    if (this.channel) this.channel.onmessage = null;
    this.channel?.close?.();
  }

  lead() {
    this.isLeader = true;
    this.wants = new Map();
    this.post({ type: "leader" });
    if (this.mine) this.wanted(this.tab, this.mine);
  }

  heard(message) {
    if (this.left) return;
    if (this.isLeader) {
      if (message.type === "want") {
        this.wanted(message.tab, message);
        // A tab that just came learns how the stream is.
        this.post({ type: "state", state: this.state });
      } else if (message.type === "bye") {
        this.wants.delete(message.tab);
        this.restreamSoon(undefined);
      }
      return;
    }
    if (message.type === "leader" && this.mine) {
      // What this tab shows is current up to the last event it heard, or else its read.
      this.post({ type: "want", tab: this.tab, topics: this.mine.topics, position: this.lastEventId ?? this.mine.position });
    } else if (message.type === "event") {
      this.saw(message.event);
      this.deliver(message);
    } else if (message.type === "state") {
      this.state = message.state;
      this.deliver(message);
    }
  }

  wanted(tab, { topics, position }) {
    this.wants.set(tab, { topics });
    this.restreamSoon(numeric(position));
  }

  /**
   * A new stream once the wants of this turn are in: from the oldest position
   * any of them was read at, so that what changed after a tab's read is sent
   * (null: a tab read without one, and everything comes whole).
   */
  restreamSoon(position) {
    if (position !== undefined) {
      this.floor = this.floor === undefined ? position : (position === null || this.floor === null ? null : Math.min(this.floor, position));
    }
    if (this.restreaming) return;
    this.restreaming = true;
    this.schedule(() => {
      this.restreaming = false;
      this.restream();
    });
  }

  restream() {
    if (this.left) return;
    const topics = [...new Set([...this.wants.values()].flatMap((want) => want.topics))].sort();
    const floor = this.floor;
    this.floor = undefined;
    if (topics.join(",") === this.streamed && this.stream) return;
    this.stream?.close();
    this.stream = null;
    this.streamTurn = null;
    this.streamed = topics.join(",");
    if (topics.length === 0) return;
    let from = this.lastEventId;
    if (floor === null) from = null;
    else if (floor !== undefined && from !== null) from = Math.min(from, floor);
    // Set before the stream is made: it may speak while being made.
    const turn = this.streamTurn = {};
    this.stream = this.openStream({
      topics,
      lastEventId: from,
      onEvent: (event) => {
        if (turn !== this.streamTurn) return;
        this.saw(event);
        this.share({ type: "event", event });
      },
      onState: (state) => {
        if (turn !== this.streamTurn) return;
        this.state = state;
        this.share({ type: "state", state });
      },
    });
  }

  saw(event) {
    const id = numeric(event.id);
    if (id !== null && (this.lastEventId === null || id > this.lastEventId)) this.lastEventId = id;
  }

  /** To this tab and every other: a state at once, after the events before it; events at the next frame. */
  share(message) {
    if (message.type !== "event") {
      this.shareDue();
      return this.shareNow(message);
    }
    const { event } = message;
    this.due.set(event.topic ?? `notification ${++this.notifications}`, message);
    if (this.due.size > 1) return;
    // One share waits at a time: one made sooner (a state) leaves nothing for it to do.
    const turn = this.shareTurn = {};
    this.frame(() => turn === this.shareTurn && this.shareDue(), this.sharedAt + shareInterval - Date.now());
  }

  shareDue() {
    this.shareTurn = null;
    this.sharedAt = Date.now();
    const due = [...this.due.values()];
    this.due.clear();
    if (!this.left) for (const message of due) this.shareNow(message);
  }

  shareNow(message) {
    this.deliver(message);
    this.post(message);
  }

  post(message) {
    this.channel?.postMessage(message);
  }
}

/** Runs `work` at the first frame after `delay` ms; in a hidden tab (no frames, slow timers) at once. */
function nextFrame(work, delay) {
  if (globalThis.document?.visibilityState !== "visible") return work();
  if (delay > 0) return setTimeout(() => nextFrame(work, 0), delay);
  let ran = false;
  const once = () => {
    if (ran) return;
    ran = true;
    work();
  };
  requestAnimationFrame(once);
  setTimeout(once, 100);   // hidden before its frame
}
