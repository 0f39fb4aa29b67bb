// Entry point of every console page: checks the session, wires the shell (menu, sign-out) and
// loads the page's module (pages/<page>.js, next to this file under the same versioned URL).

import { currentUser, signedIn, signOut } from "./api.js";
import { mayOpen, me } from "./roles.js";
import { $, showProblem } from "./ui.js";

const page = document.body.dataset.page;

function wireShell() {
  const toggle = $("#menu-toggle");
  const nav = $("#nav");
  toggle?.addEventListener("click", () => {
    const open = nav.classList.toggle("open");
    toggle.setAttribute("aria-expanded", String(open));
  });
  $("#sign-out")?.addEventListener("click", async () => {
    await signOut();
    location.assign("/admin/login");
  });
  $(".problem-close")?.addEventListener("click", () => {
    $("#problem").hidden = true;
  });
  const user = currentUser();
  if (user && $("#who")) $("#who").textContent = user.display_name || user.email || "";
}

async function start() {
  if (page !== "login" && !signedIn()) {
    location.assign("/admin/login?next=" + encodeURIComponent(location.pathname + location.search));
    return;
  }
  wireShell();
  try {
    if (page !== "login") {
      // Only what the role may use: other links go, and a page opened by address sends the user on.
      const user = await me();
      for (const link of document.querySelectorAll("#nav a[href^='/admin/']")) {
        const target = link.getAttribute("href").split("/")[2];
        if (!mayOpen(target === "rails" ? "rail" : target, user)) link.closest("li")?.remove();
      }
      if (!mayOpen(page, user)) {
        location.replace("/admin/overview");
        return;
      }
      if ($("#who")) $("#who").textContent = `${user.display_name || user.email || ""} (${(user.roles ?? []).join(", ")})`;
    }
    const module = await import(`./pages/${page}.js`);
    await module.default();
  } catch (error) {
    showProblem(error);
  }
}

start();
