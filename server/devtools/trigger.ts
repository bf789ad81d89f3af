import { parseArgs } from 'node:util';
import { TEST_CARDS } from '../payments/sandbox';
import { connect, type Connection } from './connection';

// npm run trigger -- <event type>: makes a real change in a sandbox environment through
// the public API, so that its event happens (and `npm run listen` forwards it). Payments
// use the sandbox card gateway's approving test card.

const SANDBOX_CARD_GATEWAY = '0190f5a0-0000-7000-8000-000000000001';
const card = { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Trigger' };

interface Obj {
  id: string;
}

/** A stored card of the sandbox gateway (authorization.created). */
const storeCard = (c: Connection) => c.call<Obj>('POST', '/authorization/', { gateway: SANDBOX_CARD_GATEWAY, card });

/** A sale charged to a stored card (authorization.charged, sale.created). */
async function chargedSale(c: Connection): Promise<Obj> {
  const authorization = await storeCard(c);
  return c.call<Obj>('POST', `/authorization/${authorization.id}/charge/`, { amount: 10, currency: 'EUR' });
}

/** What each supported event type takes, and what to say about it. */
const TRIGGERS: Record<string, (c: Connection) => Promise<string>> = {
  async 'transaction.paid'(c) {
    // Paid at creation from a stored card: a transaction's `source`.
    const authorization = await storeCard(c);
    const tx = await c.call<Obj & { status: string }>('POST', '/transaction/', {
      currency: 'EUR',
      order_id: `trigger-${Date.now()}`,
      products: [{ amount: 1, product: { name: 'Triggered product', price: 10 } }],
      source: [{ authorization_id: authorization.id, amount: 10 }],
    });
    return `transaction ${tx.id} (status ${tx.status})`;
  },
  async 'authorization.created'(c) {
    return `authorization ${(await storeCard(c)).id}`;
  },
  async 'authorization.charged'(c) {
    return `sale ${(await chargedSale(c)).id}`;
  },
  async 'sale.created'(c) {
    return `sale ${(await chargedSale(c)).id}`;
  },
  async 'sale.refunded'(c) {
    const sale = await chargedSale(c);
    await c.call('POST', `/sale/${sale.id}/refund/`, { amount: 10 });
    return `sale ${sale.id}, refunded`;
  },
};

const USAGE = `Usage: npm run trigger -- <event type> [--api <service URL>] [--key <public key>:<secret key>]
Event types: ${Object.keys(TRIGGERS).join(', ')}
--api and --key default to PAYMENT_API_URL and PAYMENT_KEY; the environment must be a sandbox.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { api: { type: 'string' }, key: { type: 'string' } } });
  const trigger = TRIGGERS[positionals[0] ?? ''];
  if (!trigger || positionals.length !== 1) {
    process.stderr.write(`${positionals[0] ? `Cannot trigger ${positionals[0]}.\n` : ''}${USAGE}\n`);
    return 2;
  }
  const what = await trigger(connect(values, process.env));
  process.stdout.write(`Triggered ${positionals[0]}: ${what}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
