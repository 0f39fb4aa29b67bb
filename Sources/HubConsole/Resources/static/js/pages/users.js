import { api, currentUser, IdempotentAction } from "../api.js";
import { $, badge, clear, confirmAction, el, formatTime, formValues, guarded, notice, perform, shortID, table } from "../ui.js";

const SCOPES = ["ledger:read", "ledger:write", "users:read", "users:write", "events:read", "webhooks:read", "webhooks:write", "admin"];
let cursor = null;
let users = [];

/** Users (admins see everyone) and the signed-in user's own API keys. */
export default async function usersPage() {
  const scopes = $("#key-scopes");
  for (const scope of SCOPES) {
    scopes.append(el("label", { class: "check" }, el("input", { type: "checkbox", name: "scope", value: scope, checked: scope.endsWith(":read") }), scope));
  }
  $("#user-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => createUser(event.target));
  });
  $("#key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => createKey(event.target));
  });
  $("#users-more").addEventListener("click", () => guarded(() => loadUsers(false)));
  await guarded(() => loadUsers(true));
  await guarded(loadKeys);
}

async function loadUsers(fresh) {
  if (fresh) {
    cursor = null;
    users = [];
  }
  const query = new URLSearchParams({ limit: "50" });
  if (cursor) query.set("cursor", cursor);
  const page = await api(`/v1/users?${query}`);
  users.push(...page.data);
  cursor = page.next_cursor;
  $("#users-more").hidden = !cursor;
  clear($("#users-table")).append(
    table(users, [
      { title: "Name", value: (u) => u.display_name },
      { title: "Email", value: (u) => u.email ?? "" },
      { title: "Roles", value: (u) => u.roles.map((role) => badge(role)) },
      { title: "Status", value: (u) => badge(u.disabled ? "disabled" : "active") },
      { title: "Created", value: (u) => formatTime(u.created_at) },
      { title: "Accounts", value: (u) => el("a", { href: `/admin/accounts?owner_kind=user&owner_id=${encodeURIComponent(u.id)}` }, shortID(u.id)) },
    ])
  );
}

async function loadKeys() {
  const page = await api("/v1/api-keys");
  clear($("#keys-table")).append(
    table(
      page.data,
      [
        { title: "Name", value: (k) => k.name },
        { title: "Prefix", value: (k) => el("span", { class: "mono" }, k.prefix) },
        { title: "Scopes", value: (k) => k.scopes.join(", ") },
        { title: "Created", value: (k) => formatTime(k.created_at) },
        { title: "Last used", value: (k) => formatTime(k.last_used_at) || "never" },
        { title: "Status", value: (k) => badge(k.revoked_at ? "revoked" : "active") },
        {
          title: "",
          value: (k) =>
            k.revoked_at ? "" : el("button", { type: "button", class: "danger", onclick: () => guarded(() => revokeKey(k)) }, "Revoke"),
        },
      ],
      { empty: `${currentUser()?.display_name ?? "You"} have no API keys.` }
    )
  );
}

async function createUser(form) {
  const values = formValues(form);
  const body = { email: values.email, display_name: values.display_name, roles: [values.role] };
  if (values.password) body.password = values.password;
  const user = await perform(new IdempotentAction("/v1/users", body));
  notice(`User ${user.display_name} added.`);
  form.reset();
  await loadUsers(true);
}

async function createKey(form) {
  const values = formValues(form);
  const scopes = new FormData(form).getAll("scope").map(String);
  const key = await perform(new IdempotentAction("/v1/api-keys", { name: values.name, scopes }));
  const secret = $("#key-secret");
  secret.hidden = false;
  secret.replaceChildren("The key (shown once, copy it now): ", el("code", {}, key.key ?? ""));
  form.elements.name.value = "";
  await loadKeys();
}

async function revokeKey(key) {
  const ok = await confirmAction("Revoke this API key? Programs using it stop working at once.", [["Key", `${key.name} (${key.prefix})`]], "Revoke");
  if (!ok) return;
  await api(`/v1/api-keys/${encodeURIComponent(key.id)}`, { method: "DELETE" });
  notice("Key revoked.");
  await loadKeys();
}
