// "Notify me": Web Push, for a message that comes while no tab shows its
// chat. Permission is asked for only when the user presses the toggle.
import { call } from "./client/http.js";
import { workerPath } from "./offline.js";

/** Whether this browser can take pushes at all. */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The service worker that shows pushes, registered once. */
export function pushWorker() {
  return navigator.serviceWorker.register(workerPath);
}

/** This browser's push subscription, or null. */
async function currentSubscription() {
  const registration = await navigator.serviceWorker.getRegistration(workerPath);
  return registration ? registration.pushManager.getSubscription() : null;
}

export async function pushIsOn() {
  return pushSupported() && Notification.permission === "granted" && (await currentSubscription()) !== null;
}

/** The server's key, as `applicationServerKey` takes it. */
function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64 + "=".repeat((4 - base64.length % 4) % 4)), (c) => c.charCodeAt(0));
}

/** Asks for permission, subscribes with the server's key, and tells the server. */
export async function turnPushOn() {
  if (await Notification.requestPermission() !== "granted") {
    throw new Error("Notifications are blocked for this site: allow them in the browser's settings.");
  }
  const { key } = await call("GET", "/api/push/key");
  const registration = await pushWorker();
  await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await call("POST", "/api/push/subscriptions", subscription.toJSON());
}

/** Unsubscribes this browser, on the server too; on sign-out as well. */
export async function turnPushOff() {
  const subscription = pushSupported() ? await currentSubscription() : null;
  if (!subscription) return;
  try {
    await call("DELETE", "/api/push/subscriptions", { endpoint: subscription.endpoint });
  } catch (error) {
    // Signed out already: the server let it go with the session.
    console.warn(error);
  }
  await subscription.unsubscribe();
}

/** A click on a notification asks the page to open its chat. */
export function listenForOpenRequests(open) {
  if (!pushSupported()) return;
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.openChat) open(event.data.openChat);
  });
}
