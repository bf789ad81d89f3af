import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { RequestLog } from '../http/request-log';
import type { Runner } from '../jobs/runner';
import type { Database } from '../store/db';
import type { Lifecycle } from './health';

// SIGTERM without dropping a request. A load balancer sends traffic until its next probe
// sees /health/ready fail, so the process first says it is going (ready turns 503) and
// keeps serving for SHUTDOWN_DRAIN_MS; answers in that time carry `Connection: close`, so
// clients open their next connection elsewhere. Then it stops accepting, lets requests in
// flight finish (at most SHUTDOWN_GRACE_MS, then their connections are cut), lets each
// job finish the round it is in, writes the API's request log that waits, and closes the
// database.

export interface ShutdownParts {
  server: Server;
  jobs: Runner;
  database: Database;
  lifecycle: Lifecycle;
  log: Logger;
  /** Its waiting rows are written once no request runs, before the database closes. */
  requestLog: Pick<RequestLog, 'close'>;
}

export async function shutdown(p: ShutdownParts, o: { drainMs: number; graceMs: number }): Promise<void> {
  p.lifecycle.draining = true;
  if (o.drainMs > 0) {
    // Before the app's own listener: one that answers at once (a cached asset, a redirect)
    // has sent its headers by the time a listener after it runs.
    p.server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    p.log.info({ ms: o.drainMs }, 'draining: not ready, still serving');
    await new Promise((resolve) => setTimeout(resolve, o.drainMs));
  }
  const closed = new Promise<void>((resolve) => p.server.close(() => resolve()));
  // Keep-alive connections with nothing in flight would hold close() open until they time out.
  p.server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), o.graceMs);
  });
  const [http] = await Promise.all([Promise.race([closed.then(() => 'done' as const), grace]), p.jobs.stop()]);
  clearTimeout(timer);
  if (http === 'late') p.log.warn({ ms: o.graceMs }, 'requests still running after the grace period: connections cut');
  p.server.closeAllConnections();
  await p.requestLog.close();
  await p.database.close();
}
