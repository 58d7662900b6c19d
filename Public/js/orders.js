// The orders list with its sort, layout, search and filter; one order's
// details; and the form for a new order. Buttons come from the view models'
// actions and the controls' options from the list's choices: the page never
// decides which status moves, filters or currencies there are.

import { h, fill, fields } from "./dom.js";
import { call, perform } from "./client/http.js";

const defaults = { sort: "newest", layout: "list", q: "", status: "" };
/** How long typing must pause before the search goes out. */
const searchDelay = 250;

function select(id, name, label) {
  return [h("label", { for: id }, label), h("select", { id, name })];
}

/** Gives an empty `<select>` its options, once: a choice made stays. */
function offer(select, choices) {
  if (select.options.length > 0) return;
  fill(select, choices.map((choice) => h("option", { value: choice.value }, choice.label)));
}

/**
 * Orders change only on the server, at once: while it cannot be reached,
 * their buttons are disabled and `note` says why. Gives the function that
 * applies a connection state to what `container` shows now.
 */
function needingTheServer(container, note) {
  return (state) => {
    const away = state === "offline";
    for (const button of container.querySelectorAll("[data-needs-server]")) {
      button.disabled = away || button.dataset.needsServer === "not-ready";
    }
    note.hidden = !away;
  };
}

const offlineText = "Offline: orders are placed and changed once the server answers again.";

function offlineNote() {
  return h("p", { class: "offline-note", role: "status", hidden: true }, offlineText);
}

function actionButtons(actions, done, error) {
  return h("div", { class: "actions" }, actions.map((action) =>
    h("button", { type: "button", "data-action": action.name, "data-needs-server": "", onclick: async () => {
      error.textContent = "";
      try { done(await perform(action)); } catch (failure) { error.textContent = failure.message; }
    } }, action.label)));
}

