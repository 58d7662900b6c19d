// The account menu: notifications on or off, whether contacts see when this
// user is online (and so whether they see theirs), the browser sessions signed in
// to this account, each but this one with a button that ends it, and a form
// that sets a new password (which ends every other session).

import { h, fill } from "./dom.js";
import { call } from "./client/http.js";
import { pushIsOn, pushSupported, turnPushOff, turnPushOn } from "./push.js";

/** Fills `panel` with the notification toggle, the sessions and the password form; call it each time the menu opens. */
export async function showAccount(panel) {
  const status = h("p", { class: "hint", id: "account-status", role: "status" });
  let sessions, privacy;
  try {
    [sessions, privacy] = await Promise.all([call("GET", "/api/sessions").then((page) => page.items), call("GET", "/api/me/privacy")]);
  } catch (error) {
    fill(panel, h("p", { class: "error", role: "alert" }, error.message));
    return;
  }
  async function end(session) {
    try {
      await call("DELETE", `/api/sessions/${session.id}`);
      await showAccount(panel);
    } catch (error) {
      status.textContent = error.message;
    }
  }
  async function setPassword(event) {
    event.preventDefault();
    const form = event.target;
    const body = { password: form.elements.password.value };
    if (form.elements.current.value) body.current = form.elements.current.value;
    try {
      await call("PUT", "/api/me/password", body);
      await showAccount(panel);
      panel.querySelector("#account-status").textContent = "Password set; every other session has ended.";
    } catch (error) {
      status.textContent = error.message;
    }
  }
  async function togglePresence(event) {
    try {
      await call("PUT", "/api/me/privacy", { showPresence: event.target.checked });
      status.textContent = "";
    } catch (error) {
      event.target.checked = !event.target.checked;
      status.textContent = error.message;
    }
  }
  async function togglePush(event) {
    const button = event.target;
    button.disabled = true;
    try {
      if (await pushIsOn()) await turnPushOff(); else await turnPushOn();
      status.textContent = "";
    } catch (error) {
      status.textContent = error.message;
    }
    await showAccount(panel);
    if (status.textContent) panel.querySelector("#account-status").textContent = status.textContent;
  }
  const notifications = pushSupported()
    ? h("button", { type: "button", id: "push-toggle", "aria-pressed": String(await pushIsOn()), onclick: togglePush },
      (await pushIsOn()) ? "Stop notifications" : "Notify me")
    : h("p", { class: "hint" }, "This browser cannot show notifications from this page.");
  fill(panel,
    h("h2", {}, "Notifications"),
    h("p", { class: "hint" }, "A message that comes while no tab shows its chat."),
    notifications,
    h("h2", {}, "Privacy"),
    h("label", { class: "check" },
      h("input", { type: "checkbox", id: "show-presence", checked: privacy.showPresence, onchange: togglePresence }),
      " Show contacts when I am online and typing (and see theirs)"),
    h("h2", {}, "Sessions"),
    h("ul", { class: "sessions", id: "sessions" }, sessions.map((session) =>
      h("li", { class: "session", "data-current": session.current },
        h("span", {}, session.userAgent || "A browser", session.current ? " (this one)" : ""),
        h("span", { class: "hint" }, ` since ${session.createdAt.slice(0, 10)}, last seen ${session.lastSeenAt.slice(0, 10)}`),
        session.current ? null : h("button", { type: "button", class: "quiet end-session", onclick: () => end(session) }, "End")))),
    h("form", { id: "password-form", onsubmit: setPassword, novalidate: true },
      h("h2", {}, "Password"),
      h("label", { for: "password-current" }, "Current password (if there is one)"),
      h("input", { id: "password-current", name: "current", type: "password", autocomplete: "current-password" }),
      h("label", { for: "password-new" }, "New password"),
      h("input", { id: "password-new", name: "password", type: "password", autocomplete: "new-password", minlength: 8, maxlength: 128,
        required: true }),
      h("button", { type: "submit" }, "Set password")),
    status);
}
