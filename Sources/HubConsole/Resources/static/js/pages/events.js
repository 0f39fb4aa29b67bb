import { api, streamEvents } from "../api.js";
import { $, badge, el, formatTime, formValues, guarded, showProblem } from "../ui.js";

const KEEP = 200;
let stop = null;
let paused = false;
let buffered = [];

/** The live event feed: the last 50 events, then the SSE stream, newest on top. */
export default async function events() {
  const form = $("#events-form");
  const type = new URLSearchParams(location.search).get("type");
  if (type) form.elements.type.value = type;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(form);
    history.replaceState(null, "", values.type ? `?type=${encodeURIComponent(values.type)}` : location.pathname);
    guarded(start);
  });
  $("#events-pause").addEventListener("click", () => {
    paused = !paused;
    $("#events-pause").textContent = paused ? "Resume" : "Pause";
    if (!paused) {
      for (const event of buffered) add(event);
      buffered = [];
    }
  });
  window.addEventListener("pagehide", () => stop?.());
  await guarded(start);
}

async function start() {
  stop?.();
  const tbody = body();
  tbody.replaceChildren();
  const type = formValues($("#events-form")).type;
  const filter = type ? `type=${encodeURIComponent(type)}` : "";
  const recent = await newest(50, filter);
  for (const event of recent) add(event);
  const after = recent.length ? recent[recent.length - 1].sequence : 0;
  const query = new URLSearchParams();
  if (type) query.set("type", type);
  // Resume right after what is shown, so nothing between the page and the stream is lost.
  query.set("after", String(after));
  stop = streamEvents(
    query.toString() ? `?${query}` : "",
    (event) => (paused ? buffered.push(event) : add(event)),
    (status, error) => {
      $("#events-status").replaceChildren(badge(status));
      if (error) showProblem(error);
    }
  );
}

/**
 * The newest `count` events. The log pages oldest first, so the end is found by probing `after=`
 * with `limit=1` (exponential, then binary search): about 2·log2(sequence) tiny requests
 * instead of reading the whole log.
 */
async function newest(count, filter) {
  const extra = filter ? `&${filter}` : "";
  const anyAfter = async (sequence) => (await api(`/v1/events?limit=1&after=${sequence}${extra}`)).data.length > 0;
  if (!(await anyAfter(0))) return [];
  let low = 0;
  let high = 1;
  while (await anyAfter(high)) {
    low = high;
    high *= 2;
  }
  // Events exist after `low` and none after `high`: the last one is in (low, high].
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await anyAfter(middle)) low = middle;
    else high = middle;
  }
  const page = await api(`/v1/events?limit=${count}&after=${Math.max(0, high - count)}${extra}`);
  return page.data;
}

function body() {
  let tbody = $("#events-table tbody");
  if (!tbody) {
    tbody = el("tbody");
    $("#events-table").append(
      el(
        "table",
        {},
        el("thead", {}, el("tr", {}, ["#", "Time", "Type", "Subject", "Data"].map((title) => el("th", { scope: "col" }, title)))),
        tbody
      )
    );
  }
  return tbody;
}

function add(event) {
  const data = JSON.stringify(event.data);
  const row = el(
    "tr",
    { class: "fresh", dataset: { sequence: String(event.sequence), type: event.type } },
    el("td", { "data-label": "#" }, String(event.sequence)),
    el("td", { "data-label": "Time" }, formatTime(event.time)),
    el("td", { "data-label": "Type" }, el("strong", {}, event.type)),
    el("td", { "data-label": "Subject", class: "mono" }, event.subject ?? ""),
    el("td", { "data-label": "Data", class: "mono data", title: data }, data.length > 160 ? data.slice(0, 160) + "…" : data)
  );
  const tbody = body();
  tbody.prepend(row);
  while (tbody.children.length > KEEP) tbody.lastElementChild.remove();
}
