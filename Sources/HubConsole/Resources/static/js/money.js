// Amounts are strings of integer minor units (DESIGN §3.6) and stay that way here: they are
// never turned into a JS Number (which loses exactness past 2^53). Sums use BigInt.

const DIGITS = /^(0|[1-9][0-9]*)$/;

/** "123456" with scale 2 → "1,234.56". Answers the input unchanged when it is not minor units. */
export function formatAmount(minor, scale) {
  const text = String(minor ?? "");
  if (!DIGITS.test(text)) return text;
  const places = Number(scale) || 0;
  const padded = text.padStart(places + 1, "0");
  const whole = padded.slice(0, padded.length - places);
  const fraction = padded.slice(padded.length - places);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return places > 0 ? `${grouped}.${fraction}` : grouped;
}

/**
 * "12.5" with scale 2 → "1250". Throws on anything that is not a non-negative decimal with at
 * most `scale` places (so a typo cannot silently move 100 times the money).
 */
export function parseAmount(text, scale) {
  const value = String(text).trim().replace(/,/g, "");
  const match = /^([0-9]+)(?:\.([0-9]*))?$/.exec(value);
  if (!match) throw new Error("Enter an amount like 12.50 (digits and one decimal point).");
  const fraction = match[2] || "";
  if (fraction.length > scale) throw new Error(`This asset has ${scale} decimal places; the amount has ${fraction.length}.`);
  const minor = (match[1] + fraction.padEnd(scale, "0")).replace(/^0+(?=\d)/, "");
  if (minor === "0") throw new Error("The amount must be more than zero.");
  return BigInt(minor).toString();
}

/** The sum of minor-unit strings as a string. */
export function sum(values) {
  let total = 0n;
  for (const value of values) if (DIGITS.test(String(value))) total += BigInt(value);
  return total.toString();
}

/**
 * A ratio for drawing only (bar heights): part/whole in [0, 1], computed in BigInt with six
 * digits of precision so that huge amounts still scale exactly enough for pixels.
 */
export function ratio(part, whole) {
  const w = BigInt(whole);
  if (w === 0n) return 0;
  return Number((BigInt(part) * 1000000n) / w) / 1000000;
}
