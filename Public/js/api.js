// Talks to Tailor's JSON API. The session cookie authenticates every call.

/** An error answer: its status and the server's `{"error": {code, message}}`. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Sends one request and returns the decoded JSON body (null for 204).
 * `signal` lets a newer request cancel an older one.
 */
export async function call(method, href, body, { signal } = {}) {
  const options = { method, headers: { Accept: "application/json" }, signal, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(href, options);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new APIError(0, "offline", "The server cannot be reached. Check the connection and try again.");
  }
  if (response.status === 204) return null;
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

/** Runs an action of a view model: `{method, href, body?}`. */
export function perform(action) {
  return call(action.method, action.href, action.body);
}
