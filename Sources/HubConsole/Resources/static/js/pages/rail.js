import { api, apiBlob, IdempotentAction } from "../api.js";
import { parseAmount } from "../money.js";
import {
  $, amountText, assetScales, badge, clear, confirmAction, el, facts, formatTime, formValues, guarded, notice, perform, table, valueAt,
} from "../ui.js";

/**
 * Any rail's panel, drawn from the AdminPanel it declares (GET /v1/plugins): its summary, links,
 * and lists backed by its own GET endpoints under /v1/rails/<id>, with typed columns and a
 * detail view; a detail view's related lists (paths templated from the detail) and actions
 * (forms that POST to the rail's routes, confirmed, each submission with a fresh
 * Idempotency-Key). See docs/PLUGINS.md, "The admin panel".
 */
export default async function rail() {
  const id = document.body.dataset.rail;
  await guarded(async () => {
    const [plugins, scales] = await Promise.all([api("/v1/plugins"), assetScales(api)]);
    const plugin = plugins.data.find((p) => p.id === id);
    const panel = plugin?.admin_panel;
    if (!panel) throw { title: "No panel", detail: `The rail ${id} is not running or has no panel.` };
    const context = { prefix: plugin.route_prefix, scales };
    $("#page-title").textContent = panel.title;
    $("#rail-summary").textContent = panel.summary;
    const links = clear($("#rail-links"));
    for (const link of panel.links) links.append(el("li", {}, `${link.title}: `, el("code", {}, context.prefix + link.path)));
    const container = clear($("#rail-lists"));
    for (const list of panel.lists ?? []) {
      const section = el("section", { class: "card", id: `list-${list.id}` }, el("h2", {}, list.title));
      container.append(section);
      let view;
      const open = list.detail ? (row) => guarded(() => showDetail(list, row, context, () => view.reload())) : undefined;
      view = listView(section, list, list.path, context, { open });
      await guarded(view.reload);
    }
  });
}

/**
 * A list drawn into `section` from the rail's `path` (already filled), with "Load more" while
 * the answer has a next cursor. In a related list, `parent` is the detail object the list
 * belongs to: an amount's asset missing from a row is looked up there.
 */
