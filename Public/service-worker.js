// The page's service worker: it keeps the page's own files and the view
// models the page has shown, so that the page opens, and shows what it
// showed before, while the server cannot be reached; and it shows pushes as
// notifications.
//
// Every request goes to the server first (the files answer 304 while they
// are unchanged, so a new release is taken at once, without a reload loop);
// only when the server cannot be reached does the kept copy answer. A 401 or
// a sign-out forgets every kept view model: a shared computer keeps nothing
// of an ended session.

const pageCache = "tailor-page";
const viewCache = "tailor-views";
const pageFiles = ["/", "/style.css", "/icon.svg", "/manifest.webmanifest", "/js/account.js", "/js/api.js", "/js/app.js",
  "/js/chats.js", "/js/dom.js", "/js/live.js", "/js/offline.js", "/js/orders.js", "/js/outbox.js", "/js/patch.js", "/js/push.js",
  "/js/session.js"];
// The view models a screen reads: kept for when the server is away.
const viewPaths = /^\/api\/(me|badge|chats|orders)(\/|\?|$)/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(pageCache).then((cache) => cache.addAll(pageFiles.map((path) => new Request(path, { cache: "no-cache" })))));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname === "/api/events") return;
  if (url.pathname.startsWith("/api/")) {
    if (viewPaths.test(url.pathname)) event.respondWith(fromServerElseKept(request, viewCache));
    return;
  }
  event.respondWith(fromServerElseKept(request, pageCache, url.pathname.endsWith("/") ? "/" : null));
});

/** The server's answer, kept when whole; the kept copy when the server cannot be reached. */
async function fromServerElseKept(request, cacheName, keyPath) {
  const key = keyPath ?? request;
  let answer;
  try {
    answer = await fetch(request);
  } catch (unreachable) {
    const kept = await caches.match(key, { cacheName });
    if (kept) return kept;
    throw unreachable;
  }
  if (answer.status === 401) {
    await caches.delete(viewCache);
  } else if (answer.status === 200) {
    const copy = answer.clone();
    caches.open(cacheName).then((cache) => cache.put(key, copy));
  }
  return answer;
}

self.addEventListener("message", (event) => {
  // Sign-out: nothing of the session stays on this computer.
  if (event.data?.forgetViews) event.waitUntil(caches.delete(viewCache));
});

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
