// RFC 6902 JSON Patch, the three operations the server sends (add, remove,
// replace), with RFC 6901 pointers. A patch that does not fit the document
// throws, and the caller starts over from whole view models.

/** Applies `operations` in order to `document`, which it changes; returns the result. */
export function applyPatch(document, operations) {
  for (const operation of operations) document = applyOperation(document, operation);
  return document;
}

function applyOperation(document, { op, path, value }) {
  if (path === "") {
    if (op === "remove") throw new Error("cannot remove the whole document");
    return value;
  }
  const tokens = path.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = tokens.pop();
  let parent = document;
  for (const token of tokens) {
    parent = Array.isArray(parent) ? parent[arrayIndex(parent, token, false)] : own(parent, token);
    if (parent === null || typeof parent !== "object") throw new Error(`no container at ${path}`);
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
  return document;
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
