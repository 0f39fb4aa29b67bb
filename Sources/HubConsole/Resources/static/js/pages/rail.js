import { api, apiBlob } from "../api.js";
import { $, amountText, assetScales, badge, clear, el, facts, formatTime, guarded, table, valueAt } from "../ui.js";

/**
 * Any rail's panel, drawn from the AdminPanel it declares (GET /v1/plugins): its summary, links,
 * and lists backed by its own GET endpoints under /v1/rails/<id>, with typed columns and a
 * detail view. See docs/PLUGINS.md, "The admin panel".
 */
export default async function rail() {
  const id = document.body.dataset.rail;
  await guarded(async () => {
    const [plugins, scales] = await Promise.all([api("/v1/plugins"), assetScales(api)]);
    const plugin = plugins.data.find((p) => p.id === id);
    const panel = plugin?.admin_panel;
    if (!panel) throw { title: "No panel", detail: `The rail ${id} is not running or has no panel.` };
    const prefix = plugin.route_prefix;
    $("#page-title").textContent = panel.title;
    $("#rail-summary").textContent = panel.summary;
    const links = clear($("#rail-links"));
    for (const link of panel.links) links.append(el("li", {}, `${link.title}: `, el("code", {}, prefix + link.path)));
    const container = clear($("#rail-lists"));
    for (const list of panel.lists ?? []) {
      const holder = el("div", { class: "table-wrap" });
      const more = el("button", { type: "button", class: "secondary", hidden: true }, "Load more");
      container.append(el("section", { class: "card", id: `list-${list.id}` }, el("h2", {}, list.title), holder, more));
      const state = { rows: [], cursor: null };
      const load = async () => {
        const separator = list.path.includes("?") ? "&" : "?";
        const answer = await api(prefix + list.path + (state.cursor ? `${separator}cursor=${encodeURIComponent(state.cursor)}` : ""));
        const rows = Array.isArray(answer) ? answer : answer.data ?? [];
        state.rows.push(...rows);
        state.cursor = Array.isArray(answer) ? null : answer.next_cursor ?? null;
        more.hidden = !state.cursor;
        const open = list.detail ? (row) => guarded(() => showDetail(prefix, list, row, scales)) : undefined;
        clear(holder).append(
          table(
            state.rows,
            list.columns.map((column) => ({
              title: column.title,
              class: column.kind === "amount" ? "num" : undefined,
              value: (row) => cell(column, row, scales, open, prefix),
            })),
            { empty: "Nothing yet.", onRow: open }
          )
        );
      };
      more.addEventListener("click", () => guarded(load));
      await guarded(load);
    }
  });
}

/** One value formatted by its column kind. Text only ever goes through textContent. */
function cell(column, row, scales, open, prefix) {
  const value = valueAt(row, column.key);
  if (value === undefined || value === null) return "—";
  switch (column.kind) {
    case "amount":
      return amountText(String(value), valueAt(row, column.asset_key || "asset"), scales);
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
      return images(column, value, prefix);
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

/** `/sessions/{id}` with each `{key.path}` replaced by the row's URL-encoded value. */
function fill(template, row) {
  return template.replace(/\{([A-Za-z0-9_.]+)\}/g, (_, path) => encodeURIComponent(String(valueAt(row, path) ?? "")));
}

async function showDetail(prefix, list, row, scales) {
  const detail = await api(prefix + fill(list.detail.path, row));
  const section = $("#rail-detail");
  section.hidden = false;
  $("#rail-detail-title").textContent = list.title;
  facts(
    $("#rail-detail-facts"),
    list.detail.fields.map((field) => [field.title, cell(field, detail, scales, undefined, prefix)])
  );
  $("#rail-detail-json").textContent = JSON.stringify(detail, null, 2);
  section.scrollIntoView({ block: "nearest" });
}
