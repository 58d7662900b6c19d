// Talks to Tailor's JSON API. The session cookie authenticates every call.

/** An error answer: its status and the server's `{"error": {code, message}}`; status 0 when the server was not reached. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The error of a request that never reached the server. */
export function unreachable() {
  return new APIError(0, "offline", "The server cannot be reached. Check the connection and try again.");
}

/**
 * Sends one request and returns the decoded JSON body (null for 204).
 * `signal` lets a newer request cancel an older one.
 */
export async function call(method, href, body, { signal } = {}) {
  // Nothing of a person's is left in the browser's HTTP cache for the next one who signs in here.
  const options = { method, headers: { Accept: "application/json" }, signal, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await reach(href, options);
  if (response.status === 204) return null;
  return decoded(response);
}

/**
 * Reads a view model again: `etag` is the version held, which the server
 * answers with 304 while it is current; `position` is the last feed position
 * seen, which a server behind it waits for before answering. Gives
 * `{viewModel, etag}`, with `viewModel` null when the one held is current.
 */
export async function revalidate(href, { etag, position } = {}) {
  const headers = { Accept: "application/json" };
  if (etag) headers["If-None-Match"] = etag;
  if (position != null) headers["Tailor-Position"] = String(position);
  // The store is the cache: the browser's own would answer our If-None-Match itself.
  const response = await reach(href, { headers, credentials: "same-origin", cache: "no-store" });
  if (response.status === 304) return { viewModel: null, etag };
  return { viewModel: await decoded(response), etag: response.headers.get("ETag") };
}

/** Runs an action of a view model: `{method, href, body?}`. */
export function perform(action) {
  return call(action.method, action.href, action.body);
}

async function reach(href, options) {
  try {
    return await fetch(href, options);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw unreachable();
  }
}

async function decoded(response) {
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* not JSON: handled below */ }
  if (!response.ok) {
    const error = json && json.error;
    throw new APIError(response.status, error ? error.code : "http_" + response.status,
                       error ? error.message : `The server answered ${response.status}.`);
  }
  return json;
}
