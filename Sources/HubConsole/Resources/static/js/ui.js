// DOM helpers. Data only ever reaches the page through text nodes, textContent and attributes
// set one by one — never parsed as HTML — so nothing from the API can become markup.

import { formatAmount } from "./money.js";

/** el("a", {href: "/x", class: "y"}, "text", child…) */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Shows an API error (or any error) as the problem's title and detail at the top of the page. */
export function showProblem(error) {
  const box = $("#problem");
  if (!box) return;
  $(".problem-title", box).textContent = error.title || "Something went wrong";
  $(".problem-detail", box).textContent = error.detail || error.message || String(error);
  box.hidden = false;
  box.scrollIntoView({ block: "nearest" });
}

export function hideProblem() {
  const box = $("#problem");
  if (box) box.hidden = true;
}

export function notice(text) {
  // One notice at a time: the newest replaces the last.
  document.querySelectorAll(".notice").forEach((old) => old.remove());
  const box = el("p", { class: "notice", role: "status" }, text);
  $("#main").insertBefore(box, $("#problem").nextSibling);
  setTimeout(() => box.remove(), 6000);
}

/** Runs an async action, showing its error as a problem. */
export async function guarded(action) {
  hideProblem();
  try {
    return await action();
  } catch (error) {
    showProblem(error);
    return undefined;
  }
}

/**
 * Asks before an action: `facts` are [label, value] pairs shown in the dialog. Resolves true
 * when the user confirms.
 */
export function confirmAction(text, facts, confirmLabel = "Confirm") {
  const dialog = $("#confirm");
  $("#confirm-text").textContent = text;
  const list = clear($("#confirm-facts"));
  for (const [label, value] of facts) list.append(el("dt", {}, label), el("dd", {}, value));
  $("#confirm-ok").textContent = confirmLabel;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
  });
}

export function formatTime(text) {
  if (!text) return "";
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return String(text);
  return date.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

const GOOD = new Set(["ok", "running", "open", "paid", "posted", "succeeded", "success", "active", "delivered", "live"]);
const BAD = new Set(["down", "failed", "failure", "error", "voided", "expired", "disabled", "revoked", "closed"]);

export function badge(value) {
  const text = String(value ?? "");
  const tone = GOOD.has(text) ? "good" : BAD.has(text) ? "bad" : "neutral";
  return el("span", { class: `badge ${tone}` }, text);
}

/** The value at a dotted key path (`payee.display_name`) of an object. */
export function valueAt(object, path) {
  let value = object;
  for (const part of String(path).split(".")) {
    if (value === null || value === undefined) return undefined;
    value = value[part];
  }
  return value;
}

/** A short id for tables (the full one in the title attribute). */
export function shortID(id) {
  const text = String(id ?? "");
  return el("span", { class: "mono", title: text }, text.length > 13 ? `${text.slice(0, 8)}…${text.slice(-4)}` : text);
}

/**
 * A table from rows and columns: {title, value(row) → Node|string, class?}. On a phone each row
 * becomes a card (CSS), labelled by the data-label of each cell.
 */
export function table(rows, columns, { empty = "Nothing yet.", onRow } = {}) {
  if (rows.length === 0) return el("p", { class: "hint" }, empty);
  const head = el("thead", {}, el("tr", {}, columns.map((column) => el("th", { scope: "col" }, column.title))));
  const body = el("tbody");
  for (const row of rows) {
    const cells = columns.map((column) => el("td", { "data-label": column.title, class: column.class }, column.value(row)));
    const tr = el("tr", {}, cells);
    if (onRow) {
      tr.classList.add("clickable");
      tr.tabIndex = 0;
      tr.addEventListener("click", (event) => {
        if (!event.target.closest("a, button")) onRow(row);
      });
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter") onRow(row);
      });
    }
    body.append(tr);
  }
  return el("table", {}, head, body);
}

/** A definition list of [label, value] pairs. */
export function facts(list, pairs) {
  clear(list);
  for (const [label, value] of pairs) list.append(el("dt", {}, label), el("dd", {}, value ?? ""));
  return list;
}

/** Assets by code, for the scale of amounts; loaded once per page. */
let assetsPromise = null;
export function assetScales(api) {
  assetsPromise ??= api("/v1/assets").then((page) => new Map(page.data.map((asset) => [asset.code, asset.scale])));
  return assetsPromise;
}

export function amountText(minor, asset, scales) {
  const scale = scales.get(asset);
  return scale === undefined ? `${minor} (minor units)` : `${formatAmount(minor, scale)} ${asset}`;
}

/** The form's fields as an object of trimmed strings. */
export function formValues(form) {
  const values = {};
  for (const [name, value] of new FormData(form).entries()) values[name] = typeof value === "string" ? value.trim() : value;
  return values;
}

/**
 * Sends an IdempotentAction. When the answer is not definite (the network failed, the server
 * erred, or the same key is still being processed) it offers to retry with the same key, which
 * the hub replays instead of applying twice; a definite refusal (4xx) is thrown to the caller.
 */
export async function perform(action) {
  for (;;) {
    try {
      return await action.run();
    } catch (error) {
      const definite = typeof error.status === "number" && error.status < 500 && error.status !== 409;
      if (definite) throw error;
      const retry = await confirmAction(
        "The hub gave no definite answer. Retry the same action? It carries the same Idempotency-Key, so it cannot happen twice.",
        [
          ["Error", error.title ? `${error.title}: ${error.detail}` : String(error.message || error)],
          ["Idempotency-Key", action.key],
        ],
        "Retry"
      );
      if (!retry) throw error;
    }
  }
}
