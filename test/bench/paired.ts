import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, type LoadResult } from './load';
import { median } from './median';
import { startRouteTarget } from './route-target';

// Two checkouts of the project side by side, taking turns under load in short slices, so
// whatever else the machine does hits both alike: the medians of the paired ratios (B over
// A) are what to read, for req/s and for the service's CPU time per request.

export interface PairedComparison {
  a: LoadResult[];
  b: LoadResult[];
  /** Median over the pairs of B's req/s over A's. */
  rps: number;
  /** Median over the pairs of B's CPU per request over A's: B's cost, A = 1. */
  cpu: number;
}

/** `route` as in route-target.ts; each side warmed up for 8 s first, then `pairs` ABBA… slices of `seconds`. */
export async function comparePaired(o: { rootA: string; rootB: string; route: string; pairs: number; seconds: number; connections: number }): Promise<PairedComparison> {
  const work = mkdtempSync(join(tmpdir(), 'checkout-compare-'));
  const sides: Awaited<ReturnType<typeof startRouteTarget>>[] = [];
  try {
    for (const [name, root] of [['A', o.rootA], ['B', o.rootB]] as const) sides.push(await startRouteTarget({ name, root, route: o.route, work, connections: o.connections }));
    const samples: LoadResult[][] = [[], []];
    for (const s of sides) await load(s.request, { duration: 8, warmup: 0 }, s.service);
    const slice = { duration: o.seconds, warmup: 0 };
    for (let pair = 0; pair < o.pairs; pair++) {
      // ABBA…: neither side always goes first.
      for (const i of pair % 2 ? [1, 0] : [0, 1]) samples[i]!.push(await load(sides[i]!.request, slice, sides[i]!.service));
    }
    const [a, b] = samples as [LoadResult[], LoadResult[]];
    const paired = (f: (r: LoadResult) => number) => median(b.map((x, i) => f(x) / f(a[i]!)));
    return { a, b, rps: paired((r) => r.rps), cpu: paired((r) => r.cpuPerRequest ?? NaN) };
  } finally {
    await Promise.all(sides.map((s) => s.service.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}
