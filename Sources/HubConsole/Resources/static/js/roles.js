// What each role may open in the console, matching what the API lets that role do, so no page a
// role can see lands on a 403: admins everything; organisers their assets' accounts and
// transfers, the members they created, the rails; members their own wallets and transfers.

import { api, currentUser, rememberUser } from "./api.js";

const EVERYONE = ["overview", "assets", "accounts", "transfers", "plugins", "rail"];
const PAGES = {
  admin: [...EVERYONE, "events", "webhooks", "users"],
  organiser: [...EVERYONE, "users"],
  member: EVERYONE,
};

/** The signed-in user with roles: from this tab's session, or asked once of the API. */
export async function me() {
  const stored = currentUser();
  if (stored?.roles) return stored;
  const user = await api("/v1/users/me");
  rememberUser(user);
  return user;
}

export function isAdmin(user) {
  return user?.roles?.includes("admin") ?? false;
}

export function isOrganiser(user) {
  return user?.roles?.includes("organiser") ?? false;
}

/** Whether any of the user's roles may open `page` (a console page name). */
export function mayOpen(page, user) {
  return (user?.roles ?? []).some((role) => (PAGES[role] ?? []).includes(page));
}
