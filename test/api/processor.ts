import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// A stand-in payment processor over HTTP, in the test process, for tests where the
// service is a child process that gets killed: what the processor did must outlive the
// service. It counts every request per reference, acts once per reference (idempotent, as
// a real processor is), and can hold a payment's answer until the test lets it go.

export interface Processor {
  url: string;
  /** How many charges (approved payments) the processor made, by our reference. */
  charges: Map<string, number>;
  /** Every request: path and reference. */
  requests: { path: string; reference: string }[];
  /** Hold the answer of the next payments until `release()`. */
  holdPayments: boolean;
  /** Resolves when a request for `path` arrives (a sentinel). */
  next(path: string): Promise<{ reference: string }>;
  /** Answers every held payment (to nobody, if its caller is gone). */
  release(): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function startProcessor(): Promise<Processor> {
  const done = new Map<string, unknown>();
  const held: (() => void)[] = [];
  const waiting: { path: string; resolve: (r: { reference: string }) => void }[] = [];
  const processor: Omit<Processor, 'url' | 'close'> = {
    charges: new Map(),
    requests: [],
    holdPayments: false,
    next: (path) => new Promise((resolve) => waiting.push({ path, resolve })),
    release: () => held.splice(0).forEach((answer) => answer()),
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
    if (path === '/lookup') return reply(done.get(reference) ?? { status: 'not_found' });
    if (path === '/pay') {
      // The charge happens at once; only its answer may be held.
      if (!done.has(reference)) {
        done.set(reference, { status: 'succeeded', reference: `proc_${reference}`, card: null });
        processor.charges.set(reference, (processor.charges.get(reference) ?? 0) + 1);
      }
      const answer = () => reply({ outcome: 'approved', reference: `proc_${reference}`, card: null });
      if (processor.holdPayments) return void held.push(answer);
      return answer();
    }
    // capture, refund, void
    if (!done.has(reference)) done.set(reference, { status: 'succeeded', reference: `proc_${path.slice(1)}_${reference}`, card: null });
    reply({ ok: true, reference: `proc_${path.slice(1)}_${reference}` });
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
    GATEWAY_MODULES: fileURLToPath(new URL('./remote-gateway.ts', import.meta.url)),
    GATEWAY_SETTINGS: JSON.stringify({ url: processor.url }),
    GATEWAY_TIMEOUT_MS: String(t.timeoutMs),
    PAYMENT_CLAIM_MS: String(t.claimMs),
  };
}
