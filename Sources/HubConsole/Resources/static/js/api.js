// The REST API as the console uses it: the bearer token, JSON, problems, idempotency keys and
// the live event stream.
//
// The token is kept in sessionStorage (per tab, gone when the tab closes); HubConsole.swift says
// why not a cookie. A 401 tries the refresh token once, then sends the user to the sign-in page.

const TOKEN = "hubd.access_token";
const REFRESH = "hubd.refresh_token";
const USER = "hubd.user";

export function signedIn() {
  return sessionStorage.getItem(TOKEN) !== null;
}

export function currentUser() {
  try {
    return JSON.parse(sessionStorage.getItem(USER) || "null");
  } catch {
    return null;
  }
}

/** Keeps the signed-in user (with roles) for this tab. */
export function rememberUser(user) {
  sessionStorage.setItem(USER, JSON.stringify(user));
}

export function storeSession(session) {
  sessionStorage.setItem(TOKEN, session.access_token);
  sessionStorage.setItem(REFRESH, session.refresh_token);
  if (session.user) sessionStorage.setItem(USER, JSON.stringify(session.user));
}

/** Ends the session on the server (the refresh token) and in this tab. */
export async function signOut() {
  const refreshToken = sessionStorage.getItem(REFRESH);
  try {
    if (refreshToken) await api("/v1/auth/logout", { method: "POST", body: { refresh_token: refreshToken } });
  } catch {
    // The session ends in this tab either way.
  }
  forgetSession();
}

export function forgetSession() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(REFRESH);
  sessionStorage.removeItem(USER);
}

/** An error answer of the API: the problem's title and detail, ready to show. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(`${problem.title || status}: ${problem.detail || ""}`);
    this.status = status;
    this.title = problem.title || `HTTP ${status}`;
    this.detail = problem.detail || "";
    this.code = problem.code || "";
    this.field = problem.field || "";
  }
}

async function problemOf(response) {
  const type = response.headers.get("content-type") || "";
  if (type.includes("json")) {
    try {
      return await response.json();
    } catch {
      // fall through to a problem made from the status
    }
  }
  return { title: response.statusText || `HTTP ${response.status}`, detail: "The server's answer was not a problem document." };
}

let refreshing = null;

/** Exchanges the refresh token once for a new pair; concurrent callers share one exchange. */
async function refreshSession() {
  const refreshToken = sessionStorage.getItem(REFRESH);
  if (!refreshToken) return false;
  refreshing ??= fetch("/v1/auth/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refresh_token: refreshToken }),
  })
    .then(async (response) => {
      if (!response.ok) return false;
      storeSession(await response.json());
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

function goToSignIn() {
  forgetSession();
  const here = location.pathname + location.search;
  location.assign("/admin/login?next=" + encodeURIComponent(here));
}

/**
 * Calls the API. `body` (an object) is sent as JSON; `idempotencyKey` sets the header. Answers
 * the parsed JSON (or null for 204); throws ApiError with the problem otherwise.
 */
export async function api(path, { method = "GET", body, idempotencyKey, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  const response = await signedInFetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (response.status === 204) return null;
  return response.json();
}

/** The bytes at `path` (an image the API serves) as a Blob; throws ApiError like `api`. */
export async function apiBlob(path) {
  return (await signedInFetch(path, { method: "GET", headers: {} })).blob();
}

/**
 * `fetch` with the session's bearer token, refreshing the session once on 401 (or going to the
 * sign-in page); answers the response when it is a success, throws ApiError otherwise.
 */
async function signedInFetch(path, init, retried = false) {
  const token = sessionStorage.getItem(TOKEN);
  const headers = { ...init.headers };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401 && token && !retried && !path.startsWith("/v1/auth/")) {
    if (await refreshSession()) return signedInFetch(path, init, true);
    goToSignIn();
  }
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  return response;
}

/** Every page of a paginated list, up to `max` items. */
export async function allPages(path, max = 500) {
  const items = [];
  let cursor = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page = await api(cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor && items.length < max);
  return items;
}

/**
 * A money-moving (or otherwise creating) action: one fresh Idempotency-Key per confirmed action,
 * reused when the same action is retried after a network failure, so a retry can never move the
 * money twice. Call `run()` to send (again); `reset()` after a definite answer.
 */
export class IdempotentAction {
  constructor(path, body) {
    this.path = path;
    this.body = body;
    this.key = crypto.randomUUID();
  }

  run() {
    return api(this.path, { method: "POST", body: this.body, idempotencyKey: this.key });
  }
}

/**
 * Reads the Server-Sent Events stream with fetch (EventSource cannot send an Authorization
 * header) and calls `onEvent(envelope)` for each event. Reconnects after errors with
 * `Last-Event-ID`, so no event is missed or repeated. Answers a function that stops it.
 */
export function streamEvents(query, onEvent, onStatus) {
  const controller = new AbortController();
  let lastID = null;
  let stopped = false;

  async function connect() {
    while (!stopped) {
      try {
        const headers = { Accept: "text/event-stream", Authorization: `Bearer ${sessionStorage.getItem(TOKEN)}` };
        if (lastID !== null) headers["Last-Event-ID"] = lastID;
        const response = await fetch(`/v1/events/stream${query}`, { headers, signal: controller.signal });
        if (response.status === 401 && (await refreshSession())) continue;
        if (!response.ok) throw new ApiError(response.status, await problemOf(response));
        onStatus("live", null);
        await readMessages(response.body, (message) => {
          if (message.id !== undefined) lastID = message.id;
          if (message.data) onEvent(JSON.parse(message.data));
        });
        if (!stopped) onStatus("reconnecting", null);
      } catch (error) {
        if (stopped) return;
        onStatus("reconnecting", error instanceof ApiError ? error : null);
        if (error instanceof ApiError && error.status < 500) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }

  connect();
  return () => {
    stopped = true;
    controller.abort();
  };
}

/** Splits an SSE byte stream into messages ({id, event, data}) per the HTML spec's rules. */
async function readMessages(body, onMessage) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let message = {};
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (message.data !== undefined || message.id !== undefined) onMessage(message);
        message = {};
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") message.data = message.data === undefined ? value : message.data + "\n" + value;
      else if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
    }
  }
}
