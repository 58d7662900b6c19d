// Tailor's client for web pages: view models that stay live, drawn from the
// page's own store before any request, and writes that wait for the server.
//
//   const client = await TailorClient.open();
//   const user = await client.storedUser();             // null: nobody signed in here
//   const stop = client.viewModel("chats", (chats) => draw(chats));
//   await client.send(chatId, "hello");                  // kept until the server has it
//
// See docs/CLIENT.md.

import { APIError, call, perform, revalidate } from "./http.js";
import { EventStream } from "./stream.js";
import { Outbox } from "./outbox.js";
import { openStore, deleteStore } from "./store.js";
import { TabGroup } from "./tabs.js";
import { pathOf } from "./topics.js";

/** Where the outbox was kept before the store held it. */
const olderOutboxKey = "tailor-outbox";
/** Set while a sign-out waits to reach the server: outside the store, which it empties. */
const signingOutKey = "tailor-signing-out";
/** How long what the stream brought waits to be kept: a flood is written a few times a second. */
const keepDelay = 300;

export class TailorClient {
  /** Opens the store; the client starts streaming once someone is signed in. */
  static async open(options = {}) {
    const client = new TailorClient(await openStore(options));
    await client.takeOlderOutbox();
    return client;
  }

  constructor(store) {
    this.store = store;
    this.outbox = new Outbox(store.outbox, { owner: async () => (await this.storedUser())?.id ?? null });
    this.watchers = new Map();   // topic → Set of {onValue, onError}
    this.versions = new Map();   // topic → how many stream events brought it: a read older than one is dropped
    this.unkept = new Map();     // topic → the newest event not yet in the store
    this.given = new Map();      // topic → the JSON of the view model its watchers were given last
    this.keepTimer = null;
    this.listeners = { state: new Set(), notification: new Set(), sent: new Set(), session: new Set() };
    this.state = "connecting";
    this.tabs = null;
    this.session = typeof BroadcastChannel === "function" ? new BroadcastChannel("tailor-session") : null;
    if (this.session) this.session.onmessage = (message) => this.heardSession(message.data);
    globalThis.addEventListener?.("online", () => this.endPendingSignOut().then(() => this.sendWaiting()));
    // A tab that goes away keeps what it showed and hands the stream over at once; one the browser brings back joins again.
    globalThis.addEventListener?.("visibilitychange", () => { if (document.visibilityState === "hidden") this.keepUnkept(); });
    globalThis.addEventListener?.("pagehide", () => {
      this.keepUnkept();
      this.tabs?.leave();
      this.tabs = null;
    });
    globalThis.addEventListener?.("pageshow", async (event) => {
      if (event.persisted && !this.tabs && (await this.storedUser())) await this.join();
    });
  }

  // Listeners: each `on…` gives a function that stops listening.

  /** "connecting", "live", "reconnecting" or "offline". */
  onState(listener) { return this.listen("state", listener); }
  /** `{chatId, contact, text, open}`: a message in a chat no tab shows. */
  onNotification(listener) { return this.listen("notification", listener); }
  /** `(entry, {answer} | {refused})`: a message of the outbox went, from any tab. */
  onSent(listener) { return this.listen("sent", listener); }
  /** `(user)`: someone signed in (in this tab or another), or out (null). */
  onSession(listener) { return this.listen("session", listener); }

  listen(kind, listener) {
    this.listeners[kind].add(listener);
    return () => this.listeners[kind].delete(listener);
  }

  tell(kind, ...values) {
    for (const listener of this.listeners[kind]) listener(...values);
  }

  // The session

  /** Who was signed in when this browser last knew, before any request. */
  storedUser() {
    return this.store.fact("me");
  }

  /**
   * Who the server says is signed in: null after a 401 (and the store is
   * emptied); the stored user when the server cannot be reached.
   */
  async currentUser() {
    // A sign-out made while the server was away goes first; until it is through, nobody is signed in here.
    if (!(await this.endPendingSignOut())) return null;
    try {
      const { viewModel } = await revalidate("/api/me");
      await this.signedIn(viewModel.user, { tellOthers: false });
      return viewModel.user;
    } catch (error) {
      if (error instanceof APIError && error.status === 401) {
        await this.forget({ tellOthers: true });
        return null;
      }
      if (error.status === 0) return this.storedUser();
      throw error;
    }
  }

