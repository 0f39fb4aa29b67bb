import { api, storeSession } from "../api.js";
import { $, guarded } from "../ui.js";

/** Signs in with the kernel's login and goes on to the page that asked (only console pages). */
export default function login() {
  const form = $("#login-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(async () => {
      const data = new FormData(form);
      const session = await api("/v1/auth/login", {
        method: "POST",
        body: { email: String(data.get("email")).trim(), password: String(data.get("password")) },
      });
      storeSession(session);
      const next = new URLSearchParams(location.search).get("next") || "";
      // Only a path inside the console: never an absolute URL someone put in the link.
      location.assign(/^\/admin\/[a-z0-9/_?=&%.-]*$/i.test(next) && !next.startsWith("//") ? next : "/admin/overview");
    });
  });
  form.elements.email.focus();
}
