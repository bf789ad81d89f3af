import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bundled } from '../server-bundle';

// A stand-in payout provider over HTTP, in the test process, for tests where the service is
// a child process that gets killed or runs twice: what the bank did must outlive the
// service and be seen from both. It pays once per reference (a repeat answers as the
// first time, as the PayoutGateway contract asks), keeps its books (`paid`: how many times
// each reference was paid, which must never exceed 1) and every request, and can hold its
// answers after paying (`hold`) until the test lets them go.

export interface PayoutBank {
  url: string;
  /** Payments made, by reference. */
  paid: Map<string, number>;
  /** Every request's reference and amount (minor units), in order. */
  requests: { reference: string; amount: number }[];
  /** Pay and hold the answer until `release()` (the caller may be dead by then). */
  hold: boolean;
  /** Resolves at the next request (a sentinel). */
  next(): Promise<{ reference: string }>;
  release(): void;
  close(): Promise<void>;
}

export async function startPayoutBank(): Promise<PayoutBank> {
  const held: (() => void)[] = [];
  const waiting: ((r: { reference: string }) => void)[] = [];
  const bank = {
    paid: new Map<string, number>(),
    requests: [] as { reference: string; amount: number }[],
    hold: false,
    next: () => new Promise<{ reference: string }>((resolve) => waiting.push(resolve)),
    release: () => held.splice(0).forEach((answer) => answer()),
  };
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text || '{}') as { reference: string; amount: number };
    bank.requests.push({ reference: body.reference, amount: body.amount });
    for (const w of waiting.splice(0)) w({ reference: body.reference });
    if (!bank.paid.has(body.reference)) bank.paid.set(body.reference, 1);
    const answer = () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, reference: `bank_${body.reference}` }));
    };
    if (bank.hold) return void held.push(answer);
    answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(bank, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What a service process needs to pay out through `bank` (remote-payouts.ts, loaded by PAYOUT_MODULE). */
export function payoutBankEnv(bank: PayoutBank, t: { timeoutMs: number; claimMs: number }) {
  return {
    PAYOUT_MODULE: bundled('remote-payouts'),
    GATEWAY_SETTINGS: JSON.stringify({ payoutUrl: bank.url }),
    GATEWAY_TIMEOUT_MS: String(t.timeoutMs),
    PAYMENT_CLAIM_MS: String(t.claimMs),
  };
}
