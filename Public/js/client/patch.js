// RFC 6902 JSON Patch, the three operations the server sends (add, remove,
// replace), with RFC 6901 pointers. A patch that does not fit the document
// throws, and the caller starts over from whole view models. The document
// patched stays as it was: only the containers on a changed path are copied,
// the rest is shared, so a patch costs its path, not the view model's size.

/** The result of applying `operations` in order to `document`, which is left unchanged. */
export function applyPatch(document, operations) {
  const copies = new Set();   // containers this patch made, changed in place
  for (const operation of operations) document = applyOperation(document, operation, copies);
  return document;
}

function applyOperation(document, { op, path, value }, copies) {
  if (path === "") {
    if (op === "remove") throw new Error("cannot remove the whole document");
    return value;
  }
  const tokens = path.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = tokens.pop();
  const root = copied(document, path, copies);
  let parent = root;
  for (const token of tokens) {
    const key = Array.isArray(parent) ? arrayIndex(parent, token, false) : (own(parent, token), token);
    parent = parent[key] = copied(parent[key], path, copies);
  }
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, op === "add");
    if (op === "add") parent.splice(index, 0, value);
    else if (op === "remove") parent.splice(index, 1);
    else if (op === "replace") parent[index] = value;
    else throw new Error(`unknown operation ${op}`);
  } else {
    if (op === "add") parent[last] = value;
    else if (op === "remove") { own(parent, last); delete parent[last]; }
    else if (op === "replace") { own(parent, last); parent[last] = value; }
    else throw new Error(`unknown operation ${op}`);
  }
  return root;
}

/** A container of this patch's own to change: `container` itself once copied. */
function copied(container, path, copies) {
  if (container === null || typeof container !== "object") throw new Error(`no container at ${path}`);
  if (copies.has(container)) return container;
  const copy = Array.isArray(container) ? container.slice() : { ...container };
  copies.add(copy);
  return copy;
}

function own(object, key) {
  if (!Object.prototype.hasOwnProperty.call(object, key)) throw new Error(`no member ${key}`);
  return object[key];
}

/** An index into `array`; `-` and the length itself only where an item may be added. */
function arrayIndex(array, token, adding) {
  if (token === "-" && adding) return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`bad index ${token}`);
  const index = Number(token);
  if (index > array.length || (index === array.length && !adding)) throw new Error(`index ${token} past the end`);
  return index;
}
