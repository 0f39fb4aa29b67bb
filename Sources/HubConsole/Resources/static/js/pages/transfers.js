import { api, IdempotentAction } from "../api.js";
import { isAdmin, isOrganiser, me } from "../roles.js";
import { parseAmount } from "../money.js";
import {
  $, amountText, assetScales, badge, clear, confirmAction, el, facts, formatTime, formValues, guarded, notice, perform, shortID, table,
} from "../ui.js";

let cursor = null;
let rows = [];
let scales = new Map();
let hubWide = false;

/**
 * Transfers of one account (the API lists per account) filtered by kind and rail, the detail of
 * one transfer with post/void for holds, and the form that moves money.
 */
export default async function transfers() {
  scales = (await guarded(() => assetScales(api))) ?? new Map();
  const filter = $("#filter-form");
  const params = new URLSearchParams(location.search);
  for (const name of ["account_id", "kind", "rail"]) if (params.get(name)) filter.elements[name].value = params.get(name);
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = Object.fromEntries(Object.entries(formValues(filter)).filter(([, value]) => value));
    history.replaceState(null, "", `?${new URLSearchParams(values)}`);
    guarded(() => load(true));
  });
  $("#transfers-more").addEventListener("click", () => guarded(() => load(false)));

  const form = $("#transfer-form");
  for (const code of [...scales.keys()].sort()) form.elements.asset.append(el("option", { value: code }, code));
  if (params.get("account_id")) form.elements.debit_account_id.value = params.get("account_id");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => submitTransfer(form));
  });

  // Without an account: admins and organisers see the hub-wide list (their assets, for an
  // organiser); a member sees their first wallet's transfers.
  const user = await me();
  hubWide = isAdmin(user) || isOrganiser(user);
  if (!params.get("account_id") && !hubWide) {
    const mine = await guarded(() => api("/v1/wallets/me"));
    const first = mine?.wallets?.[0]?.account?.id;
    if (first) filter.elements.account_id.value = first;
  }
  if (filter.elements.account_id.value || hubWide) await guarded(() => load(true));
  if (params.get("id")) await guarded(() => showTransfer(params.get("id")));
}

async function load(fresh) {
  const values = formValues($("#filter-form"));
  if (!values.account_id && !hubWide) return;
  if (fresh) {
    cursor = null;
    rows = [];
  }
  const query = new URLSearchParams({ limit: "100" });
  if (values.account_id) query.set("account_id", values.account_id);
  else if (values.rail) query.set("rail", values.rail);
  if (cursor) query.set("cursor", cursor);
  const page = await api(`/v1/ledger/transfers?${query}`);
  rows.push(...page.data);
  cursor = page.next_cursor;
  $("#transfers-more").hidden = !cursor;
  // Newest first on screen: one account's list pages oldest first, the hub-wide one newest first.
  const filtered = rows
    .filter((t) => !values.kind || t.kind === values.kind)
    .filter((t) => !values.rail || (t.ref?.rail ?? "") === values.rail);
  const shown = values.account_id ? filtered.slice().reverse() : filtered;
  clear($("#transfers-table")).append(
    table(
      shown,
      [
        { title: "Time", value: (t) => formatTime(t.timestamp) },
        { title: "Kind", value: (t) => badge(t.pending_state ? `${t.kind} (${t.pending_state})` : t.kind) },
        { title: "Direction", value: (t) => (t.debit_account_id === values.account_id ? "out" : "in") },
        { title: "Amount", value: (t) => amountText(t.amount, t.asset, scales), class: "num" },
        { title: "Counterparty", value: (t) => shortID(t.debit_account_id === values.account_id ? t.credit_account_id : t.debit_account_id) },
        { title: "Rail", value: (t) => (t.ref ? `${t.ref.rail}/${t.ref.type}` : "—") },
        { title: "Id", value: (t) => shortID(t.id) },
      ],
      { empty: "No transfers match.", onRow: (t) => guarded(() => showTransfer(t.id)) }
    )
  );
}

