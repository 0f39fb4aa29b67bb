import { api, IdempotentAction } from "../api.js";
import { $, badge, clear, confirmAction, el, formatTime, formValues, guarded, notice, perform, shortID, table } from "../ui.js";

let selected = null;
let cursor = null;
let deliveries = [];

/** Webhook endpoints, the delivery attempts of one, and redelivery by hand. */
export default async function webhooks() {
  const form = $("#webhook-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => create(form));
  });
  $("#deliveries-more").addEventListener("click", () => guarded(() => loadDeliveries(false)));
  await guarded(render);
}

async function render() {
  const page = await api("/v1/webhooks");
  clear($("#webhooks-table")).append(
    table(
      page.data,
      [
        { title: "URL", value: (w) => el("span", { class: "mono" }, w.url) },
        { title: "Events", value: (w) => (w.event_types.length ? w.event_types.join(", ") : "all") },
        { title: "Enabled", value: (w) => badge(w.enabled ? "enabled" : "disabled") },
        { title: "Description", value: (w) => w.description },
        { title: "Created", value: (w) => formatTime(w.created_at) },
        {
          title: "",
          value: (w) => el("button", { type: "button", class: "secondary", onclick: () => guarded(() => select(w)) }, "Deliveries"),
        },
      ],
      { empty: "No webhook endpoints.", onRow: (w) => guarded(() => select(w)) }
    )
  );
}

async function select(endpoint) {
  selected = endpoint;
  $("#deliveries").hidden = false;
  $("#deliveries-endpoint").textContent = endpoint.url;
  await loadDeliveries(true);
  $("#deliveries").scrollIntoView({ block: "nearest" });
}

async function loadDeliveries(fresh) {
  if (fresh) {
    cursor = null;
    deliveries = [];
  }
  const query = new URLSearchParams({ limit: "50" });
  if (cursor) query.set("cursor", cursor);
  const page = await api(`/v1/webhooks/${encodeURIComponent(selected.id)}/deliveries?${query}`);
  deliveries.push(...page.data);
  cursor = page.next_cursor;
  $("#deliveries-more").hidden = !cursor;
  clear($("#deliveries-table")).append(
    table(
      deliveries,
      [
        { title: "Started", value: (d) => formatTime(d.started_at) },
        { title: "Event", value: (d) => `#${d.event_sequence} ${d.event_type}` },
        { title: "Attempt", value: (d) => `${d.attempt}${d.manual ? " (manual)" : ""}` },
        { title: "Outcome", value: (d) => badge(d.outcome) },
        { title: "Status", value: (d) => (d.response_status ? String(d.response_status) : "—") },
        { title: "Time", value: (d) => `${d.duration_ms} ms` },
        { title: "Error", value: (d) => d.error ?? "" },
        {
          title: "",
          value: (d) => el("button", { type: "button", class: "secondary", onclick: () => guarded(() => redeliver(d)) }, "Redeliver"),
        },
      ],
      { empty: "No delivery attempts yet." }
    )
  );
}

async function redeliver(delivery) {
  const ok = await confirmAction("Send this event to the endpoint again now?", [
    ["Endpoint", selected.url],
    ["Event", `#${delivery.event_sequence} ${delivery.event_type}`],
  ], "Redeliver");
  if (!ok) return;
  const attempt = await perform(
    new IdempotentAction(`/v1/webhooks/${encodeURIComponent(selected.id)}/redeliver`, { event_sequence: delivery.event_sequence })
  );
  notice(`Redelivered: ${attempt.outcome}${attempt.response_status ? ` (HTTP ${attempt.response_status})` : ""}.`);
  await loadDeliveries(true);
}

async function create(form) {
  const values = formValues(form);
  const body = { url: values.url, description: values.description };
  if (values.event_types) body.event_types = values.event_types.split(",").map((t) => t.trim()).filter(Boolean);
  const endpoint = await perform(new IdempotentAction("/v1/webhooks", body));
  const secret = $("#webhook-secret");
  secret.hidden = false;
  secret.replaceChildren("Signing secret (shown once): ", el("code", {}, endpoint.secret ?? ""));
  notice(`Endpoint ${shortID(endpoint.id).textContent} added.`);
  form.reset();
  await render();
}
