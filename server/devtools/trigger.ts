import { parseArgs } from 'node:util';
import { connect, type Connection } from './connection';

// npm run trigger -- <event type>: makes a real change in a sandbox environment through
// the public API, so that its event happens (and `npm run listen` forwards it). Payments
// use the approving test card of the first gateway that stores cards and declares one
// (`test_cards` on GET /v1/gateway/).

interface Obj {
  id: string;
}

interface GatewayInfo extends Obj {
  capabilities: { saved_cards: boolean };
  test_cards: { number: string; behaviour: string }[];
}

/** A stored card (authorization.created), with the environment's first gateway that can store an approving test card. */
async function storeCard(c: Connection): Promise<Obj> {
  const { results } = await c.call<{ results: GatewayInfo[] }>('GET', '/gateway/?page_size=100');
  for (const g of results) {
    const approved = g.test_cards.find((t) => t.behaviour === 'approved');
    if (g.capabilities.saved_cards && approved) {
      return c.call<Obj>('POST', '/authorization/', { gateway: g.id, card: { number: approved.number, expiry: '12/34', cvc: '123', name: 'Trigger' } });
    }
  }
  throw new Error('No gateway of this environment stores a test card: trigger works on a sandbox environment.');
}

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
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { api: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
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
