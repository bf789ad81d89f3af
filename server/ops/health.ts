import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runner } from '../jobs/runner';
import type { Database } from '../store/db';
import { appliedMigrations } from '../store/health';
import { migrationNames } from '../store/migrations';

// GET /health/live: the process runs and its event loop answers. GET /health/ready: this
// process should get traffic: not draining (SIGTERM), the database answers now, every
// migration this code needs is applied, and no job's round has outlived its timeout.
// Unauthenticated and cheap (one small query), and outside the access log (app.ts), since
// load balancers ask every few seconds. On PostgreSQL it also says whether the statement and
// idle-in-transaction timeouts are in force (`database_timeouts`, looked at again every 30 s
// at most, pg-timeouts.ts): never a reason for 503, since every process shares them.

/** Set on SIGTERM: readiness turns 503 at once so load balancers stop sending traffic. */
export interface Lifecycle {
  draining: boolean;
}

/** Longer than any healthy query; a database that takes longer is as good as away. */
const DATABASE_CHECK_MS = 2000;

type Check = { ok: true } | { ok: false; reason: string };

export interface HealthOptions {
  database: Database;
  jobs: Runner;
  lifecycle: Lifecycle;
  /** Processors' hosts replaced for tests (STRIPE_API_URL…), by variable: shown, never a reason for 503. */
  processorUrls?: Record<string, string>;
}

async function databaseCheck(database: Database): Promise<{ database: Check; migrations: Check }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)), DATABASE_CHECK_MS);
  });
  try {
    const applied = new Set(await Promise.race([appliedMigrations(database.db), late]));
    const missing = migrationNames.filter((name) => !applied.has(name));
    return {
      database: { ok: true },
      migrations: missing.length ? { ok: false, reason: `not applied: ${missing.join(', ')}` } : { ok: true },
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { database: { ok: false, reason }, migrations: { ok: false, reason: 'unknown: the database did not answer' } };
  } finally {
    clearTimeout(timer);
  }
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  if (status === 405) res.setHeader('Allow', 'GET, HEAD');
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The /health/ routes, as a plain request handler; anything else under /health/ is a 404. */
export function healthHandler(o: HealthOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '').replace(/\?.*$/, '');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { status: 'method not allowed' });
    if (path === '/health/live') return send(res, 200, { status: 'ok' });
    if (path !== '/health/ready') return send(res, 404, { status: 'not found' });
    void (async () => {
      const { database, migrations } = await databaseCheck(o.database);
      const stalled = o.jobs.stalled();
      const checks: Record<string, Check> = {
        draining: o.lifecycle.draining ? { ok: false, reason: 'shutting down' } : { ok: true },
        database,
        migrations,
        jobs: stalled.length ? { ok: false, reason: `stalled: ${stalled.join(', ')}` } : { ok: true },
      };
      const ready = Object.values(checks).every((c) => c.ok);
      const shown = Object.fromEntries(Object.entries(checks).map(([name, c]) => [name, c.ok ? 'ok' : c.reason]));
      // Told, not a reason to take the process out: every process shares the setting.
      const timeouts = o.database.timeouts?.current();
      const urls = o.processorUrls && Object.keys(o.processorUrls).length ? { processor_urls: o.processorUrls } : {};
      const told = { ...(timeouts ? { database_timeouts: timeouts.detail } : {}), ...urls };
      send(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', checks: shown, ...told });
    })();
  };
}