export function orderListScreen(context) {
  let latest = 0;          // the newest query sent: only its answer is drawn
  let inFlight = null;     // its AbortController
  let searchTimer = null;
  let shown = [];           // the items of every page drawn, in order
  let next = null;          // the action for the page after them
  const list = h("ul", { class: "order-list", "aria-label": "Orders" });
  const summary = h("p", { class: "summary", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert" });
  const moreButton = h("button", { type: "button", class: "quiet", id: "more-orders", hidden: true, onclick: loadMore }, "More orders");

  const controls = h("form", { class: "controls", id: "order-controls", role: "search", onsubmit: (event) => event.preventDefault() },
    h("div", {}, select("order-sort", "sort", "Sort")),
    h("div", {}, select("order-layout", "layout", "Layout")),
    h("div", {}, select("order-status", "status", "Status")),
    h("div", { class: "search" }, h("label", { for: "order-search" }, "Search"),
      h("input", { id: "order-search", name: "q", type: "search", placeholder: "name or item", autocomplete: "off" })));
  controls.addEventListener("change", (event) => { if (event.target.name !== "q") refresh(); });
  controls.addEventListener("input", (event) => {
    if (event.target.name !== "q") return;
    clearTimeout(searchTimer);
    searchTimer = setTimeout(refresh, searchDelay);
  });

  function parameters() {
    const chosen = fields(controls);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(chosen)) if (value !== defaults[name]) query.set(name, value);
    return query;
  }

  /** Asks for the orders as chosen now; an older answer never overwrites a newer one. */
  async function refresh() {
    const ticket = ++latest;
    inFlight?.abort();
    inFlight = new AbortController();
    const query = parameters().toString();
    try {
      const orders = await call("GET", "/api/orders" + (query ? "?" + query : ""), undefined, { signal: inFlight.signal });
      if (ticket === latest) draw(orders);
    } catch (failure) {
      if (failure.name === "AbortError") return;
      if (ticket === latest) error.textContent = failure.message;
    }
  }

  /** The first page of a list: what was shown before goes. */
  function draw(orders) {
    shown = [];
    drawPage(orders);
  }

  /** A page after those shown, as its `next` action leads. */
  async function loadMore() {
    const ticket = latest;
    try {
      const page = await perform(next);
      if (ticket === latest) drawPage(page);
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  function drawPage(orders) {
    error.textContent = "";
    for (const name of ["sort", "layout", "status"]) offer(controls.elements[name], orders.choices[name]);
    newOrder.offer(orders.choices.currencies);
    shown = shown.concat(orders.items);
    next = orders.next;
    moreButton.hidden = !next;
    summary.textContent = (shown.length === 1 ? "1 order" : `${shown.length} orders`) + (next ? " so far" : "");
    list.className = `order-list ${orders.layout}`;
    if (shown.length === 0) return fill(list, h("li", { class: "empty" }, "No orders here."));
    fill(list, shown.map((item) => h("li", { class: "order-item", "data-order": item.id },
      h("a", { href: `#/orders/${item.id}`, class: "order-name" }, item.name),
      h("span", { class: `status ${item.status ?? ""}` }, item.statusLabel),
      h("span", { class: "total" }, item.total),
      item.date !== undefined && h("time", { datetime: item.createdAt }, item.date),
      item.itemCount !== undefined && h("span", { class: "pieces" }, item.itemCount === 1 ? "1 piece" : `${item.itemCount} pieces`),
      item.actions && actionButtons(item.actions, () => {}, error))));
    showConnection(context.connection);
  }

  const newOrder = newOrderForm(context);
  const note = offlineNote();
  const element = h("section", { class: "orders", "aria-labelledby": "orders-title" },
    h("h1", { id: "orders-title", tabindex: "-1" }, "Orders"),
    controls, summary, note, error, list, moreButton, newOrder.element);
  const showConnection = needingTheServer(element, note);

  return {
    title: "Orders",
    topics: ["orders"],
    element,
    connectionChanged: showConnection,
    receive(name, data) {
      if (name !== "orders") return;
      // The stream carries the default view; other choices are asked for anew.
      if (parameters().toString() === "") { latest++; inFlight?.abort(); draw(data); } else refresh();
    },
    leave() { clearTimeout(searchTimer); inFlight?.abort(); },
  };
}

/** The form for a new order; its currencies come with the first list drawn. */
function newOrderForm(context) {
  const error = h("p", { class: "error", id: "new-order-error", role: "alert" });
  const lines = h("div", { class: "lines" });
  const currency = h("select", { name: "currency" });
  const minorUnits = new Map();   // currency code → minor units in one unit

  function addLine() {
    const index = lines.children.length;
    lines.append(h("fieldset", { class: "line" },
      h("legend", { class: "visually-hidden" }, `Item ${index + 1}`),
      h("label", {}, "Item", h("input", { name: "title", autocomplete: "off" })),
      h("label", {}, "Quantity", h("input", { name: "quantity", type: "number", min: 1, max: 1000, value: 1 })),
      h("label", {}, "Unit price", h("input", { name: "price", type: "number", min: 0, step: "0.01", inputmode: "decimal" }))));
  }

  async function submit(event) {
    event.preventDefault();
    error.textContent = "";
    const form = event.target;
    const { name, currency } = fields(form);
    // The price is typed in the currency's unit; the API counts its minor unit.
    const perUnit = minorUnits.get(currency);
    const items = [...lines.children].map((line) => {
      const value = (field) => line.querySelector(`[name=${field}]`).value.trim();
      return { title: value("title"), quantity: Number(value("quantity")), priceCents: Math.round(Number(value("price")) * perUnit) };
    }).filter((item, index) => index === 0 || item.title);
    try {
      const order = await call("POST", "/api/orders", { name, currency, items });
      context.navigate(`#/orders/${order.id}`);
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  addLine();
  // Ready once the currencies to choose from came with the list.
  const placeButton = h("button", { type: "submit", disabled: true, "data-needs-server": "not-ready" }, "Place order");
  return {
    element: h("details", { class: "new-order" },
      h("summary", {}, "New order"),
      h("form", { id: "new-order", onsubmit: submit, novalidate: true, "aria-describedby": "new-order-error" },
        h("label", {}, "Name", h("input", { name: "name", autocomplete: "off" })),
        h("label", {}, "Currency", currency),
        lines,
        h("button", { type: "button", class: "quiet", onclick: addLine }, "Add item"),
        error,
        placeButton)),
    /** The currencies to choose from; until they come, nothing can be placed. */
    offer(currencies) {
      for (const { code, minorUnits: perUnit } of currencies) minorUnits.set(code, perUnit);
      offer(currency, currencies.map(({ code }) => ({ value: code, label: code })));
      placeButton.dataset.needsServer = "";
      placeButton.disabled = context.connection === "offline";
    },
  };
}

export function orderScreen(context, id) {
  const body = h("div", { class: "order" });
  const title = h("h1", { id: "order-title", tabindex: "-1" }, "Order");
  const error = h("p", { class: "error", role: "alert" });

  function draw(order) {
    if (order.deleted) {
      title.textContent = "Order deleted";
      return fill(body, h("p", {}, "This order was deleted. ", h("a", { href: "#/orders" }, "Back to orders")));
    }
    title.textContent = order.name;
    fill(body,
      h("dl", { class: "facts" },
        h("dt", {}, "Status"), h("dd", { class: "status", "data-status": order.status }, order.statusLabel),
        h("dt", {}, "Total"), h("dd", {}, order.total),
        h("dt", {}, "Placed"), h("dd", {}, h("time", { datetime: order.createdAt }, order.date)),
        h("dt", {}, "Pieces"), h("dd", {}, order.itemCount)),
      h("table", { class: "lines" },
        h("caption", { class: "visually-hidden" }, "Items"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Item"), h("th", { scope: "col" }, "Qty"),
          h("th", { scope: "col" }, "Price"), h("th", { scope: "col" }, "Total"))),
        h("tbody", {}, order.lines.map((line) => h("tr", {},
          h("td", {}, line.title), h("td", {}, line.quantity), h("td", {}, line.unitPrice), h("td", {}, line.lineTotal))))),
      actionButtons(order.actions, draw, error),
      h("button", { type: "button", class: "quiet danger", "data-needs-server": "", onclick: remove }, "Delete order"));
    showConnection(context.connection);
  }

  async function remove() {
    if (!confirm("Delete this order?")) return;
    try {
      await call("DELETE", `/api/orders/${encodeURIComponent(id)}`);
      context.navigate("#/orders");
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  const note = offlineNote();
  const element = h("section", { class: "order-screen", "aria-labelledby": "order-title" },
    h("a", { class: "back", href: "#/orders" }, "← Orders"), title, note, error, body);
  const showConnection = needingTheServer(element, note);

  return {
    title: "Order",
    topics: [`order:${id}`],
    element,
    connectionChanged: showConnection,
    receive(name, data) {
      if (name !== "order" || data.id !== id) return;
      this.title = data.deleted ? "Order deleted" : data.name;
      draw(data);
    },
  };
}
