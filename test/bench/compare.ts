// A/B of one route between two checkouts of the project, e.g. before and after a change:
// both services run side by side and take turns under load in short slices, so whatever
// else the machine does hits both alike. Prints the medians and the median of the paired
// ratios (B over A), for req/s and for the service's CPU time per request.
//
//   git worktree add /tmp/before HEAD~1 && ln -s "$PWD/node_modules" "$PWD/dist" /tmp/before/
//   npx tsx test/bench/compare.ts /tmp/before . page --pairs=10 --seconds=3
//
// Routes: page (GET /pay/{token}/, 3 products), page1000 (1,000 products),
// create (POST /v1/transaction/, 3 products), read (GET /v1/transaction/{id}/),
// transfer (POST /v1/transfer/, wallet to wallet), charge (POST /v1/authorization/{id}/charge/,
// a stored card charged through the sandbox gateway).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load, type LoadRequest, type LoadResult } from './load';
import { startRouteTarget } from './route-target';
import type { Target } from './targets';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    pairs: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
  },
});
const [rootA, rootB, route = 'page'] = positionals;
if (!rootA || !rootB) throw new Error('usage: compare.ts <checkout A> <checkout B> [page|page1000|create|read|transfer|charge] [--pairs=10] [--seconds=3]');
const connections = Number(values.connections);

interface Side {
  name: string;
  service: Target;
  request: LoadRequest;
  samples: LoadResult[];
}

const work = mkdtempSync(join(tmpdir(), 'checkout-compare-'));

async function side(name: string, root: string): Promise<Side> {
  const { service, request } = await startRouteTarget({ name, root, route, work, connections });
  return { name, service, request, samples: [] };
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const sides = [await side('A', rootA), await side('B', rootB)];
try {
  for (const s of sides) await load(s.request, { duration: 8, warmup: 0 }, s.service);
  const slice = { duration: Number(values.seconds), warmup: 0 };
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    // ABBA…: neither side always goes first.
    for (const s of pair % 2 ? [...sides].reverse() : sides) s.samples.push(await load(s.request, slice, s.service));
  }
  const [a, b] = sides as [Side, Side];
  for (const s of sides) {
    const rps = s.samples.map((x) => x.rps);
    const cpu = s.samples.map((x) => x.cpuPerRequest ?? NaN);
    console.log(
      `${s.name} ${s.name === 'A' ? rootA : rootB}: ${Math.round(median(rps))} req/s, ${median(cpu).toFixed(3)} ms CPU/req, ` +
        `p99 ${median(s.samples.map((x) => x.p99))} ms (slices: ${rps.map(Math.round).join(' ')})`,
    );
    // A side answering errors (a 429, a 4xx) is fast for the wrong reason: its figures mean nothing.
    const failures = s.samples.reduce((n, x) => n + x.failures, 0);
    if (failures) console.log(`  ${s.name}: ${failures} of ${s.samples.reduce((n, x) => n + x.requests, 0)} answers failed (non-2xx or errors): not comparable`);
  }
  const paired = (f: (r: LoadResult) => number) => median(b.samples.map((x, i) => f(x) / f(a.samples[i]!)));
  console.log(
    `B/A ${route}: req/s ${Math.round(paired((r) => r.rps) * 100)} %, CPU per request ${Math.round(paired((r) => r.cpuPerRequest ?? NaN) * 100)} % (medians of ${a.samples.length} paired slices)`,
  );
} finally {
  await Promise.all(sides.map((s) => s.service.stop()));
  rmSync(work, { recursive: true, force: true });
}
