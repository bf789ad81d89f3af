import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../server/notify/address';
import { postNotification } from '../../server/notify/deliver';
import { signatureHeaders } from '../../server/notify/signing';
import { RETRY_DELAYS_MS, retryAt } from '../../server/notify/worker';
import { newWebhookSecret } from '../../server/store/environments';

describe('notification addresses', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['8.8.8.8', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['64:ff9b::7f00:1', false], // NAT64 of 127.0.0.1
    ['64:ff9b::a00:1', false], // NAT64 of 10.0.0.1
    ['2002:7f00:1::1', false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', false], // 6to4 of 192.168.1.1
    ['64:ff9b:1::a00:1', false], // NAT64 local-use prefix (RFC 8215) of 10.0.0.1
    ['64:ff9b:1:ffff::1', false],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', false], // Teredo of 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:3f57:fefd', false], // Teredo of 192.168.1.2
    ['2001:4860:4860::8888', true], // outside Teredo's /32
    ['::7f00:1', false], // IPv4-compatible 127.0.0.1
    ['::a00:1', false],
    ['fec0::1', false], // site-local
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('postNotification', () => {
  let url = '';
  let hits = 0;
  let connections = 0;
  /** Requests per connection: the endpoint closes a kept one when asked (`closeKept`). */
  const served = new Map<Socket, number>();
  let closeKept = false;
  const server = createServer((req, res) => {
    hits++;
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    // As a server that closed an idle connection while the request was on its way.
    if (closeKept && n > 1) return void req.socket.destroy();
    req.resume().on('end', () => res.writeHead(204).end());
  });
  server.on('connection', () => connections++);
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('resolves names itself and refuses one that resolves to loopback, without connecting', async () => {
    const res = await postNotification(url, '{}', {}, { allowPrivate: false, timeoutMs: 10_000 });
    expect(res).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused/) });
    const literal = await postNotification(url.replace('localhost', '127.0.0.1'), '{}', {}, { allowPrivate: false, timeoutMs: 10_000 });
    expect(literal.error).toMatch(/^refused/);
    expect(hits).toBe(0);
  });

  it('delivers to a private address when allowed', async () => {
    expect(await postNotification(url, '{}', {}, { allowPrivate: true, timeoutMs: 10_000 })).toMatchObject({ statusCode: 204, error: null });
    expect(hits).toBe(1);
  });

  it('keeps the connection for the next deliveries, and never lends it to one the address rule refuses', async () => {
    expect(await postNotification(url, '{}', {}, { allowPrivate: true, timeoutMs: 10_000 })).toMatchObject({ statusCode: 204 });
    const before = connections;
    for (let i = 0; i < 3; i++) expect(await postNotification(url, '{}', {}, { allowPrivate: true, timeoutMs: 10_000 })).toMatchObject({ statusCode: 204 });
    expect(connections).toBe(before);
    const hitsBefore = hits;
    expect(await postNotification(url, '{}', {}, { allowPrivate: false, timeoutMs: 10_000 })).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused/) });
    expect(hits).toBe(hitsBefore);
  });

  it('sends once more, on a new connection, when the endpoint had closed the kept one', async () => {
    expect(await postNotification(url, '{}', {}, { allowPrivate: true, timeoutMs: 10_000 })).toMatchObject({ statusCode: 204 });
    closeKept = true;
    const before = connections;
    expect(await postNotification(url, '{"retried":true}', {}, { allowPrivate: true, timeoutMs: 10_000 })).toMatchObject({ statusCode: 204, error: null });
    expect(connections - before).toBe(1);
    closeKept = false;
  });
});

describe('signatures and schedule', () => {
  it('signs what the standardwebhooks verifier accepts', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'e1', type: 'transaction.paid', created: new Date().toISOString(), data: { a: 'ü' } });
    const headers = signatureHeaders(secret, 'e1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 %), then gives up', () => {
    const now = new Date(0);
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      expect(retryAt(i + 1, now, () => 0)!.getTime()).toBe(Math.round(delay * 0.9));
      expect(retryAt(i + 1, now, () => 1)!.getTime()).toBe(Math.round(delay * 1.1));
    }
    expect(retryAt(8, now, () => 0.5)).toBeNull();
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) * 0.9;
    expect(total).toBeGreaterThan(24 * 60 * 60 * 1000);
  });
});
