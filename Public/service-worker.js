// The page's service worker: it keeps the page's own files, so that the
// page opens while the server cannot be reached (the view models it shows
// then come from the page's store, in IndexedDB: see js/client/store.js),
// and it shows pushes as notifications.
//
// Every file is asked of the server first (they answer 304 while unchanged,
// so a new release is taken at its first load, without a reload loop); only
// when the server cannot be reached does the kept copy answer.

const pageCache = "tailor-page";
const pageFiles = ["/", "/style.css", "/icon.svg", "/manifest.webmanifest",
  "/js/account.js", "/js/app.js", "/js/chats.js", "/js/dom.js", "/js/offline.js", "/js/orders.js", "/js/push.js",
  "/js/session.js", "/js/client/client.js", "/js/client/eviction.js", "/js/client/http.js", "/js/client/outbox.js",
  "/js/client/patch.js", "/js/client/store.js", "/js/client/stream.js", "/js/client/tabs.js", "/js/client/topics.js"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(pageCache).then((cache) => cache.addAll(pageFiles.map((path) => new Request(path, { cache: "no-cache" })))));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  // What an earlier release kept beside the page's files goes (it once kept view models here).
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== pageCache).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  event.respondWith(fromServerElseKept(request, url.pathname.endsWith("/") ? "/" : null));
});

/** The server's answer, kept when whole; the kept copy when the server cannot be reached. */
async function fromServerElseKept(request, keyPath) {
  const key = keyPath ?? request;
  let answer;
  try {
    answer = await fetch(request);
  } catch (unreachable) {
    const kept = await caches.match(key, { cacheName: pageCache });
    if (kept) return kept;
    throw unreachable;
  }
  if (answer.status === 200) {
    const copy = answer.clone();
    caches.open(pageCache).then((cache) => cache.put(key, copy));
  }
  return answer;
}

self.addEventListener("push", (event) => {
  let notification;
  try {
    notification = event.data.json();
  } catch {
    return;
  }
  event.waitUntil(self.registration.showNotification(notification.contact, {
    body: notification.text,
    // A newer message of the chat replaces the one not yet seen.
    tag: `chat-${notification.chatId}`,
    data: { chatId: notification.chatId },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const chatId = event.notification.data.chatId;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const page = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (page) {
      page.postMessage({ openChat: chatId });
      return page.focus();
    }
    return self.clients.openWindow(`/#/chats/${chatId}`);
  })());
});
