// Messages written while the server cannot be reached: kept in this browser
// (localStorage, so a closed tab loses nothing) with the clientId they were
// written with, and sent when the server answers again. The server stores a
// clientId once, so a message sent by two tabs, or again after an answer that
// was lost, is still one message.

import { call } from "./api.js";

const key = "tailor-outbox";
let sending = false;

/** The messages waiting, oldest first: `{chatId, clientId, text}`. */
export function waiting() {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "[]");
  } catch {
    return [];
  }
}

function store(entries) {
  localStorage.setItem(key, JSON.stringify(entries));
}

/** Keeps a message the server did not take, to send later. */
export function keep(entry) {
  store([...waiting().filter((kept) => kept.clientId !== entry.clientId), entry]);
}

/** The message is the server's now (or refused for good). */
export function forget(clientId) {
  store(waiting().filter((kept) => kept.clientId !== clientId));
}

/** Signing out: nothing written in the session stays on this computer. */
export function clear() {
  localStorage.removeItem(key);
}

/** Whether a failed send is worth keeping: the server was not reached, or could not take it now. */
export function isPassing(failure) {
  return failure.status === 0 || failure.status === 429 || failure.status >= 500;
}

/**
 * Sends what waits, oldest first, stopping at the first that cannot go yet;
 * tells `onDone(entry, answer, failure)` of each that went or was refused
 * for good (a chat blocked or gone), which is then forgotten.
 */
export async function sendWaiting(onDone) {
  if (sending) return;
  sending = true;
  try {
    for (const entry of waiting()) {
      try {
        const answer = await call("POST", `/api/chats/${encodeURIComponent(entry.chatId)}/messages`,
                                  { text: entry.text, clientId: entry.clientId });
        forget(entry.clientId);
        onDone(entry, answer, null);
      } catch (failure) {
        if (isPassing(failure)) return;
        forget(entry.clientId);
        onDone(entry, null, failure);
      }
    }
  } finally {
    sending = false;
  }
}
