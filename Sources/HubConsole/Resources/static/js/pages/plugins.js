import { api } from "../api.js";
import { $, badge, clear, el, guarded, table } from "../ui.js";

/** Every built-in rail: running or disabled, its health, and its console panel. */
export default async function plugins() {
  await guarded(async () => {
    const page = await api("/v1/plugins");
    clear($("#plugins-table")).append(
      table(
        page.data,
        [
          { title: "Rail", value: (p) => el("strong", {}, p.id) },
          { title: "Status", value: (p) => badge(p.status) },
          { title: "Health", value: (p) => (p.health ? [badge(p.health.status), p.health.detail ? ` ${p.health.detail}` : ""] : "—") },
          { title: "API", value: (p) => el("span", { class: "mono" }, p.route_prefix) },
          {
            title: "Panel",
            value: (p) => (p.admin_panel ? el("a", { href: `/admin/rails/${encodeURIComponent(p.id)}` }, p.admin_panel.title) : "—"),
          },
        ],
        { empty: "No rails are built into this hub." }
      )
    );
  });
}
