import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTransaction, fundedWallets, storedCard, transactionBody } from './data';
import type { LoadRequest } from './load';
import { freePort, startService, type Target } from './targets';

// One service in the demo environment with the request of one route ready to load, for
// the tools that look at a single route (compare.ts, profile.ts).

const ROUTES = ['page', 'page1000', 'create', 'read', 'transfer', 'charge'] as const;
export type RouteName = (typeof ROUTES)[number];

async function demoKeys(logFile: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const log = readFileSync(logFile, 'utf8');
    const pk = /public key:\s+(\S+)/.exec(log)?.[1];
    const sk = /secret key:\s+(\S+)/.exec(log)?.[1];
    if (pk && sk) return `AppKeys ${pk}:${sk}`;
    await sleep(100);
  }
  throw new Error(`no demo keys in ${logFile}`);
}

export interface RouteTarget {
  service: Target;
  request: LoadRequest;
}

/** `work` holds the service's data folder and log, named after `name`. */
export async function startRouteTarget(
  o: { name: string; root: string; route: string; work: string; connections: number; cpuProfDir?: string },
): Promise<RouteTarget> {
  if (!(ROUTES as readonly string[]).includes(o.route)) throw new Error(`unknown route ${o.route}; one of ${ROUTES.join(', ')}`);
  const logFile = join(o.work, `${o.name}.log`);
  const service = await startService({
    port: await freePort(),
    dataDir: join(o.work, o.name),
    databaseUrl: null,
    logFile,
    root: resolve(o.root),
    demo: true,
    cpuProfDir: o.cpuProfDir,
  });
  const auth = await demoKeys(logFile);
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const tx = await createTransaction(service.url, auth, transactionBody(o.route === 'page1000' ? 1000 : 3));
  const { connections } = o;
  const wallets = o.route === 'transfer' ? await fundedWallets(service.url, auth) : null;
  const card = o.route === 'charge' ? await storedCard(service.url, auth) : null;
  const requests: Record<RouteName, LoadRequest> = {
    page: { url: `${service.url}/pay/${tx.token}/`, connections },
    page1000: { url: `${service.url}/pay/${tx.token}/`, connections },
    create: { url: `${service.url}/v1/transaction/`, method: 'POST', headers, body: JSON.stringify(transactionBody(3)), connections },
    read: { url: `${service.url}/v1/transaction/${tx.id}/`, headers, connections },
    transfer: {
      url: `${service.url}/v1/transfer/`,
      method: 'POST',
      headers,
      body: JSON.stringify({ source_wallet: wallets?.[0], destination_wallet: wallets?.[1], amount: 0.01 }),
      connections,
    },
    // A payment through the payments core: reserve, the (sandbox) gateway's call, record.
    charge: { url: `${service.url}/v1/authorization/${card}/charge/`, method: 'POST', headers, body: JSON.stringify({ amount: 1.5, currency: 'EUR' }), connections },
  };
  return { service, request: requests[o.route as RouteName] };
}
