// Text for report.html: every string that reaches the page goes through esc(),
// and numbers are formatted the same way everywhere.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const DASH = '—';

/** A readable number: thousands separators for large values, 3 significant digits for small ones. */
export function fmtNum(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  const a = Math.abs(v);
  if (a !== 0 && a < 0.01) return v.toPrecision(3);
  if (a >= 1e9) return v.toExponential(3);
  const d = a >= 1000 ? 0 : a >= 100 ? 1 : digits;
  return v.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: d });
}

/** ms with a unit that suits the size (µs below 1 ms, s above 10 s). */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH;
  const a = Math.abs(ms);
  if (a !== 0 && a < 1) return `${fmtNum(ms * 1000)} µs`;
  if (a >= 10_000) return `${fmtNum(ms / 1000)} s`;
  return `${fmtNum(ms)} ms`;
}

export function fmtInt(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  return Math.round(v).toLocaleString('en-US');
}

export function fmtPct(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return DASH;
  return `${(fraction * 100).toFixed(1)}%`;
}

/** One key figure. */
export function card(k: string, v: string): string {
  return `<div class="card"><div class="k">${esc(k)}</div><div class="v">${esc(v)}</div></div>`;
}

/** A table of text cells (every cell escaped). */
export function table(head: string[], rows: string[][]): string {
  return `<div class="wrap"><table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}
