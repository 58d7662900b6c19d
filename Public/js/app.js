// The page: who is signed in, which screen shows, the header's badge and
// connection state, and the notification banner. Screens draw view models;
// this file only routes between them and hands them live events.

import { h, fill } from "./dom.js";
import { call, APIError } from "./api.js";
import { LiveStream } from "./live.js";
import { showAccount } from "./account.js";
import { listenForOpenRequests, turnPushOff } from "./push.js";
import { registerServiceWorker, forgetStoredViews } from "./offline.js";
import * as outbox from "./outbox.js";
import { signInScreen } from "./session.js";
import { chatListScreen, chatScreen } from "./chats.js";
import { orderListScreen, orderScreen } from "./orders.js";

const element = (id) => document.getElementById(id);
const page = { user: null, screen: null, navigation: 0, unread: 0, bannerTimer: null };
const live = new LiveStream({ onEvent: receive, onState: showConnection });

/** What a screen may ask of the page. */
const context = {
  get user() { return page.user; },
  navigate(hash) { location.hash = hash; },
  signedIn(user) { page.user = user; showRoute(); },
  /** An error a screen cannot handle itself: a lost session signs out. */
  failed(error) {
    if (error instanceof APIError && error.status === 401) signedOut();
    else console.warn(error);
  },
};

const routes = [
  [/^#\/chats\/([^/]+)$/, (id) => chatScreen(context, id)],
  [/^#\/orders\/([^/]+)$/, (id) => orderScreen(context, id)],
  [/^#\/orders$/, () => orderListScreen(context)],
  [/^#\/chats$/, () => chatListScreen(context)],
];

function screenForLocation() {
  for (const [pattern, make] of routes) {
    const match = location.hash.match(pattern);
    if (match) return make(...match.slice(1).map(decodeURIComponent));
  }
  return null;
}

async function showRoute() {
  const navigation = ++page.navigation;
  page.screen?.leave?.();
  if (!page.user) {
    live.close();
    showSignedIn(null);
    return show(signInScreen(context));
  }
  showSignedIn(page.user);
  const screen = screenForLocation();
  if (!screen) return context.navigate("#/chats");
  show(screen);
  live.close();
  try {
    // The screen's current view models first, then a stream that resumes
    // after the last event seen: nothing is missed in between.
    await screen.load();
    showTitle();
    const badge = await call("GET", "/api/badge");
    if (navigation !== page.navigation) return;
    showBadge(badge.unread);
    live.follow(["badge", ...screen.topics]);
  } catch (error) {
    if (navigation !== page.navigation) return;
    if (error instanceof APIError && error.status === 401) return signedOut();
    fill(element("screen"), h("section", { class: "missing" },
      h("h1", { tabindex: "-1" }, error.status === 404 ? "Not found" : "Something went wrong"),
      h("p", { role: "alert" }, error.message),
      h("p", {}, h("a", { href: "#/chats" }, "Back to chats"))));
  }
}

function show(screen) {
  page.screen = screen;
  fill(element("screen"), screen.element);
  showTitle();
  for (const link of element("nav").querySelectorAll("a")) {
    const current = location.hash.startsWith(link.getAttribute("href"));
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  // Moves keyboard and screen-reader focus to the new screen.
  (screen.element.querySelector("h1") ?? element("screen")).focus({ preventScroll: true });
}

function receive(name, data) {
  if (name === "badge") showBadge(data.unread);
  if (name === "notification") showNotification(data);
  page.screen?.receive?.(name, data);
}

function showSignedIn(user) {
  element("nav").hidden = !user;
  element("who").hidden = !user;
  element("connection").hidden = !user;
  element("who-name").textContent = user ? user.name : "";
  // Known only in the tab that signed up: the server keeps no token to show.
  const token = user ? sessionStorage.getItem("tailor-token") : null;
  element("token").hidden = !token;
  element("token-text").textContent = token ?? "";
}

function showBadge(unread) {
  page.unread = unread;
  const badge = element("badge");
  badge.hidden = unread === 0;
  badge.textContent = String(unread);
  badge.setAttribute("aria-label", `${unread} unread`);
  showTitle();
  showAppBadge(unread);
}

/** The unread total on the installed app's icon, where the browser can show one; the title says it everywhere. */
function showAppBadge(unread) {
  if (!("setAppBadge" in navigator)) return;
  const shown = unread > 0 ? navigator.setAppBadge(unread) : navigator.clearAppBadge();
  shown.catch(() => { /* not installed, or badges off: the title still counts */ });
}

function showTitle() {
  const name = page.screen?.title ? `${page.screen.title} · Tailor` : "Tailor";
  document.title = page.unread > 0 ? `(${page.unread}) ${name}` : name;
}

const connectionTexts = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline" };

function showConnection(state) {
  const connection = element("connection");
  connection.textContent = connectionTexts[state];
  connection.dataset.state = state;
  // The server answers again: what was written meanwhile goes now.
  if (state === "live") sendWaitingMessages();
}

/** Sends the messages written while the server was away, and tells the screens. */
function sendWaitingMessages() {
  if (!page.user) return;
  outbox.sendWaiting((entry, answer, failure) => {
    window.dispatchEvent(new CustomEvent("tailor-outbox-sent", { detail: { entry, answer, failure } }));
  });
}
window.addEventListener("online", sendWaitingMessages);

/** The in-app banner for a message in a chat this screen does not show. */
function showNotification(notification) {
  const banner = element("banner");
  const open = () => { banner.hidden = true; context.navigate(`#/chats/${notification.chatId}`); };
  fill(banner, h("button", { type: "button", class: "banner-open", onclick: open },
    h("strong", {}, notification.contact), ": ", notification.text),
    h("button", { type: "button", class: "quiet", "aria-label": "Dismiss", onclick: () => { banner.hidden = true; } }, "×"));
  banner.hidden = false;
  clearTimeout(page.bannerTimer);
  page.bannerTimer = setTimeout(() => { banner.hidden = true; }, 8000);
}

async function signedOut() {
  live.close();
  forgetStoredViews();
  outbox.clear();
  element("account").open = false;
  sessionStorage.removeItem("tailor-token");
  page.user = null;
  page.unread = 0;
  showAppBadge(0);
  element("banner").hidden = true;
  showRoute();
}

element("sign-out").addEventListener("click", async () => {
  try { await turnPushOff(); } catch (error) { console.warn(error); }
  try { await call("DELETE", "/api/session"); } catch (error) { console.warn(error); }
  signedOut();
});

element("account").addEventListener("toggle", () => {
  if (element("account").open) showAccount(element("account-panel"));
});

window.addEventListener("hashchange", showRoute);
listenForOpenRequests((chatId) => { location.hash = `#/chats/${chatId}`; });

async function start() {
  registerServiceWorker();
  try {
    page.user = (await call("GET", "/api/me")).user;
  } catch (error) {
    if (!(error instanceof APIError && error.status === 401)) console.warn(error);
  }
  showRoute();
}

start();
