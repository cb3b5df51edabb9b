/** 12345.6 → "12,346"; small numbers keep three significant digits. Deterministic (no locale). */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? 'unbounded' : '–';
  if (Math.abs(n) < 100) return String(Number(n.toPrecision(3)));
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 0.1234 → "12.3%". */
export function formatShare(x: number): string {
  const pct = x * 100;
  return `${pct >= 10 ? pct.toFixed(1) : Number(pct.toPrecision(2))}%`;
}

/** 5300 → "5.3 KB", in bytes of 1,000 (as production dashboards quote them). */
export function formatBytes(n: number): string {
  if (n >= 1e6) return `${Number((n / 1e6).toPrecision(3))} MB`;
  if (n >= 1e3) return `${Number((n / 1e3).toPrecision(3))} KB`;
  return `${Math.round(n)} B`;
}
