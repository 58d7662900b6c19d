// Messages on their way: each is kept in the store, with the clientId it was
// written with, before it is sent, so that a closed tab or a server away
// loses nothing; it is forgotten once the server took it (or refused it for
// good). The server stores a clientId once, so a message sent by two tabs,
// or again after an answer that was lost, is still one message.
//
// Each message is its writer's: it is sent only while they are the one
// signed in here, looked at just before each send, so that a message
// written by one person never goes out with the next one's cookie.

import { call } from "./http.js";

/** Whether a failed send is worth trying again: the server was not reached, or could not take it now. */
export function isPassing(failure) {
  return failure.status === 0 || failure.status === 429 || failure.status >= 500;
}

export class Outbox {
  /**
   * `storage` holds the entries: `{all(), put(entry), delete(clientId)}`;
   * `owner()` gives the id of who is signed in now (null: nobody).
   */
  constructor(storage, { owner = async () => null, post = postMessage } = {}) {
    this.storage = storage;
    this.owner = owner;
    this.post = post;
    this.sending = null;
    this.written = 0;
  }

  /** The messages waiting, oldest first: `{chatId, clientId, text, writtenAt, userId}`. */
  async waiting(chatId) {
    const entries = (await this.storage.all()).sort((a, b) => a.writtenAt - b.writtenAt);
    return chatId === undefined ? entries : entries.filter((entry) => entry.chatId === chatId);
  }

  /**
   * Keeps a message and sends it. Gives `{answer}` once the server took it,
   * `{waiting: failure}` while it waits for the server, or `{refused: failure}`.
   */
  async send(chatId, clientId, text) {
    // Two messages written in one millisecond keep their order.
    const writtenAt = Math.max(Date.now(), this.written + 1);
    this.written = writtenAt;
    const entry = { chatId, clientId, text, writtenAt, userId: await this.owner() };
    await this.storage.put(entry);
    return this.deliver(entry);
  }

  async deliver(entry) {
    // Whoever signed in since (or nobody, signed out) is not who wrote it: it waits, and goes with its writer's store.
    // (An entry kept by an earlier release names no writer: it was written in this store, by whom it holds.)
    if (entry.userId !== undefined && entry.userId !== (await this.owner())) return { waiting: notTheWriter() };
    try {
      const answer = await this.post(entry);
      await this.storage.delete(entry.clientId);
      return { answer };
    } catch (failure) {
      if (isPassing(failure)) return { waiting: failure };
      await this.storage.delete(entry.clientId);
      return { refused: failure };
    }
  }

  /**
   * Sends what waits, oldest first, stopping at the first that cannot go yet;
   * tells `onDone(entry, result)` of each that went or was refused for good.
   * A second call while one runs waits for it.
   */
  sendWaiting(onDone) {
    this.sending ??= this.sendInOrder(onDone).finally(() => { this.sending = null; });
    return this.sending;
  }

  async sendInOrder(onDone) {
    for (const entry of await this.waiting()) {
      const result = await this.deliver(entry);
      if (result.waiting) return;
      onDone(entry, result);
    }
  }
}

/** Why a message is not sent: its writer is not signed in here now. */
function notTheWriter() {
  return Object.assign(new Error("The message's writer is not signed in here."), { status: 0, code: "signed_out" });
}

/** Sends one message with its clientId: the server answers with the message it keeps. */
function postMessage({ chatId, clientId, text }) {
  return call("POST", `/api/chats/${encodeURIComponent(chatId)}/messages`, { text, clientId });
}