  /** Someone signed in: another person's store is emptied first, then the stream starts. */
  async signedIn(user, { tellOthers = true } = {}) {
    const stored = await this.storedUser();
    if (stored && stored.id !== user.id) await this.store.clear();
    await this.store.keepFact("me", user);
    if (!this.tabs) await this.join();
    if (tellOthers) this.session?.postMessage({ type: "signed-in", user });
  }

  /**
   * Forgets the session here at once (every send and store write of it
   * stops), and ends it on the server: now, or, with the server away, as
   * the first thing asked of it when it answers again.
   */
  async signOut() {
    globalThis.localStorage?.setItem(signingOutKey, "1");
    await this.forget({ tellOthers: true });
    await this.endPendingSignOut();
  }

  /** Ends on the server a session signed out of here; whether none waits any more. */
  async endPendingSignOut() {
    if (!globalThis.localStorage?.getItem(signingOutKey)) return true;
    try {
      await call("DELETE", "/api/session");
    } catch (error) {
      if (error.status === 0) return false;
      if (error.status !== 401) console.warn(error);
    }
    globalThis.localStorage.removeItem(signingOutKey);
    return true;
  }

  /** Nothing of an ended session stays: the stream, the store, the outbox; every tab hears it. */
  async forget({ tellOthers }) {
    this.tabs?.leave();
    this.tabs = null;
    this.watchers.clear();
    this.given.clear();
    this.unkept.clear();
    try {
      await this.store.clear();
    } catch (error) {
      console.warn("the store could not be emptied, so it is deleted:", error.message);
      deleteStore();
    }
    if (tellOthers) this.session?.postMessage({ type: "signed-out" });
    this.tell("session", null);
  }

  heardSession(message) {
    if (message.type === "signed-out") {
      this.forget({ tellOthers: false });
    } else if (message.type === "signed-in") {
      if (!this.tabs) this.join();
      this.tell("session", message.user);
    } else if (message.type === "sent") {
      this.tell("sent", message.entry, message.result);
    }
  }

  async join() {
    const locks = globalThis.navigator?.locks ?? null;
    const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("tailor-tabs") : null;
    this.tabs = new TabGroup({
      lockName: "tailor-stream",
      locks,
      channel,
      openStream: (options) => new EventStream(options),
      deliver: (message) => this.received(message),
    });
    const position = await this.store.fact("position");
    this.tabs.start(position);
    if (this.watchers.size > 0) this.announce(position);
  }

  /** Who was signed in here last, with the stream started for them: the page opens before any request. */
  async start() {
    const user = await this.storedUser();
    if (user && !this.tabs) await this.join();
    return user;
  }

  // View models

  /**
   * Calls `onValue(viewModel)` with the topic's view model: the stored one at
   * once, the server's when it differs, then each change. `onError(error)`
   * hears what keeps it from being shown (404, or offline with nothing
   * stored). Gives a function that stops following the topic.
   */
  viewModel(topic, onValue, onError = (error) => console.warn(error)) {
    const watcher = { onValue, onError };
    if (!this.watchers.has(topic)) this.watchers.set(topic, new Set());
    this.watchers.get(topic).add(watcher);
    this.show(topic, watcher);
    return () => {
      const watchers = this.watchers.get(topic);
      watchers?.delete(watcher);
      if (watchers?.size === 0) {
        this.watchers.delete(topic);
        this.given.delete(topic);
        this.announce(undefined);
      }
    };
  }

  async show(topic, watcher) {
    const watching = () => this.watchers.get(topic)?.has(watcher);
    // A stream event that comes during this read is newer than what it finds.
    const version = this.versions.get(topic) ?? 0;
    const current = () => (this.versions.get(topic) ?? 0) === version;
    const stored = await this.store.view(topic);
    if (stored && current() && watching()) watcher.onValue(stored.viewModel, { stored: true });
    const position = this.tabs?.lastEventId ?? (await this.store.fact("position"));
    try {
      const { viewModel, etag } = await revalidate(pathOf(topic), { etag: stored?.etag, position });
      // Not kept once nobody follows it: a session that ended meanwhile keeps nothing.
      if (current() && watching()) {
        if (viewModel) watcher.onValue(viewModel, {});
        this.given.set(topic, JSON.stringify(viewModel ?? stored.viewModel));
        this.unkept.delete(topic);   // older than this read
        await this.store.keepView(topic, viewModel ?? stored.viewModel, { etag, position });
      }
      this.announce(position);
    } catch (error) {
      if (error instanceof APIError && error.status === 401) return this.forget({ tellOthers: true });
      // Offline: the stream follows from where the stored copy was current.
      this.announce(stored ? stored.position : null);
      if (!(error.status === 0 && stored) && watching()) watcher.onError(error);
    }
  }

