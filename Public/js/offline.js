// The service worker that keeps the page's own files, so that the page
// opens while the server cannot be reached (see /service-worker.js), and
// takes pushes.

export const workerPath = "/service-worker.js";

/** Registers the service worker once per page load; null where the browser has none. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  return navigator.serviceWorker.register(workerPath).catch((error) => {
    console.warn("the page will not open offline:", error.message);
    return null;
  });
}
