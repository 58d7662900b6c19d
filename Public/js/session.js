// Signing up with a name (and a password, if one is wanted), or in with the
// name and password, or with a token from another browser.

import { h, fields } from "./dom.js";
import { call } from "./client/http.js";

export function signInScreen(context) {
  const signUpError = h("p", { class: "error", id: "sign-up-error", role: "alert" });
  const signInError = h("p", { class: "error", id: "sign-in-error", role: "alert" });
  const passwordError = h("p", { class: "error", id: "password-sign-in-error", role: "alert" });

  async function signUp(event) {
    event.preventDefault();
    signUpError.textContent = "";
    try {
      // A password is taken as typed, spaces included: only the name is trimmed.
      const { name } = fields(event.target);
      const password = event.target.elements.password.value;
      await context.client.endPendingSignOut();
      const answer = await call("POST", "/api/users", password ? { name, password } : { name });
      // The token signs this account in on another browser; it is shown once.
      sessionStorage.setItem("tailor-token", answer.token);
      context.signedIn(answer.user);
    } catch (error) {
      signUpError.textContent = error.message;
    }
  }

  async function signInWithPassword(event) {
    event.preventDefault();
    passwordError.textContent = "";
    try {
      const { name } = fields(event.target);
      await context.client.endPendingSignOut();
      const answer = await call("POST", "/api/session", { name, password: event.target.elements.password.value });
      context.signedIn(answer.user);
    } catch (error) {
      passwordError.textContent = error.status === 401 ? "That name and password do not match." : error.message;
    }
  }

  async function signIn(event) {
    event.preventDefault();
    signInError.textContent = "";
    try {
      const { token } = fields(event.target);
      await context.client.endPendingSignOut();
      const answer = await call("POST", "/api/session", { token });
      sessionStorage.setItem("tailor-token", token);
      context.signedIn(answer.user);
    } catch (error) {
      signInError.textContent = error.status === 401 ? "That token does not belong to anyone here." : error.message;
    }
  }

  const element = h("section", { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title", tabindex: "-1" }, "Welcome to Tailor"),
    h("p", {}, "Chats and orders that update themselves. Pick a name to start; say hello to ",
      h("strong", {}, "bot"), " once you are in."),
    h("form", { class: "card", id: "sign-up", onsubmit: signUp, novalidate: true },
      h("h2", {}, "Sign up"),
      h("label", { for: "sign-up-name" }, "Name"),
      h("input", { id: "sign-up-name", name: "name", autocomplete: "username", required: true,
        maxlength: 32, "aria-describedby": "sign-up-hint sign-up-error" }),
      h("p", { class: "hint", id: "sign-up-hint" }, "Letters, digits, _ and -, up to 32."),
      h("label", { for: "sign-up-password" }, "Password (optional)"),
      h("input", { id: "sign-up-password", name: "password", type: "password", autocomplete: "new-password",
        minlength: 8, maxlength: 128, "aria-describedby": "sign-up-password-hint sign-up-error" }),
      h("p", { class: "hint", id: "sign-up-password-hint" }, "8 to 128 characters, to sign in elsewhere with your name."),
      signUpError,
      h("button", { type: "submit" }, "Sign up")),
    h("form", { class: "card", id: "password-sign-in", onsubmit: signInWithPassword, novalidate: true },
      h("h2", {}, "Sign in with your password"),
      h("label", { for: "password-sign-in-name" }, "Name"),
      h("input", { id: "password-sign-in-name", name: "name", autocomplete: "username", required: true, maxlength: 32 }),
      h("label", { for: "password-sign-in-password" }, "Password"),
      h("input", { id: "password-sign-in-password", name: "password", type: "password", autocomplete: "current-password",
        required: true, "aria-describedby": "password-sign-in-error" }),
      passwordError,
      h("button", { type: "submit" }, "Sign in")),
    h("form", { class: "card", id: "sign-in", onsubmit: signIn, novalidate: true },
      h("h2", {}, "Sign in with a token"),
      h("label", { for: "sign-in-token" }, "Token"),
      h("input", { id: "sign-in-token", name: "token", autocomplete: "current-password", required: true,
        "aria-describedby": "sign-in-error" }),
      signInError,
      h("button", { type: "submit" }, "Sign in")));

  return { title: "Sign in", topics: [], element, async load() {} };
}
