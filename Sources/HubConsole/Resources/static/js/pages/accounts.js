import { api, currentUser, IdempotentAction } from "../api.js";
import { isAdmin, isOrganiser, me } from "../roles.js";
import { $, amountText, assetScales, badge, clear, confirmAction, el, formValues, guarded, notice, perform, shortID, table } from "../ui.js";

// The ledger's flags in a few words.
const FLAG_NAMES = {
  debits_must_not_exceed_credits: "never negative",
  credits_must_not_exceed_debits: "never positive",
};

let cursor = null;
let rows = [];
let hubWide = false;

/** Accounts of one owner (the signed-in user by default) with balances and holds; opening accounts. */
export default async function accounts() {
  const filter = $("#owner-form");
  const params = new URLSearchParams(location.search);
  // Admins see every account, organisers those of the assets they organise, searchable by user.
  const user = await me();
  hubWide = isAdmin(user) || isOrganiser(user);
  $("#search-label").hidden = !hubWide;
  if (params.get("q")) filter.elements.q.value = params.get("q");
  if (params.get("owner_kind")) filter.elements.owner_kind.value = params.get("owner_kind");
  if (params.get("owner_id")) filter.elements.owner_id.value = params.get("owner_id");
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(filter);
    history.replaceState(null, "", `?${new URLSearchParams(values)}`);
    guarded(() => load(true));
  });
  $("#accounts-more").addEventListener("click", () => guarded(() => load(false)));

  const form = $("#account-form");
  const scales = await guarded(() => assetScales(api));
  const select = form.elements.asset;
  for (const code of [...(scales ?? new Map()).keys()].sort()) select.append(el("option", { value: code }, code));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => create(form));
  });
  await guarded(() => load(true));
}

function ownerQuery() {
  const values = formValues($("#owner-form"));
  if (hubWide && !values.owner_id) {
    const query = new URLSearchParams({ all: "true" });
    if (values.q) query.set("q", values.q);
    return query;
  }
  const query = new URLSearchParams({ owner_kind: values.owner_kind });
  if (values.owner_id) query.set("owner_id", values.owner_id);
  return query;
}

async function load(fresh) {
  if (fresh) {
    cursor = null;
    rows = [];
  }
  const query = ownerQuery();
  query.set("limit", "50");
  if (cursor) query.set("cursor", cursor);
  const [page, scales] = await Promise.all([api(`/v1/ledger/accounts?${query}`), assetScales(api)]);
  rows.push(...page.data);
  cursor = page.next_cursor;
  $("#accounts-more").hidden = !cursor;
  const amount = (key) => (a) => amountText(a.balances[key], a.asset, scales);
  clear($("#accounts-table")).append(
    table(
      rows,
      [
        { title: "Account", value: (a) => el("a", { href: `/admin/transfers?account_id=${encodeURIComponent(a.id)}` }, shortID(a.id)) },
        { title: "Asset", value: (a) => a.asset, class: "nowrap" },
        { title: "Owner", value: (a) => [`${a.owner.kind} `, shortID(a.owner.id), a.code === "wallet" ? "" : ` (${a.code})`] },
        { title: "Available", value: amount("available"), class: "num" },
        { title: "Credits", value: amount("credits_posted"), class: "num" },
        { title: "Debits", value: amount("debits_posted"), class: "num" },
        { title: "Held", value: amount("debits_pending"), class: "num" },
        { title: "Incoming holds", value: amount("credits_pending"), class: "num" },
        { title: "Limits", value: (a) => a.flags.map((flag) => badge(FLAG_NAMES[flag] ?? flag)) },
      ],
      { empty: "This owner has no accounts." }
    )
  );
}

async function create(form) {
  const values = formValues(form);
  const me = currentUser();
  const body = {
    asset: values.asset,
    owner: { kind: values.owner_kind, id: values.owner_id || (values.owner_kind === "user" && me ? me.id : values.owner_id) },
    code: values.code || "wallet",
    flags: values.no_negative ? ["debits_must_not_exceed_credits"] : [],
  };
  if (!body.owner.id) throw { title: "Owner id needed", detail: "Give the id of the organisation or system that owns the account." };
  const ok = await confirmAction("Open this account?", [
    ["Asset", body.asset],
    ["Owner", `${body.owner.kind} ${body.owner.id}`],
    ["Code", body.code],
    ["May go negative", values.no_negative ? "no" : "yes"],
  ], "Open account");
  if (!ok) return;
  const account = await perform(new IdempotentAction("/v1/ledger/accounts", body));
  notice(`Account ${account.id} opened.`);
  const filter = $("#owner-form");
  filter.elements.owner_kind.value = account.owner.kind;
  filter.elements.owner_id.value = account.owner.id;
  await load(true);
}
