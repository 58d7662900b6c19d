// The page: who is signed in, which screen shows, the header's badge and
// connection state, and the notification banner. Screens draw view models;
// the client (./client/) brings them, from the store first and then live,
// and this file routes between screens and hands them what comes.

import { h, fill } from "./dom.js";
import { TailorClient } from "./client/client.js";
import { kindOf } from "./client/topics.js";
import { showAccount } from "./account.js";
import { listenForOpenRequests, turnPushOff } from "./push.js";
import { registerServiceWorker } from "./offline.js";
import { signInScreen } from "./session.js";
import { chatListScreen, chatScreen } from "./chats.js";
import { orderListScreen, orderScreen } from "./orders.js";

const element = (id) => document.getElementById(id);
const client = await TailorClient.open();
const page = { user: null, screen: null, navigation: 0, unread: null, bannerTimer: null, following: [], badge: null, connection: "connecting",
  patchesApplied: 0 };

/** What a screen may ask of the page. */
const context = {
  client,
  get user() { return page.user; },
  /** "connecting", "live", "reconnecting" or "offline". */
  get connection() { return page.connection; },
  navigate(hash) { location.hash = hash; },
  async signedIn(user) {
    await client.signedIn(user);
    page.user = user;
    showRoute();
  },
  /** An error a screen cannot handle itself: a lost session signs out. */
  failed(error) {
    if (error.status === 401) client.forget({ tellOthers: true });
    else console.warn(error);
  },
  /** The screen's title changed with its view model. */
  titled() { showTitle(); },
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

function showRoute() {
  const navigation = ++page.navigation;
  page.screen?.leave?.();
  for (const stop of page.following) stop();
  page.following = [];
  showSignedIn(page.user);
  if (!page.user) return show(signInScreen(context));
  followBadge();
  const screen = screenForLocation();
  if (!screen) return context.navigate("#/chats");
  show(screen);
  // Each view model the screen shows: the stored one at once, then the server's, then live.
  for (const topic of screen.topics) {
    page.following.push(client.viewModel(topic,
      (viewModel, { patched } = {}) => {
        if (navigation !== page.navigation) return;
        // Counted where a test (or a curious person) can see that patches are used.
        if (patched) document.documentElement.dataset.patchesApplied = String(++page.patchesApplied);
        screen.receive(kindOf(topic), viewModel);
        showTitle();
      },
      (error) => { if (navigation === page.navigation) showMissing(error); }));
  }
}

/** The header's unread count, followed while someone is signed in. */
function followBadge() {
  page.badge ??= client.viewModel("badge", (badge) => showBadge(badge.unread));
}

function showMissing(error) {
  const heading = error.status === 404 ? "Not found" : error.status === 0 ? "Offline" : "Something went wrong";
  const text = error.status === 0 ? "This screen was not kept on this device. It shows once the server answers again." : error.message;
  fill(element("screen"), h("section", { class: "missing" },
    h("h1", { tabindex: "-1" }, heading),
    h("p", { role: "alert" }, text),
    h("p", {}, h("a", { href: "#/chats" }, "Back to chats"))));
}

function show(screen) {
  page.screen = screen;
  fill(element("screen"), screen.element);
  showTitle();
  screen.connectionChanged?.(page.connection);
  for (const link of element("nav").querySelectorAll("a")) {
    const current = location.hash.startsWith(link.getAttribute("href"));
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  // Moves keyboard and screen-reader focus to the new screen.
  (screen.element.querySelector("h1") ?? element("screen")).focus({ preventScroll: true });
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
  if (page.unread === unread) return;
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
  const title = page.unread > 0 ? `(${page.unread}) ${name}` : name;
  if (document.title !== title) document.title = title;
}

const connectionTexts = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline" };

client.onState((state) => {
  page.connection = state;
  const connection = element("connection");
  connection.textContent = connectionTexts[state];
  connection.dataset.state = state;
  page.screen?.connectionChanged?.(state);
});

// A message of the outbox went, from this tab or another: the chat screen replaces its copy.
client.onSent((entry, result) => {
  window.dispatchEvent(new CustomEvent("tailor-outbox-sent", { detail: { entry, result } }));
});

/** The in-app banner for a message in a chat no tab shows. */
client.onNotification((notification) => {
  const banner = element("banner");
  const open = () => { banner.hidden = true; context.navigate(`#/chats/${notification.chatId}`); };
  fill(banner, h("button", { type: "button", class: "banner-open", onclick: open },
    h("strong", {}, notification.contact), ": ", notification.text),
    h("button", { type: "button", class: "quiet", "aria-label": "Dismiss", onclick: () => { banner.hidden = true; } }, "×"));
  banner.hidden = false;
  clearTimeout(page.bannerTimer);
  page.bannerTimer = setTimeout(() => { banner.hidden = true; }, 8000);
});

// Signed in or out in another tab, or the session ended (a 401): the page follows.
client.onSession((user) => {
  if (user) {
    page.user = user;
    return showRoute();
  }
  // Nobody was shown signed in (a first visit's 401): the sign-in form stays as it is, typing and all.
  if (!page.user) return;
  page.badge?.();
  page.badge = null;
  element("account").open = false;
  sessionStorage.removeItem("tailor-token");
  page.user = null;
  page.unread = 0;
  showAppBadge(0);
  element("banner").hidden = true;
  showRoute();
});

element("sign-out").addEventListener("click", async () => {
  try { await turnPushOff(); } catch (error) { console.warn(error); }
  await client.signOut();
});

element("account").addEventListener("toggle", () => {
  if (element("account").open) showAccount(element("account-panel"));
});

window.addEventListener("hashchange", showRoute);
listenForOpenRequests((chatId) => { location.hash = `#/chats/${chatId}`; });

registerServiceWorker();
// Whoever was signed in here shows at once, from the store; the server then says whether they still are.
page.user = await client.start();
showRoute();
client.currentUser().then((user) => {
  if (user?.id === page.user?.id) return;
  page.user = user;
  showRoute();
}, (error) => console.warn(error));
