import type { Server } from 'node:http';
import type { Socket } from 'node:net';
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
//
// server.close() waits for every connection to end, and Node's closeIdleConnections() ends
// only those whose last request is answered. A connection a browser opened ahead of need
// (a preconnect) and never used, or one whose request was still running at the close (kept
// alive after its answer), held the close for the whole grace period: 25 s on every stop
// with a dashboard page open in Chromium, logged as requests still running. So the
// connections are followed from the start (`followConnections`): the close ends those that
// never received a byte, and each connection once its answer in flight is sent.

export interface ShutdownParts {
  server: Server;
  jobs: Runner;
  database: Database;
  lifecycle: Lifecycle;
  log: Logger;
  /** Its waiting rows are written once no request runs, before the database closes. */
  requestLog: Pick<RequestLog, 'close'>;
  connections: Connections;
}

export interface Connections {
  /** Ends the connections that never received a byte, now and, once answered, the rest. */
  close(): void;
}

/** Follows `server`'s connections from its start, for the close (above). */
export function followConnections(server: Server): Connections {
  const unused = new Set<Socket>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  // Node counts a connection idle on the turn after its answer's 'close'.
  const closeIdle = () => server.closeIdleConnections();
  const answered = () => closing && setImmediate(closeIdle);
  server.on('request', (req, res) => {
    unused.delete(req.socket);
    res.on('close', answered);
  });
  return {
    close() {
      closing = true;
      // A byte received is a request on its way: it is answered first, as any in flight.
      for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
      server.closeIdleConnections();
    },
  };
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
  p.connections.close();
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
