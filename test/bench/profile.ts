// Where one route's time goes: starts the service under `--cpu-prof`, loads one route,
// stops it and prints the self time by module and by function (idle excluded). The
// profile itself stays in the folder printed at the end, for Chrome DevTools.
//
//   npx tsx test/bench/profile.ts create --seconds=10 --top=25
//   npx tsx test/bench/profile.ts charge --root=/tmp/checkout-bench-baseline-9d9a74f   (another checkout, built)
//
// Routes as in compare.ts: page, page1000, create, read, transfer, charge.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load } from './load';
import { summarizeProfile } from './profile-summary';
import { startRouteTarget } from './route-target';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    top: { type: 'string', default: '25' },
    root: { type: 'string', default: '.' },
  },
});
const route = positionals[0] ?? 'page';
const work = mkdtempSync(join(tmpdir(), 'checkout-profile-'));
const profiles = join(work, 'profiles');
const { service, request } = await startRouteTarget({ name: 'service', root: values.root, route, work, connections: Number(values.connections), cpuProfDir: profiles });
let result;
try {
  // Unmeasured first: V8 optimises the route's code after a few thousand requests.
  await load(request, { duration: 3, warmup: 0 }, service);
  result = await load(request, { duration: Number(values.seconds), warmup: 0 }, service);
} finally {
  await service.stop();
}
const [file] = readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile')).sort();
if (!file) throw new Error(`no profile in ${profiles}`);
const summary = summarizeProfile(join(profiles, file));
const top = Number(values.top);
const pct = (share: number) => `${(share * 100).toFixed(1).padStart(5)} %`;
console.log(`${route}: ${Math.round(result.rps)} req/s, ${result.cpuPerRequest?.toFixed(3) ?? '?'} ms CPU/req, p99 ${result.p99} ms at ${values.connections} connections`);
console.log(`profile (whole process life, idle excluded): ${Math.round(summary.totalMs)} ms busy`);
console.log('\nSelf time by module');
for (const [name, share] of summary.byModule.slice(0, top)) console.log(`${pct(share)}  ${name}`);
console.log('\nSelf time by function');
for (const [name, share] of summary.byFunction.slice(0, top)) console.log(`${pct(share)}  ${name}`);
console.log(`\n${join(profiles, file)}`);
