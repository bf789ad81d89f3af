import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bundled } from '../server-bundle';

// A stand-in payment processor over HTTP, in the test process, for tests where the
// service is a child process that gets killed: what the processor did must outlive the
// service. It counts every request per reference, acts once per reference (idempotent, as
// a real processor is), keeps its books of what it did (`acts`), and misbehaves as told on
// every acting request (pay, store, capture, refund, void; `mode`): it can stall before
// acting (`stall`: the request is never acted on, as if it never left the service), act and
// hold its answer until the test lets it go (`hold`, or `holdPayments`), act and lose the
// answer (`lose`: the connection is cut), act late (`late`: nothing until `release()`,
// lookups say `not_found` meanwhile), act, lose the answer and tell only by a notification
// (`notify`: its lookups never find it; `notify(url)` posts the signed notifications),
// refuse before acting (`refuse`: a 400) or decline.

export const PROCESSOR_MODES = ['ok', 'stall', 'hold', 'lose', 'late', 'notify', 'refuse', 'decline'] as const;
export type ProcessorMode = (typeof PROCESSOR_MODES)[number];

/** The key the stand-in processor signs its notifications with (remote-gateway.ts verifies them). */
const NOTIFY_SECRET = 'stand-in-processor-notifications';
const signNotification = (body: string) => createHmac('sha256', NOTIFY_SECRET).update(body).digest('hex');

/** One thing the processor did, in its own books. */
export interface Act {
  path: '/pay' | '/store' | '/capture' | '/refund' | '/void';
  reference: string;
  /** Minor units (0 for a stored card). */
  amount: number;
  /** A payment: captured at once (or only held). */
  capture: boolean;
}

export interface Processor {
  url: string;
  /** How many charges (approved payments) the processor made, by our reference. */
  charges: Map<string, number>;
  /** Everything it did, once per reference, in order. */
  acts: Act[];
  /** Every request: path and reference. */
  requests: { path: string; reference: string }[];
  /** Hold the answer of the next payments until `release()` (the same as mode `hold`). */
  holdPayments: boolean;
  /** How the next acting requests go. */
  mode: ProcessorMode;
  /** Resolves when a request for `path` arrives (a sentinel). */
  next(path: string): Promise<{ reference: string }>;
  /** Answers every held request (to nobody, if its caller is gone), makes every late one, drops every stalled one. */
  release(): void;
  /** Posts the notification of everything acted in mode `notify` to the service at `serviceUrl`; resolves with the answers' statuses. */
  notify(serviceUrl: string): Promise<number[]>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const ACTING = new Set(['/pay', '/store', '/capture', '/refund', '/void']);

export async function startProcessor(): Promise<Processor> {
  /** What a lookup answers, per reference. */
  const done = new Map<string, Record<string, unknown>>();
  /** References acted on in mode `notify`: lookups never find them, only a notification tells. */
  const silent = new Map<string, Record<string, unknown>>();
  const held: (() => void)[] = [];
  const waiting: { path: string; resolve: (r: { reference: string }) => void }[] = [];
  const processor: Omit<Processor, 'url' | 'close'> = {
    charges: new Map(),
    acts: [],
    requests: [],
    holdPayments: false,
    mode: 'ok',
    next: (path) => new Promise((resolve) => waiting.push({ path, resolve })),
    release: () => held.splice(0).forEach((answer) => answer()),
    async notify(serviceUrl) {
      const statuses: number[] = [];
      for (const [reference, result] of silent) {
        const body = JSON.stringify({ reference, ...result });
        const res = await fetch(`${serviceUrl}/gateways/remote-card/notify`, { method: 'POST', headers: { 'processor-signature': signNotification(body) }, body });
        statuses.push(res.status);
      }
      return statuses;
    },
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const reference = String(body.reference ?? '');
    processor.requests.push({ path, reference });
    for (const w of waiting.splice(0)) {
      if (w.path === path) w.resolve({ reference });
      else waiting.push(w);
    }
    const reply = (value: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(value));
    };
    if (path === '/lookup') return reply(silent.has(reference) ? { status: 'not_found' } : (done.get(reference) ?? { status: 'not_found' }));
    if (!ACTING.has(path)) {
      res.statusCode = 404;
      return reply({ error: 'no such path' });
    }
    const amount = Number(body.amount ?? 0);
    const processorRef = path === '/pay' ? `proc_${reference}` : `proc_${path.slice(1)}_${reference}`;
    const approved = path === '/pay' || path === '/store';
    const card = path === '/store' ? { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 } : null;
    const answer = () => reply(approved ? { outcome: 'approved', reference: processorRef, card } : { ok: true, reference: processorRef });
    const act = () => {
      if (done.has(reference)) return;
      done.set(reference, { status: 'succeeded', reference: processorRef, card });
      processor.acts.push({ path: path as Act['path'], reference, amount, capture: body.capture !== false });
      if (path === '/pay') processor.charges.set(reference, (processor.charges.get(reference) ?? 0) + 1);
    };
    const mode = processor.holdPayments && path === '/pay' ? 'hold' : done.has(reference) ? 'ok' : processor.mode;
    switch (mode) {
      case 'refuse':
        res.statusCode = 400;
        return reply({ error: 'refused before acting' });
      case 'decline':
        done.set(reference, { status: 'failed', reason: 'declined', card: null });
        return reply(approved ? { outcome: 'declined', card: null } : { ok: false, reason: 'declined' });
      case 'stall':
        // Never acted on: dropped when released, as if the request had never left the service.
        return void held.push(() => res.destroy());
      case 'late':
        // Nothing now; made when the test releases it, long after the caller gave up.
        return void held.push(() => {
          act();
          res.destroy();
        });
      case 'notify':
        act();
        silent.set(reference, { status: 'succeeded', payment: processorRef });
        return void res.destroy();
      case 'lose':
        act();
        return void res.destroy();
      case 'hold':
        // Acted at once; only its answer is held.
        act();
        return void held.push(answer);
      case 'ok':
        act();
        return answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(processor, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What a service process needs to pay through `processor` (the adapter in remote-gateway.ts), with its timeout and claim. */
export function remoteGatewayEnv(processor: Processor, t: { timeoutMs: number; claimMs: number }) {
  return {
    GATEWAY_MODULES: bundled('remote-gateway'),
    GATEWAY_SETTINGS: JSON.stringify({ url: processor.url, notifySecret: NOTIFY_SECRET }),
    GATEWAY_TIMEOUT_MS: String(t.timeoutMs),
    PAYMENT_CLAIM_MS: String(t.claimMs),
  };
}
