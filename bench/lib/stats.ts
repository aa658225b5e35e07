// Small statistics and timing helpers shared by the benchmark sections: medians and percentiles of
// sample arrays, CPU-time measurement, and a forced garbage collection for memory figures.

/** The q-quantile (0..1) of `values` by linear interpolation; NaN for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** CPU time (user + system) of this process in milliseconds. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs a full garbage collection (twice, so objects freed by finalizers go too). Needs --expose-gc. */
export function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run node with --expose-gc (npm run bench does)");
  gc();
  gc();
}

/** Resident set size in MiB after a full GC. */
export function rssAfterGcMiB(): number {
  fullGc();
  return process.memoryUsage().rss / (1024 * 1024);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
