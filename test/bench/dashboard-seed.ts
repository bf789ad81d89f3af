import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from './data';
import { seedPayments, startHookReceiver, templatePayments } from './dashboard-data';
import { freePort, startService, type Target } from './targets';

// The dashboard section's shop, seeded once and kept, for measuring its queries in process
// (dashboard-queries.ts) on copies of it:
//   npx tsx test/bench/dashboard-seed.ts DIR [PAYMENTS] [DATABASE_URL]
// writes DIR/checkout.db (or the shop into DATABASE_URL, whose search_path should be a
// schema of its own) and DIR/shop.json (the environment's id).

const [dir, payments = '10000', databaseUrl = null] = process.argv.slice(2);
if (!dir) throw new Error('usage: dashboard-seed.ts DIR [PAYMENTS] [DATABASE_URL]');
mkdirSync(dir, { recursive: true });
const config = { dataDir: dir, databaseUrl };
const store = await openStore(config);
const hooks = await startHookReceiver();
process.env.ALLOW_PRIVATE_NOTIFY_URLS = 'true';
let service: Target | undefined;
try {
  service = await startService({ port: await freePort(), ...config, logFile: join(dir, 'service.log') });
  await templatePayments(service.url, store, hooks.url);
} finally {
  await service?.stop();
  await hooks.close();
}
const seconds = await seedPayments(store, Number(payments));
writeFileSync(join(dir, 'shop.json'), JSON.stringify({ environmentId: store.keys.environment_id }));
await store.database.close();
console.log(`seeded ${payments} payments in ${seconds.toFixed(1)} s into ${databaseUrl ?? dir}`);
