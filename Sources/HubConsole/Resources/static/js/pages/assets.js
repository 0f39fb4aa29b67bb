import { api, IdempotentAction } from "../api.js";
import { $, clear, confirmAction, el, formatTime, formValues, guarded, notice, perform, shortID, table } from "../ui.js";

export default async function assets() {
  const form = $("#asset-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => create(form));
  });
  await guarded(render);
}

async function render() {
  const page = await api("/v1/assets");
  clear($("#assets-table")).append(
    table(
      page.data,
      [
        { title: "Code", value: (a) => el("strong", {}, a.code) },
        { title: "Name", value: (a) => a.name },
        { title: "Scale", value: (a) => String(a.scale) },
        {
          title: "Issuance account",
          value: (a) => el("a", { href: `/admin/transfers?account_id=${encodeURIComponent(a.issuance_account_id)}` }, shortID(a.issuance_account_id)),
        },
        { title: "Organiser", value: (a) => (a.organiser_id ? shortID(a.organiser_id) : "—") },
        { title: "Created", value: (a) => formatTime(a.created_at) },
      ],
      { empty: "No assets yet: create the first below." }
    )
  );
}

async function create(form) {
  const values = formValues(form);
  const body = { code: values.code.toUpperCase(), scale: Number(values.scale), name: values.name };
  const ok = await confirmAction("Create this asset? Its code and scale cannot change later.", [
    ["Code", body.code],
    ["Scale", String(body.scale)],
    ["Name", body.name],
  ], "Create asset");
  if (!ok) return;
  const asset = await perform(new IdempotentAction("/v1/assets", body));
  notice(`Asset ${asset.code} created.`);
  form.reset();
  await render();
}
