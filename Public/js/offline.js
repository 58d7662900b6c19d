// The service worker that lets the page open, with what it showed before,
// while the server cannot be reached (see /service-worker.js), and takes pushes.

export const workerPath = "/service-worker.js";

/** Registers the service worker once per page load; null where the browser has none. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  return navigator.serviceWorker.register(workerPath).catch((error) => {
    console.warn("the page will not open offline:", error.message);
    return null;
  });
}

/** Forgets every view model kept for offline use: the person signed out. */
export async function forgetStoredViews() {
  if ("caches" in window) await caches.delete("tailor-views");
}
