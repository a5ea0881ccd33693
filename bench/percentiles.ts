/** The p-th percentile of latencies (nearest rank), and the p50/p95 pair each latency bench prints. */
export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
export const summary = (xs: number[]) => ({ p50: +pct(xs, 50).toFixed(1), p95: +pct(xs, 95).toFixed(1) });