function listView(section, list, path, context, { open, parent } = {}) {
  const holder = el("div", { class: "table-wrap" });
  const more = el("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  section.append(holder, more);
  const state = { rows: [], cursor: null };
  const load = async (fresh) => {
    if (fresh) Object.assign(state, { rows: [], cursor: null });
    const separator = path.includes("?") ? "&" : "?";
    const answer = await api(context.prefix + path + (state.cursor ? `${separator}cursor=${encodeURIComponent(state.cursor)}` : ""));
    const rows = Array.isArray(answer) ? answer : answer.data ?? [];
    state.rows.push(...rows);
    state.cursor = Array.isArray(answer) ? null : answer.next_cursor ?? null;
    more.hidden = !state.cursor;
    clear(holder).append(
      table(
        state.rows,
        list.columns.map((column) => ({
          title: column.title,
          class: column.kind === "amount" ? "num" : undefined,
          value: (row) => cell(column, row, context, open, parent),
        })),
        { empty: "Nothing yet.", onRow: open }
      )
    );
  };
  more.addEventListener("click", () => guarded(() => load(false)));
  return { reload: () => load(true) };
}

/** One value formatted by its column kind. Text only ever goes through textContent. */
function cell(column, row, context, open, parent) {
  const value = valueAt(row, column.key);
  if (value === undefined || value === null) return "—";
  switch (column.kind) {
    case "amount":
      return amountText(String(value), lookup(column.asset_key || "asset", row, parent), context.scales);
    case "time":
      return formatTime(value);
    case "status":
      return badge(value);
    case "link": {
      const text = String(value);
      if (column.link && column.link.startsWith("/admin/")) {
        return el("a", { href: column.link.replaceAll("{value}", encodeURIComponent(text)) }, text);
      }
      if (open) return el("a", { href: "#", onclick: (event) => (event.preventDefault(), open(row)) }, text);
      return el("span", { class: "mono" }, text);
    }
    case "images":
      return images(column, value, context.prefix);
    default:
      return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

/**
 * Thumbnails of the images whose ids `value` holds (one or a list), each read with the session's
 * token from the rail's path `column.link` (`{value}` replaced by the id) and shown from a blob:
 * URL; an image that cannot be read shows its id instead.
 */
function images(column, value, prefix) {
  const ids = (Array.isArray(value) ? value : [value]).map(String);
  if (ids.length === 0) return "—";
  const strip = el("div", { class: "thumbnails" });
  for (const id of ids) {
    const path = prefix + (column.link ?? "/{value}").replaceAll("{value}", encodeURIComponent(id));
    const image = el("img", { alt: id, title: id, class: "thumbnail" });
    strip.append(image);
    apiBlob(path)
      .then((blob) => (image.src = URL.createObjectURL(blob)))
      .catch(() => image.replaceWith(el("span", { class: "mono" }, id)));
  }
  return strip;
}

/** The value at `path` of the row, or else of the detail object the row belongs to. */
function lookup(path, row, parent) {
  return valueAt(row, path) ?? (parent ? valueAt(parent, path) : undefined);
}

/** `/sessions/{id}` with each `{key.path}` replaced by the URL-encoded value of the row (or its parent). */
function fill(template, row, parent) {
  return template.replace(/\{([A-Za-z0-9_.]+)\}/g, (_, path) => {
    const value = String(lookup(path, row, parent) ?? "");
    // encodeURIComponent leaves dots alone, and URLs treat "..", "%2e%2e" alike: such a value
    // would climb out of the rail's prefix once the URL is resolved.
    if (/^\.+$/.test(value)) throw { title: "Unusable value", detail: `The value of {${path}} cannot be part of a path.` };
    return encodeURIComponent(value);
  });
}

/**
 * The detail view of a row: its fields, its actions (those its status allows), its related lists
 * and the whole JSON object. `changed` reloads the list the row came from, after an action.
 */
async function showDetail(list, row, context, changed) {
  const path = fill(list.detail.path, row);
  const section = $("#rail-detail");
  $("#rail-detail-title").textContent = list.title;
  $("#rail-subdetail").hidden = true;
  const draw = async () => {
    const detail = await api(context.prefix + path);
    facts(
      $("#rail-detail-facts"),
      list.detail.fields.map((field) => [field.title, cell(field, detail, context, undefined)])
    );
    $("#rail-detail-json").textContent = JSON.stringify(detail, null, 2);
    drawActions(list.detail.actions ?? [], detail, context, async () => {
      await draw();
      await guarded(changed);
    });
    const related = clear($("#rail-related"));
    const views = (list.detail.lists ?? []).map((sub) => {
      const holder = el("section", { class: "related", id: `related-${sub.id}` }, el("h3", {}, sub.title));
      related.append(holder);
      const open = sub.detail ? (subRow) => guarded(() => showRelated(sub, subRow, detail, context)) : undefined;
      return listView(holder, sub, fill(sub.path, detail), context, { open, parent: detail });
    });
    await Promise.all(views.map((view) => guarded(view.reload)));
  };
  $("#rail-detail-refresh").onclick = () => guarded(draw);
  await draw();
  section.hidden = false;
  section.scrollIntoView({ block: "nearest" });
}

/** A related list's row (a chain's transaction), below the related lists. */
async function showRelated(list, row, parent, context) {
  const detail = await api(context.prefix + fill(list.detail.path, row, parent));
  const section = $("#rail-subdetail");
  section.hidden = false;
  $("#rail-subdetail-title").textContent = list.title;
  facts(
    $("#rail-subdetail-facts"),
    list.detail.fields.map((field) => [field.title, cell(field, detail, context, undefined, parent)])
  );
  $("#rail-subdetail-json").textContent = JSON.stringify(detail, null, 2);
  section.scrollIntoView({ block: "nearest" });
}

/**
 * The detail's actions: a button for each one without fields, a form for each one with fields;
 * only those whose `statuses` include the detail's status (all when it names none).
 */
function drawActions(actions, detail, context, done) {
  const bar = clear($("#rail-actions"));
  const forms = clear($("#rail-action-forms"));
  for (const action of actions) {
    const status = String(valueAt(detail, action.status_key || "status") ?? "");
    if (action.statuses?.length && !action.statuses.includes(status)) continue;
    if (!action.fields?.length) {
      const run = () => guarded(() => submitAction(action, {}, [], detail, context, done));
      bar.append(el("button", { type: "button", class: "secondary", "data-action": action.id, onclick: run }, `${action.title}…`));
      continue;
    }
    const form = el(
      "form",
      { class: "action-form", id: `action-${action.id}`, "data-action": action.id, novalidate: true },
      el("h3", {}, action.title),
      el("div", { class: "form-grid" }, action.fields.map(input), el("button", { type: "submit" }, `Review ${action.title.toLowerCase()}…`))
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      guarded(() => submitForm(form, action, detail, context, done));
    });
    forms.append(form);
  }
}

function input(field) {
  const attributes = { name: field.name, required: field.required, autocomplete: "off" };
  if (field.kind === "address") Object.assign(attributes, { class: "mono", spellcheck: "false", placeholder: "0x…", size: 44 });
  if (field.kind === "amount") Object.assign(attributes, { inputmode: "decimal", placeholder: "12.50" });
  return el("label", {}, field.label, el("input", attributes));
}

/**
 * Reads the form into the JSON body: an amount typed as a decimal becomes a string of minor units
 * with the scale of the detail's asset (never a floating-point number); an address must look like
 * one (the rail checks the rest). Then confirms and sends.
 */
async function submitForm(form, action, detail, context, done) {
  for (const element of form.elements) element.removeAttribute?.("aria-invalid");
  const values = formValues(form);
  const body = {};
  const shown = [];
  const refuse = (field, title, message) => {
    form.elements[field.name]?.setAttribute("aria-invalid", "true");
    return { title, detail: message };
  };
  for (const field of action.fields) {
    const text = values[field.name] ?? "";
    if (text === "") {
      if (field.required) throw refuse(field, "Missing value", `${field.label} is required.`);
      continue;
    }
    if (field.kind === "amount") {
      const asset = valueAt(detail, field.asset_key || "asset");
      let minor;
      try {
        minor = parseAmount(text, context.scales.get(asset) ?? 0);
      } catch (error) {
        throw refuse(field, "Invalid amount", `${field.label}: ${error.message}`);
      }
      body[field.name] = minor;
      shown.push([field.label, amountText(minor, asset, context.scales)]);
    } else if (field.kind === "address") {
      if (!/^0x[0-9a-fA-F]{40}$/.test(text)) throw refuse(field, "Invalid address", `${field.label}: expected 0x and 40 hex digits.`);
      body[field.name] = text;
      shown.push([field.label, text]);
    } else {
      body[field.name] = text;
      shown.push([field.label, text]);
    }
  }
  await submitAction(action, body, shown, detail, context, done, form);
}

/**
 * Confirms, then POSTs with the console's one IdempotentAction (a fresh key per submission, the
 * same key on a retry of an answer that was not definite). A refusal is thrown to `guarded`, which
 * shows the rail's problem; the field it names is marked.
 */
async function submitAction(action, body, shown, detail, context, done, form) {
  const path = context.prefix + fill(action.path, detail);
  const ok = await confirmAction(action.confirmation, [...shown, ["Request", `POST ${path}`]], action.title);
  if (!ok) return;
  const request = new IdempotentAction(path, body);
  // A rail that deduplicates by a client id in the body gets the submission's key there too, so
  // a retry is one request to the rail as well as to the hub.
  if (action.id_field) body[action.id_field] = request.key;
  let answer;
  try {
    answer = await perform(request);
  } catch (error) {
    if (form && error.field) form.elements[error.field]?.setAttribute("aria-invalid", "true");
    throw error;
  }
  notice(`${action.title}: done${answer?.status ? ` (${answer.status})` : ""}.`);
  form?.reset();
  await done();
}
