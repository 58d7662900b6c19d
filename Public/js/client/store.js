// The page's own store, in IndexedDB: the view models it has shown (by
// topic, with the ETag and the feed position they were current at), the
// outbox of messages not yet taken by the server, and two facts: who is
// signed in and the last feed position the stream reached. A new schema
// clears everything; so does an ended session, and a write begun before
// the clearing (an answer that was on its way) is dropped, not kept. Where IndexedDB cannot be
// opened (a private window of some browsers), the same store lives in memory
// for the page's lifetime.

import { defaultLimits, evictions } from "./eviction.js";

const databaseName = "tailor";
/** Raised when what is stored changes shape: an upgrade starts from nothing. */
export const schema = 1;
const tables = ["views", "outbox", "facts"];

/** Opens the store; never fails (a memory store stands in). */
export async function openStore({ indexedDB = globalThis.indexedDB, limits = defaultLimits } = {}) {
  if (!indexedDB) return new Store(new MemoryTables(), limits);
  try {
    return new Store(new DatabaseTables(await openDatabase(indexedDB)), limits);
  } catch (error) {
    console.warn("the page keeps nothing between visits:", error.message);
    return new Store(new MemoryTables(), limits);
  }
}

/** Deletes the whole database, for when the store could not be opened to clear it. */
export function deleteStore(indexedDB = globalThis.indexedDB) {
  if (indexedDB) indexedDB.deleteDatabase(databaseName);
}

export class Store {
  constructor(tables, limits) {
    this.tables = tables;
    this.limits = limits;
    // When each kept view model was last shown, so that keeping one costs no read of all the
    // others. Other tabs keep view models too: it is read again now and then.
    this.shown = null;
    this.keptSinceRead = 0;
    // Counts the clearings: a write that began before the latest one is not made.
    this.epoch = 0;
  }

  /** `{topic, viewModel, etag, position, shownAt}`, or undefined. */
  view(topic) {
    return this.tables.get("views", topic);
  }

  /** Keeps a view model as the newest shown of its kind, and lets the oldest of its kind go. */
  async keepView(topic, viewModel, { etag = null, position = null } = {}) {
    const epoch = this.epoch;
    if (!this.shown || ++this.keptSinceRead >= 50) {
      const shown = new Map((await this.tables.all("views")).map((view) => [view.topic, view.shownAt]));
      if (epoch !== this.epoch) return;
      this.shown = shown;
      this.keptSinceRead = 0;
    }
    if (epoch !== this.epoch) return;
    const shownAt = Date.now();
    await this.tables.put("views", { topic, viewModel, etag, position, shownAt });
    this.shown.set(topic, shownAt);
    const entries = [...this.shown].map(([topic, shownAt]) => ({ topic, shownAt }));
    for (const evicted of evictions(entries, this.limits)) {
      this.shown.delete(evicted);
      await this.tables.delete("views", evicted);
    }
  }

  fact(name) {
    return this.tables.get("facts", name).then((entry) => entry?.value ?? null);
  }

  keepFact(name, value) {
    return this.tables.put("facts", { name, value });
  }

  /** The outbox's storage, as `Outbox` takes it. */
  get outbox() {
    const tables = this.tables;
    return {
      all: () => tables.all("outbox"),
      put: (entry) => tables.put("outbox", entry),
      delete: (clientId) => tables.delete("outbox", clientId),
    };
  }

  /** Forgets everything: the session ended. Writes begun before it are not made. */
  async clear() {
    this.epoch += 1;
    this.shown = null;
    for (const table of tables) await this.tables.clear(table);
  }
}

function openDatabase(indexedDB) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(databaseName, schema);
    opening.onupgradeneeded = () => {
      const database = opening.result;
      for (const name of [...database.objectStoreNames]) database.deleteObjectStore(name);
      database.createObjectStore("views", { keyPath: "topic" });
      database.createObjectStore("outbox", { keyPath: "clientId" });
      database.createObjectStore("facts", { keyPath: "name" });
    };
    opening.onsuccess = () => {
      const database = opening.result;
      // A newer release's page wants to upgrade: this one lets go.
      database.onversionchange = () => database.close();
      resolve(database);
    };
    opening.onerror = () => reject(opening.error);
    opening.onblocked = () => reject(new Error("an older page holds the store"));
  });
}

class DatabaseTables {
  constructor(database) {
    this.database = database;
  }

  run(table, mode, work) {
    return new Promise((resolve, reject) => {
      const transaction = this.database.transaction(table, mode);
      const request = work(transaction.objectStore(table));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error ?? new Error("the store's transaction was aborted"));
    });
  }

  get(table, key) { return this.run(table, "readonly", (store) => store.get(key)); }
  all(table) { return this.run(table, "readonly", (store) => store.getAll()); }
  put(table, value) { return this.run(table, "readwrite", (store) => store.put(value)); }
  delete(table, key) { return this.run(table, "readwrite", (store) => store.delete(key)); }
  clear(table) { return this.run(table, "readwrite", (store) => store.clear()); }
}

const keyPaths = { views: "topic", outbox: "clientId", facts: "name" };

class MemoryTables {
  constructor() {
    this.maps = Object.fromEntries(tables.map((name) => [name, new Map()]));
  }

  async get(table, key) { return structuredClone(this.maps[table].get(key)); }
  async all(table) { return [...this.maps[table].values()].map((value) => structuredClone(value)); }
  async put(table, value) { this.maps[table].set(value[keyPaths[table]], structuredClone(value)); }
  async delete(table, key) { this.maps[table].delete(key); }
  async clear(table) { this.maps[table].clear(); }
}
