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
import { parseArgs } from 'node:util';
import { median } from './median';
import { comparePaired } from './paired';

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

const result = await comparePaired({ rootA, rootB, route, pairs: Number(values.pairs), seconds: Number(values.seconds), connections: Number(values.connections) });
for (const [name, root, samples] of [['A', rootA, result.a], ['B', rootB, result.b]] as const) {
  const rps = samples.map((x) => x.rps);
  const cpu = samples.map((x) => x.cpuPerRequest ?? NaN);
  console.log(
    `${name} ${root}: ${Math.round(median(rps))} req/s, ${median(cpu).toFixed(3)} ms CPU/req, ` +
      `p99 ${median(samples.map((x) => x.p99))} ms (slices: ${rps.map(Math.round).join(' ')})`,
  );
  // A side answering errors (a 429, a 4xx) is fast for the wrong reason: its figures mean nothing.
  const failures = samples.reduce((n, x) => n + x.failures, 0);
  if (failures) console.log(`  ${name}: ${failures} of ${samples.reduce((n, x) => n + x.requests, 0)} answers failed (non-2xx or errors): not comparable`);
}
console.log(`B/A ${route}: req/s ${Math.round(result.rps * 100)} %, CPU per request ${Math.round(result.cpu * 100)} % (medians of ${result.a.length} paired slices)`);