  /** Tells the tabs' stream which topics this tab shows, read at `position`. */
  announce(position) {
    if (!this.tabs) return;
    this.tabs.want([...this.watchers.keys()], position);
  }

  received(message) {
    if (message.type === "state") {
      const was = this.state;
      this.state = message.state;
      this.tell("state", message.state);
      if (message.state === "live") this.sendWaiting();
      // A stream refused for good may be a session ended elsewhere.
      if (message.state === "offline" && was !== "offline") this.currentUser().catch(() => {});
      return;
    }
    const { event } = message;
    if (event.notification) return this.tell("notification", event.notification);
    this.versions.set(event.topic, (this.versions.get(event.topic) ?? 0) + 1);
    // A stream that resumes from before a read brings that view model again: it is not drawn again
    // (which would also drop the pages a screen loaded after it).
    const json = JSON.stringify(event.viewModel);
    if (this.given.get(event.topic) !== json) {
      this.given.set(event.topic, json);
      for (const watcher of this.watchers.get(event.topic) ?? []) watcher.onValue(event.viewModel, { patched: event.patched });
    }
    // One tab writes what the stream brings.
    if (!this.tabs?.isLeader) return;
    this.unkept.set(event.topic, event);
    this.keepTimer ??= setTimeout(() => this.keepUnkept(), keepDelay);
  }

  /** Writes the newest view models the stream brought, and the position they reach. */
  keepUnkept() {
    clearTimeout(this.keepTimer);
    this.keepTimer = null;
    const events = [...this.unkept.values()];
    this.unkept.clear();
    if (events.length === 0) return;
    const warn = (error) => console.warn(error);
    for (const { topic, viewModel, id } of events) this.store.keepView(topic, viewModel, { position: id }).catch(warn);
    const newest = events.reduce((newest, event) => (Number(event.id) > Number(newest.id) ? event : newest));
    this.store.keepFact("position", newest.id).catch(warn);
  }

  // Writes

  /** A message, kept in the outbox until the server has it: `{answer}`, `{waiting}` or `{refused}`. */
  async send(chatId, text, clientId = newClientId()) {
    const result = await this.outbox.send(chatId, clientId, text);
    if (!result.waiting) this.session?.postMessage({ type: "sent", entry: { chatId, clientId }, result: cloneable(result) });
    return result;
  }

  /** The messages of a chat still waiting for the server, oldest first. */
  waiting(chatId) {
    return this.outbox.waiting(chatId);
  }

  /** An action of a view model, `{method, href, body?}`: sent now, or failing with status 0 offline. */
  perform(action) {
    return perform(action);
  }

  /** Sends what waits, from the one tab that streams (or from this one while it is the only one). */
  sendWaiting() {
    if (!this.tabs?.isLeader) return;
    this.outbox.sendWaiting((entry, result) => {
      const message = { chatId: entry.chatId, clientId: entry.clientId };
      this.tell("sent", message, result);
      this.session?.postMessage({ type: "sent", entry: message, result: cloneable(result) });
    }).catch((error) => console.warn(error));
  }

  /** Messages kept by a page of an earlier release, in localStorage. */
  async takeOlderOutbox() {
    const older = globalThis.localStorage?.getItem(olderOutboxKey);
    if (!older) return;
    let entries = [];
    try { entries = JSON.parse(older); } catch { /* unreadable: nothing to take */ }
    for (const [index, entry] of entries.entries()) await this.store.outbox.put({ ...entry, writtenAt: index + 1 });
    globalThis.localStorage.removeItem(olderOutboxKey);
  }
}

/** A client id for a message, so that a retried send is stored once. */
export function newClientId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

/** A send's result as it crosses to other tabs: errors lose their fields when cloned. */
function cloneable(result) {
  if (!result.refused) return result;
  const { status, code, message } = result.refused;
  return { refused: { status, code, message } };
}
