// Stacked bar charts drawn as SVG by hand. Values are strings of integers (amounts in minor
// units, or counts) and are compared and summed as BigInt; only the final bar height, a ratio
// for pixels, becomes a Number.

import { el } from "./ui.js";
import { ratio } from "./money.js";

const SVG = "http://www.w3.org/2000/svg";
const PALETTE = ["#1f5f8b", "#e07b39", "#3a9d5d", "#8e5ea2", "#c0392b", "#16a2b8", "#b59b1b", "#6d6d6d"];

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

function titled(node, text) {
  const title = svg("title");
  title.textContent = text;
  node.append(title);
  return node;
}

/**
 * A stacked bar chart.
 * - `buckets`: the bars' start times (RFC 3339 strings), oldest first;
 * - `series`: [{name, values: Map(bucket → integer string)}];
 * - `format(value string) → string`: labels for the axis and the tooltips;
 * - `width`: the pixels available (the container's width).
 */
export function stackedBars({ buckets, series, format = (value) => value, label = "", width: available = 720 }) {
  // Drawn at the container's own width (no scaling), so text keeps its size on a phone.
  const width = Math.max(280, Math.round(available));
  const height = 220;
  const left = 8;
  const bottom = 24;
  const top = 18;
  const plotHeight = height - bottom - top;
  const totals = buckets.map((bucket) => series.reduce((total, s) => total + BigInt(s.values.get(bucket) ?? "0"), 0n));
  const max = totals.reduce((a, b) => (b > a ? b : a), 0n);
  const slot = (width - left * 2) / Math.max(buckets.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "bars" });
  titled(chart, label);
  chart.append(svg("line", { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, class: "axis" }));
  buckets.forEach((bucket, index) => {
    let base = height - bottom;
    const x = left + index * slot + (slot - barWidth) / 2;
    series.forEach((s, seriesIndex) => {
      const value = s.values.get(bucket) ?? "0";
      if (value === "0") return;
      const barHeight = Math.max(1, ratio(value, max) * plotHeight);
      base -= barHeight;
      const rect = svg("rect", { x, y: base, width: barWidth, height: barHeight, fill: PALETTE[seriesIndex % PALETTE.length] });
      chart.append(titled(rect, `${timeLabel(bucket)} · ${s.name}: ${format(value)}`));
    });
  });
  // First, middle and last bucket times under the axis.
  const marks = [...new Set([0, Math.floor((buckets.length - 1) / 2), buckets.length - 1])].filter((i) => i >= 0);
  for (const index of marks) {
    const anchor = index === 0 ? "start" : index === buckets.length - 1 ? "end" : "middle";
    const x = index === 0 ? left : index === buckets.length - 1 ? width - left : left + index * slot + slot / 2;
    const text = svg("text", { x, y: height - 6, "text-anchor": anchor, class: "tick" });
    text.textContent = timeLabel(buckets[index]);
    chart.append(text);
  }
  const peak = svg("text", { x: left, y: 12, class: "tick" });
  peak.textContent = `max ${format(max.toString())}`;
  chart.append(peak);
  const legend = el(
    "ul",
    { class: "legend" },
    series.map((s, index) => el("li", {}, el("span", { class: `swatch swatch-${index % PALETTE.length}` }), s.name))
  );
  return el("figure", { class: "chart" }, chart, legend);
}

function timeLabel(text) {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return text;
  return date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** The bucket starts from `since` to `until` (RFC 3339) for a bucket width in milliseconds. */
export function bucketStarts(since, until, widthMs) {
  const starts = [];
  for (let t = Date.parse(since); t < Date.parse(until); t += widthMs) starts.push(new Date(t).toISOString());
  return starts;
}
