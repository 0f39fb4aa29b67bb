import { api } from "../api.js";
import { isAdmin, me } from "../roles.js";
import { bucketStarts, stackedBars } from "../chart.js";
import { formatAmount, sum } from "../money.js";
import { $, assetScales, clear, el, guarded } from "../ui.js";

const WIDTH_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const WINDOW = { minute: 60, hour: 24, day: 30 };
const NO_RAIL = "kernel API (no rail)";

/** Charts from GET /v1/ledger/stats: volume per asset stacked by rail, count per rail, event rate. */
export default async function overview() {
  const user = await me();
  if (!isAdmin(user)) {
    // Statistics span the whole hub (admins only): others see their own wallets.
    for (const section of document.querySelectorAll("#stats-form, main section.card")) section.hidden = true;
    await guarded(() => drawWallets());
    return;
  }
  const form = $("#stats-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => draw(form.elements.bucket.value));
  });
  await guarded(() => draw(form.elements.bucket.value));
}

/** The caller's wallets: what each holds and what is held. */
async function drawWallets() {
  const [mine, scales] = await Promise.all([api("/v1/wallets/me"), assetScales(api)]);
  const totals = clear($("#totals"));
  if (mine.wallets.length === 0) {
    totals.append(el("p", { class: "hint" }, "No wallet yet: a wallet appears when an organiser or a rail opens one for you."));
    return;
  }
  totals.append(
    ...mine.wallets.map((wallet) =>
      card(`${wallet.account.asset} available`, formatAmount(wallet.account.balances.available, scales.get(wallet.account.asset) ?? 0))
    )
  );
}

async function draw(bucket) {
  const until = new Date();
  const since = new Date(until.getTime() - (WINDOW[bucket] - 1) * WIDTH_MS[bucket]);
  const query = new URLSearchParams({ bucket, since: since.toISOString() });
  const [stats, scales, plugins] = await Promise.all([api(`/v1/ledger/stats?${query}`), assetScales(api), api("/v1/plugins")]);
  const buckets = bucketStarts(stats.since, stats.until, WIDTH_MS[bucket]);
  const railName = (row) => row.rail ?? NO_RAIL;

  // Totals: transfers and events in the window, per asset volume.
  const assets = [...new Set(stats.transfers.map((row) => row.asset))].sort();
  const totals = clear($("#totals"));
  totals.append(
    card("Transfers", sum(stats.transfers.map((row) => String(row.count)))),
    card("Events", sum(stats.events.map((row) => String(row.count)))),
    card("Rails running", String(plugins.data.filter((p) => p.status === "running").length)),
    ...assets.map((asset) =>
      card(`Volume ${asset}`, formatAmount(sum(stats.transfers.filter((row) => row.asset === asset).map((row) => row.volume)), scales.get(asset) ?? 0))
    )
  );

  // Volume: one chart per asset, a series per rail.
  const volumes = clear($("#volume-charts"));
  if (assets.length === 0) volumes.append(el("p", { class: "hint" }, "No money moved in this window."));
  for (const asset of assets) {
    const rows = stats.transfers.filter((row) => row.asset === asset);
    const series = [...new Set(rows.map(railName))].sort().map((rail) => ({
      name: rail,
      values: accumulate(rows.filter((row) => railName(row) === rail), (row) => row.volume),
    }));
    const scale = scales.get(asset) ?? 0;
    volumes.append(
      el("h3", {}, asset),
      stackedBars({
        buckets,
        series,
        format: (value) => `${formatAmount(value, scale)} ${asset}`,
        label: `Volume of ${asset} per ${bucket}`,
        width: volumes.clientWidth,
      })
    );
  }

  // Count: a series per rail, all assets.
  const rails = [...new Set(stats.transfers.map(railName))].sort();
  const countSeries = rails.map((rail) => ({
    name: rail,
    values: accumulate(stats.transfers.filter((row) => railName(row) === rail), (row) => String(row.count)),
  }));
  const countChart = clear($("#count-chart"));
  countChart.append(stackedBars({ buckets, series: countSeries, label: `Transfers per ${bucket}`, width: countChart.clientWidth }));

  // Events per bucket.
  const eventSeries = [{ name: "events", values: new Map(stats.events.map((row) => [row.start, String(row.count)])) }];
  const eventChart = clear($("#event-chart"));
  eventChart.append(stackedBars({ buckets, series: eventSeries, label: `Events per ${bucket}`, width: eventChart.clientWidth }));
}

/** bucket start → the sum (BigInt, as a string) of `value(row)` over rows of that bucket. */
function accumulate(rows, value) {
  const sums = new Map();
  for (const row of rows) sums.set(row.start, (BigInt(sums.get(row.start) ?? "0") + BigInt(value(row))).toString());
  return sums;
}

function card(label, value) {
  return el("div", { class: "stat" }, el("span", { class: "stat-label" }, label), el("strong", { class: "stat-value" }, value));
}
