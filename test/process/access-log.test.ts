import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { SANDBOX_CARD, payWithCard, priced } from '../api/pay';
import { type ServiceProcess, startServiceProcess } from '../api/process';
import { createShopKeys } from '../shop-keys';

// The access log as an operator reads it: the service as a real process, its stdout
// parsed line by line. One line per request, carrying the id the client was given, and
// nothing a log store must not hold: no checkout token, no key, no card, no query.

interface AccessLine {
  reqId: string;
  method: string;
  path: string;
  status: number;
  responseTime: number;
  msg: string;
}

describe('access log', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let auth: Record<string, string>;
  let secretKey: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'checkout-log-'));
    const keys = await createShopKeys('Log shop', { DATA_DIR: dataDir });
    secretKey = keys.secret_key;
    auth = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    service = await startServiceProcess({ DATA_DIR: dataDir });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The access line of the response with this X-Request-Id, once it was written. */
  async function lineOf(res: Response): Promise<AccessLine> {
    const id = res.headers.get('x-request-id');
    expect(id).toBeTruthy();
    const line = () => service.output.map((l) => JSON.parse(l) as AccessLine).find((l) => l.reqId === id && 'status' in l);
    await expect.poll(line, { timeout: 5_000, message: `no access line for request ${id}` }).toBeDefined();
    return line()!;
  }

  it('keeps the trace id of a valid W3C traceparent on the request\'s lines, and ignores a malformed one', async () => {
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const traced = await fetch(`${service.url}/v1/transaction/`, { headers: { ...auth, traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
    await traced.arrayBuffer();
    expect(await lineOf(traced)).toMatchObject({ traceId: trace, status: 200 });
    const malformed = await fetch(`${service.url}/v1/transaction/`, { headers: { ...auth, traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } });
    await malformed.arrayBuffer();
    expect(await lineOf(malformed)).not.toHaveProperty('traceId');
  });

  it("marks the lines a use case writes while answering with the request's id and trace", async () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    const created = await fetch(`${service.url}/v1/transaction/`, { method: 'POST', headers: auth, body: JSON.stringify(priced('EUR', 4.5)) });
    const { token } = (await created.json()) as { token: string };
    const paid = await payWithCard(service.url, token, TEST_CARDS.approved, SANDBOX_CARD, { traceparent: `00-${trace}-b7ad6b7169203331-01` });
    expect(paid.status).toBe(200);
    await lineOf(paid);
    // 'payment approved' is logged by payments/pay.ts, which never sees the request.
    const approved = service.output.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'payment approved');
    expect(approved).toMatchObject({ reqId: paid.headers.get('x-request-id'), traceId: trace });
  });

  it('writes one line per request with the id, method, path, status and time', async () => {
    const created = await fetch(`${service.url}/v1/transaction/`, { method: 'POST', headers: auth, body: JSON.stringify(priced('EUR', 9.99)) });
    // The path is logged without its query.
    const listed = await fetch(`${service.url}/v1/transaction/?page=1`, { headers: auth });
    await listed.arrayBuffer();
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const page = await fetch(`${service.url}/pay/${token}/?lang=es`);
    await page.arrayBuffer();
    const missing = await fetch(`${service.url}/v1/transaction/`, { headers: { authorization: 'AppKeys nope:nope' } });
    await missing.arrayBuffer();

    expect(await lineOf(created)).toMatchObject({ method: 'POST', path: '/v1/transaction/', status: 201, msg: 'request completed' });
    expect(await lineOf(listed)).toMatchObject({ method: 'GET', path: '/v1/transaction/', status: 200 });
    const pageLine = await lineOf(page);
    expect(pageLine).toMatchObject({ method: 'GET', path: '/pay/:token/', status: 200 });
    expect(pageLine.responseTime).toEqual(expect.any(Number));
    expect(await lineOf(missing)).toMatchObject({ method: 'GET', path: '/v1/transaction/', status: 401 });
    const ids = service.output.filter((l) => l.includes('"request completed"')).map((l) => (JSON.parse(l) as AccessLine).reqId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(service.output.join('\n')).not.toContain(token);
  });

  it('logs a dashboard invite\'s path without its token', async () => {
    const token = 'Inv1teT0kenInv1teT0kenInv1teT0kenInv1teT0k';
    const res = await fetch(`${service.url}/dashboard/invite/${token}/`);
    await res.arrayBuffer();
    expect(await lineOf(res)).toMatchObject({ method: 'GET', path: '/dashboard/invite/:token/', status: 404 });
    expect(service.output.join('\n')).not.toContain(token);
  });

  it('logs a request whose client left before the answer as aborted', async () => {
    const { hostname, port } = new URL(service.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers, then the start of a body once the server has taken the request (its
    // "100 Continue" is the sentinel), then gone: the body parser is still waiting.
    const taken = new Promise((resolve) => socket.once('data', resolve));
    socket.write(`POST /v1/transaction/?lost=1 HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: 500\r\nExpect: 100-continue\r\n\r\n`);
    expect(String(await taken)).toMatch(/^HTTP\/1\.1 100 Continue/);
    socket.write('{"currency":');
    socket.destroy();
    await expect
      .poll(() => service.output.map((l) => JSON.parse(l) as AccessLine).find((l) => l.msg === 'request aborted'), { timeout: 5_000 })
      .toMatchObject({ method: 'POST', path: '/v1/transaction/', reqId: expect.any(String) });
  });

  it('never logs keys, cards or bodies', async () => {
    const number = TEST_CARDS.approved;
    const res = await fetch(`${service.url}/v1/authorization/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ gateway: SANDBOX_CARD, card: { number, expiry: '12/34', cvc: '987', name: 'Ada Lovelace' } }),
    });
    expect(res.status, await res.text()).toBe(201);
    await lineOf(res);
    const log = service.output.join('\n');
    for (const secret of [secretKey, number, 'Ada Lovelace', 'AppKeys']) expect(log).not.toContain(secret);
  });
});
