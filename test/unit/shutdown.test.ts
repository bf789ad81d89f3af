import { createServer, request, Agent, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import pino from 'pino';
import { expect, it } from 'vitest';
import { followConnections, shutdown, type ShutdownParts } from '../../server/ops/shutdown';

// The close on SIGTERM with a browser's connections open (server/ops/shutdown.ts): one
// opened ahead and never used, one kept alive after its answer, and one whose request is
// still running. None may hold the close for the grace period; the running one is answered.

const GRACE_MS = 20_000;

/** A GET of `path` over `agent`, its status and body once the answer is read. */
function get(port: number, agent: Agent, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', agent, path }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

it('ends a connection opened ahead, an idle one and, once answered, a busy one, without waiting the grace period', { timeout: GRACE_MS + 10_000 }, async () => {
  let releaseSlow = () => {};
  let arrive = () => {};
  const slowArrived = new Promise<void>((resolve) => (arrive = resolve));
  const server: Server = createServer((req, res) => {
    if (req.url !== '/slow') return void res.end('quick');
    releaseSlow = () => res.end('slow');
    arrive();
  });
  const connections = followConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  // A browser's preconnect: a connection with nothing sent on it.
  const ahead: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => ahead.once('connect', resolve));
  const aheadClosed = new Promise((resolve) => ahead.once('close', resolve));
  // One kept alive after its answer, and one whose request is still running at the close.
  const idleAgent = new Agent({ keepAlive: true });
  expect(await get(port, idleAgent)).toEqual({ status: 200, body: 'quick' });
  const busyAgent = new Agent({ keepAlive: true });
  const slow = get(port, busyAgent, '/slow');
  await slowArrived;

  const lines: { msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const parts: ShutdownParts = {
    server,
    connections,
    log,
    lifecycle: { draining: false },
    jobs: { stop: async () => {} } as unknown as ShutdownParts['jobs'],
    database: { close: async () => {} } as unknown as ShutdownParts['database'],
    requestLog: { close: async () => {} },
  };
  const closed = shutdown(parts, { drainMs: 0, graceMs: GRACE_MS });
  await aheadClosed;
  // The running request still gets its answer.
  releaseSlow();
  expect(await slow).toEqual({ status: 200, body: 'slow' });
  await closed;
  expect(lines.map((l) => l.msg)).not.toContain('requests still running after the grace period: connections cut');
  idleAgent.destroy();
  busyAgent.destroy();
});