async function showTransfer(id) {
  const t = await api(`/v1/ledger/transfers/${encodeURIComponent(id)}`);
  const section = $("#transfer-detail");
  section.hidden = false;
  facts($("#transfer-facts"), [
    ["Id", el("span", { class: "mono" }, t.id)],
    ["Kind", badge(t.kind)],
    ["Amount", amountText(t.amount, t.asset, scales)],
    ["From (debit)", el("a", { href: `/admin/transfers?account_id=${encodeURIComponent(t.debit_account_id)}`, class: "mono" }, t.debit_account_id)],
    ["To (credit)", el("a", { href: `/admin/transfers?account_id=${encodeURIComponent(t.credit_account_id)}`, class: "mono" }, t.credit_account_id)],
    ["Time", formatTime(t.timestamp)],
    ["Hold", t.kind === "pending" ? `${t.pending_state ?? ""}, timeout ${t.timeout_seconds}s` : t.pending_id ? `resolves ${t.pending_id}` : "—"],
    ["Reference", t.ref ? `${t.ref.rail} / ${t.ref.type} / ${t.ref.id}` : "—"],
    ["Linked", t.linked ? "yes" : "no"],
    ["Metadata", Object.keys(t.metadata).length ? JSON.stringify(t.metadata) : "—"],
  ]);
  const actions = clear($("#transfer-actions"));
  if (t.kind === "pending" && t.pending_state === "pending") {
    actions.append(
      el("button", { type: "button", onclick: () => guarded(() => resolve(t, "post")) }, "Post hold…"),
      el("button", { type: "button", class: "danger", onclick: () => guarded(() => resolve(t, "void")) }, "Void hold…")
    );
  }
  section.scrollIntoView({ block: "nearest" });
}

async function resolve(hold, verb) {
  const ok = await confirmAction(
    verb === "post" ? "Post this hold? The reserved amount moves to the credit account." : "Void this hold? The reserved amount is released.",
    [
      ["Hold", hold.id],
      ["Amount", amountText(hold.amount, hold.asset, scales)],
      ["From", hold.debit_account_id],
      ["To", hold.credit_account_id],
    ],
    verb === "post" ? "Post hold" : "Void hold"
  );
  if (!ok) return;
  await perform(new IdempotentAction(`/v1/ledger/transfers/${encodeURIComponent(hold.id)}/${verb}`, {}));
  notice(verb === "post" ? "Hold posted." : "Hold voided.");
  await showTransfer(hold.id);
  await load(true);
}

async function submitTransfer(form) {
  const values = formValues(form);
  const scale = scales.get(values.asset);
  if (scale === undefined) throw { title: "Unknown asset", detail: "Choose an asset from the list." };
  let amount;
  try {
    amount = parseAmount(values.amount, scale);
  } catch (error) {
    throw { title: "Invalid amount", detail: error.message };
  }
  const body = {
    // The transfer's own id is the ledger's idempotency key: fixed here, at confirmation.
    id: crypto.randomUUID(),
    action: values.action,
    debit_account_id: values.debit_account_id,
    credit_account_id: values.credit_account_id,
    amount,
    asset: values.asset,
  };
  if (values.action === "hold") body.timeout_seconds = Number(values.timeout_seconds || "0");
  const ok = await confirmAction(values.action === "hold" ? "Reserve this amount?" : "Move this money?", [
    ["Amount", amountText(amount, values.asset, scales)],
    ["From", body.debit_account_id],
    ["To", body.credit_account_id],
    ["Action", values.action === "hold" ? `hold (timeout ${body.timeout_seconds}s)` : "post"],
  ], values.action === "hold" ? "Place hold" : "Send money");
  if (!ok) return;
  const transfer = await perform(new IdempotentAction("/v1/ledger/transfers", body));
  notice(`Transfer ${transfer.id} recorded.`);
  form.elements.amount.value = "";
  const filter = $("#filter-form");
  if (!filter.elements.account_id.value) filter.elements.account_id.value = body.debit_account_id;
  await load(true);
  await showTransfer(transfer.id);
}
