// Builds elements from data. Text always goes in as text (never as HTML), so
// a message or an order name cannot inject markup.

/** `h("a", {href: "#/chats", class: "item"}, "Chats", child)`: an element. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces everything inside `element` with `children`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A form's fields as an object of trimmed strings. */
export function fields(form) {
  const values = {};
  for (const [name, value] of new FormData(form)) values[name] = String(value).trim();
  return values;
}
