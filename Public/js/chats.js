// The chat list and one chat's screen. Both draw the server's view models as
// they come; the only state of their own is the composer's optimistic copies.

import { h, fill, fields } from "./dom.js";
import { call, perform } from "./client/http.js";
import { newClientId } from "./client/client.js";

export function chatListScreen(context) {
  let viewModel = null;     // the first page, as the stream sends it
  let later = [];           // items of the pages after it, loaded with "More chats"
  let next = null;          // the action for the page after everything shown
  const list = h("ul", { class: "chat-list", "aria-label": "Chats" });
  const error = h("p", { class: "error", id: "new-chat-error", role: "alert" });
  const moreButton = h("button", { type: "button", class: "quiet", id: "more-chats", hidden: true, onclick: loadMore }, "More chats");
  // Enabled once the list's view model, which holds the action it takes, is here.
  const startButton = h("button", { type: "submit", disabled: true }, "Start chat");

  /** The first page anew: pages loaded after it are dropped, since its order changed. */
  function draw(chats) {
    viewModel = chats;
    startButton.disabled = false;
    later = [];
    next = chats.next;
    drawItems();
  }

  async function loadMore() {
    try {
      const page = await perform(next);
      later = later.concat(page.items);
      next = page.next;
      drawItems();
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  function drawItems() {
    moreButton.hidden = !next;
    const items = viewModel.items.concat(later);
    if (items.length === 0) {
      return fill(list, h("li", { class: "empty" }, "No chats yet. Start one below, with ", h("strong", {}, "bot"), " for instance."));
    }
    fill(list, items.map((item) => h("li", {},
      h("a", { class: "chat-item", href: `#/chats/${item.id}`, "data-chat": item.id },
        h("span", { class: "contact" }, item.contact,
          item.contactStatus?.state === "online" && h("span", { class: "online-dot", title: "online", "aria-label": "online" })),
        h("time", { datetime: item.lastMessageAt ?? undefined }, item.lastMessageDate),
        item.contactStatus?.state === "typing"
          ? h("span", { class: "last-message typing" }, item.contactStatus.text)
          : h("span", { class: "last-message" }, item.message),
        item.unreadMessageCount > 0 &&
          h("span", { class: "count", "aria-label": `${item.unreadMessageCount} unread` }, item.unreadMessageCount)))));
  }

  async function addChat(event) {
    event.preventDefault();
    error.textContent = "";
    const form = event.target;
    if (!viewModel) return;
    const action = viewModel.actions.addChat;
    try {
      const chat = await call(action.method, action.href, { contact: fields(form).contact });
      form.reset();
      context.navigate(`#/chats/${chat.id}`);
    } catch (failure) {
      error.textContent = failure.message;
      if (failure.status === 401) context.failed(failure);
    }
  }

  const element = h("section", { class: "chats", "aria-labelledby": "chats-title" },
    h("h1", { id: "chats-title", tabindex: "-1" }, "Chats"),
    list,
    moreButton,
    h("form", { class: "inline-form", id: "new-chat", onsubmit: addChat, novalidate: true },
      h("label", { for: "new-chat-contact" }, "New chat with"),
      h("input", { id: "new-chat-contact", name: "contact", placeholder: "a name, e.g. bot", autocomplete: "off",
        "aria-describedby": "new-chat-error" }),
      startButton,
      error));

  return {
    title: "Chats",
    topics: ["chats"],
    element,
    receive(name, data) { if (name === "chats") draw(data); },
  };
}

const stateTexts = { sending: "Sending", waiting: "Waiting for the server", sent: "Sent", read: "Read", failed: "Not sent" };
const stateMarks = { sending: "…", waiting: "🕓", sent: "✓", read: "✓✓", failed: "!" };

export function chatScreen(context, id) {
  let viewModel = null;
  let older = [];            // pages loaded with "load earlier", oldest first
  let earlier = null;        // the action for the page before everything shown
  const sent = new Map();    // answers to our sends, until the view model has them
  const pending = new Map(); // clientId → our optimistic copy ("sending" or "failed")
  let markingRead = false;
  let left = false;
  let rows = new Map();     // what a row shows → its element
  let atBottom = true;      // kept on scroll: draws read no layout
  let typingSaidAt = 0;      // when the server was last told we type

  /** How often the server hears that we type while the composer holds text. */
  const typingInterval = 3000;
  const readMarkInterval = 250;

  const title = h("h1", { id: "chat-title", tabindex: "-1" }, "Chat");
  const contactStatus = h("p", { class: "contact-status", id: "contact-status", "aria-live": "polite" });
  const earlierButton = h("button", { type: "button", class: "quiet", hidden: true, onclick: loadEarlier }, "Load earlier messages");
  const messages = h("ol", { class: "messages", "aria-live": "polite", "aria-label": "Messages",
    onscroll: () => { atBottom = messages.scrollHeight - messages.scrollTop - messages.clientHeight < 40; } });
  const input = h("input", { id: "composer-text", name: "text", autocomplete: "off", maxlength: 4000, placeholder: "Message" });
  const error = h("p", { class: "error", role: "alert" });
  // The view model's block or unblock action, whichever it carries.
  const blockButton = h("button", { type: "button", class: "quiet", id: "block", hidden: true, onclick: toggleBlock });

  // The client hands over a flood's events together, a few times a second: each is drawn at once.
  function draw() {
    if (!viewModel) return;
    title.textContent = viewModel.title;
    // Null until the contact has written here, or while presence is hidden.
    contactStatus.textContent = viewModel.contactStatus?.text ?? "";
    contactStatus.dataset.state = viewModel.contactStatus?.state ?? "hidden";
    const blockAction = viewModel.actions.unblock ?? viewModel.actions.block;
    blockButton.hidden = !blockAction;
    blockButton.textContent = viewModel.blocked ? `Unblock ${viewModel.title}` : `Block ${viewModel.title}`;
    earlierButton.hidden = !(older.length ? earlier : viewModel.earlier);
    const shown = new Set(viewModel.messages.map((message) => message.id));
    for (const messageId of sent.keys()) if (shown.has(messageId)) sent.delete(messageId);
    const all = [...older.filter((message) => !shown.has(message.id)), ...viewModel.messages, ...sent.values(), ...pending.values()];
    placeRows(all);
    if (atBottom) messages.scrollTop = messages.scrollHeight;
    markReadWhenSeen();
  }

  // A row stays while its message reads the same.
  function placeRows(all) {
    const wanted = new Map();
    const order = all.map((message) => {
      const key = `${message.id} ${message.state} ${message.time} ${message.text}`;
      wanted.set(key, rows.get(key) ?? drawMessage(message));
      return wanted.get(key);
    });
    for (const [key, row] of rows) if (wanted.get(key) !== row) row.remove();
    rows = wanted;
    let next = messages.firstElementChild;
    for (const row of order) {
      if (row === next) next = next.nextElementSibling;
      else messages.insertBefore(row, next);
    }
  }

  function drawMessage(message) {
    const mine = message.sender === "me";
    return h("li", { class: `message ${mine ? "mine" : "theirs"} ${message.state}`, "data-message": message.id },
      h("span", { class: "visually-hidden" }, `${message.senderName}: `),
      h("p", { class: "text" }, message.text),
      h("span", { class: "meta" },
        message.time && h("time", { datetime: message.sentAt }, message.time),
        mine && h("span", { class: "state", "data-state": message.state, title: stateTexts[message.state],
          "aria-label": stateTexts[message.state] }, stateMarks[message.state]),
        message.state === "failed" && h("button", { type: "button", class: "quiet", onclick: () => send(message.clientId, message.text) }, "Retry")));
  }

  /** An optimistic copy of our message, until the server's replaces it. */
  function showPending(clientId, text, state) {
    pending.set(clientId, { id: `pending-${clientId}`, clientId, text, sender: "me", senderName: context.user.name, state, time: "" });
  }

  /** The server took a message of ours: its copy replaces ours. */
  function taken(clientId, answer) {
    pending.delete(clientId);
    if (!viewModel?.messages.some((message) => message.id === answer.message.id)) sent.set(answer.message.id, answer.message);
  }

  /**
   * Shows the message as "sending" at once; the server's copy replaces it. It
   * is kept in the outbox first: one the server cannot take now shows as
   * waiting, and goes when the server answers again, even from another tab
   * or a later visit.
   */
  async function send(clientId, text) {
    showPending(clientId, text, "sending");
    draw();
    settled(clientId, await context.client.send(id, text, clientId));
  }

  /** What became of a message of ours: taken, waiting for the server, or refused. */
  function settled(clientId, { answer, waiting, refused }) {
    if (!pending.has(clientId)) return;
    if (answer) {
      taken(clientId, answer);
      error.textContent = "";
    } else if (waiting) {
      pending.get(clientId).state = "waiting";
      error.textContent = "Not sent yet: it goes as soon as the server answers.";
    } else {
      pending.get(clientId).state = "failed";
      error.textContent = refused.message;
    }
    draw();
  }

  // Messages written before, in this tab or another, that still wait for the server.
  context.client.waiting(id).then((entries) => {
    for (const entry of entries) if (!pending.has(entry.clientId)) showPending(entry.clientId, entry.text, "waiting");
    draw();
  });
  /** The outbox sent a message, maybe of this chat. */
  function outboxSent(event) {
    const { entry, result } = event.detail;
    if (entry.chatId === id) settled(entry.clientId, result);
  }
  window.addEventListener("tailor-outbox-sent", outboxSent);

  function submit(event) {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !viewModel) return;
    input.value = "";
    typingSaidAt = 0;
    send(newClientId(), text);
  }

  /** Tells the contact we type, at most every `typingInterval`; nothing when the text is cleared. */
  function typed() {
    if (!viewModel || !input.value.trim() || Date.now() - typingSaidAt < typingInterval) return;
    typingSaidAt = Date.now();
    perform(viewModel.actions.typing).catch(() => { /* a lost signal only means no "typing…" */ });
  }
  input.addEventListener("input", typed);

  /**
   * Marks the chat read while it is on screen and the page is visible: one
   * mark at a time, at most one every `readMarkInterval`, so a flood of
   * messages is marked read in a few requests, not one each.
   */
  async function markReadWhenSeen() {
    if (!viewModel || viewModel.unreadMessageCount === 0 || markingRead || left || document.visibilityState !== "visible") return;
    markingRead = true;
    const began = Date.now();
    try { await perform(viewModel.actions.markRead); } catch (failure) { context.failed(failure); }
    setTimeout(() => {
      markingRead = false;
      markReadWhenSeen();
    }, readMarkInterval - (Date.now() - began));
  }

  async function toggleBlock() {
    const action = viewModel?.actions.unblock ?? viewModel?.actions.block;
    if (!action) return;
    try {
      viewModel = await perform(action);
      error.textContent = "";
      draw();
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  async function loadEarlier() {
    const action = older.length ? earlier : viewModel?.earlier;
    if (!action) return;
    try {
      const page = await call(action.method, action.href);
      older = [...page.messages, ...older];
      earlier = page.earlier;
      const height = messages.scrollHeight;
      draw();
      messages.scrollTop += messages.scrollHeight - height; // keep the reader's place
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  document.addEventListener("visibilitychange", markReadWhenSeen);

  const element = h("section", { class: "chat", "aria-labelledby": "chat-title" },
    h("a", { class: "back", href: "#/chats" }, "← Chats"),
    title,
    contactStatus,
    blockButton,
    earlierButton,
    messages,
    h("form", { class: "composer", id: "composer", onsubmit: submit },
      h("label", { for: "composer-text", class: "visually-hidden" }, "Message"),
      input,
      h("button", { type: "submit" }, "Send")),
    error);

  return {
    title: "Chat",
    topics: [`chat:${id}`],
    element,
    receive(name, data) {
      if (name !== "chat" || data.id !== id) return;
      viewModel = data;
      this.title = data.title;
      draw();
    },
    // A chat read while the server was away is marked read once it answers again.
    connectionChanged(state) { if (state === "live") markReadWhenSeen(); },
    leave() {
      left = true;
      document.removeEventListener("visibilitychange", markReadWhenSeen);
      window.removeEventListener("tailor-outbox-sent", outboxSent);
    },
  };
}
