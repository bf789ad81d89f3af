import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { LoggedRequest } from '../stripe/server';
import { ENGINES } from './harness';
import { paidByCheckout, stripeTestKeys, useStripeShop } from './stripe-shop';

// The daily sweep per account (docs/processors.md "The daily sweep"): after account A is
// disconnected and account B of the same type connected, both gateways share an id. Each
// account's sweep lists its own time at Stripe and reads the figures of its own sales only,
// with its own key, A's while it is disconnected too; nothing is flagged. Over real HTTP
// against the Stripe double, which logs each request's key: the account asked.

const HOUR = 3_600_000;

describe.each(ENGINES)('The daily sweep of a disconnected Stripe account and of its successor on %s', (engine) => {
  const shop = useStripeShop(engine);
  async function sweep(): Promise<void> {
    for (let round = 0; round < 100 && (await shop.t.service.jobs.runOnce(JOB_NAMES.processorSweep)) > 0; round++);
  }
  /** Our clock and Stripe's, moved together: the sweep's window is ours, a charge's `created` Stripe's. */
  const advance = (ms: number) => {
    shop.clock.advance(ms);
    shop.double.books.advance(ms / 1000);
  };
  /** The reading after the payment fails, so its figures are left to the sweep. */
  const failFigures = () => shop.double.failNext({ method: 'GET', path: /^\/v1\/payment_intents\/pi_/, expand: 'latest_charge.balance_transaction' });
  const isFigures = (r: LoggedRequest) => r.method === 'GET' && /^\/v1\/payment_intents\/pi_/.test(r.path) && !!(r.params.expand as string[] | undefined)?.includes('latest_charge.balance_transaction');
  const isList = (r: LoggedRequest) => r.method === 'GET' && (r.path === '/v1/charges' || r.path === '/v1/refunds');
  const items = () => shop.t.service.deps.database.db.selectFrom('processor_attention').selectAll().where('environment_id', '=', shop.api.keys.environment_id).execute();
  const settlementOf = async (sale: string) => (await shop.api.get(`/sale/${sale}/`)).body.processor_settlement;

  /** Account B, connected by the first test after A's disconnect. */
  const b = stripeTestKeys();

  it('each account’s sweep asks its own key about its own payments only, A’s after its disconnect too, and flags nothing', async () => {
    const a = shop.keys;
    failFigures();
    const ofA = await paidByCheckout(shop);
    advance(HOUR);
    expect((await shop.api.delete(`/processor/${shop.processorId}/`)).status).toBe(204);
    advance(HOUR);
    const connected = await shop.api.post('/processor/', { type: 'stripe', ...b });
    expect(connected.status, connected.text).toBe(201);
    shop.double.addWebhookEndpoint(connected.body.webhook_url, b.webhook_secret);
    failFigures();
    const ofB = await paidByCheckout(shop);
    expect(ofB.sale.gateway).toBe(ofA.sale.gateway);
    expect([ofA.sale.processor_settlement.status, ofB.sale.processor_settlement.status]).toEqual(['pending', 'pending']);

    // Both sweeps are due (a day after each connect); neither has run yet.
    advance(25 * HOUR);
    const before = shop.double.requests.length;
    await sweep();
    const swept = shop.double.requests.slice(before);
    const figuresReadWith = (key: string) => swept.filter((r) => r.key === key && isFigures(r)).map((r) => r.path.split('/').pop());
    expect(figuresReadWith(a.secret_key)).toEqual([ofA.paymentIntent]);
    expect(figuresReadWith(b.secret_key)).toEqual([ofB.paymentIntent]);
    // Each lists its charges and refunds once, A's no later than its disconnect.
    const listsWith = (key: string) => swept.filter((r) => r.key === key && isList(r));
    expect(listsWith(a.secret_key).map((r) => r.path)).toEqual(['/v1/charges', '/v1/refunds']);
    expect(listsWith(b.secret_key).map((r) => r.path)).toEqual(['/v1/charges', '/v1/refunds']);
    const disconnectedAt = Date.parse((await shop.t.service.deps.database.db.selectFrom('processors').select('deleted_at').where('id', '=', shop.processorId).executeTakeFirstOrThrow()).deleted_at!);
    for (const list of listsWith(a.secret_key)) expect(Number((list.params.created as { lte: string }).lte)).toBeLessThanOrEqual(disconnectedAt / 1000);

    expect(await items()).toEqual([]);
    expect(await settlementOf(ofA.sale.id)).toMatchObject({ status: 'known' });
    expect(await settlementOf(ofB.sale.id)).toMatchObject({ status: 'known' });
  });

  it('a sale that names no account (made before migration 138) is swept by the account it reaches: the connected one, B', async () => {
    failFigures();
    const old = await paidByCheckout(shop);
    await shop.t.service.deps.database.db.updateTable('sales').set({ gateway_account: null }).where('id', '=', old.sale.id).execute();
    advance(25 * HOUR);
    const before = shop.double.requests.length;
    await sweep();
    // A is still swept (disconnected a day ago): it reads nothing of it.
    const swept = shop.double.requests.slice(before);
    expect(swept.some((r) => r.key === shop.keys.secret_key && isList(r))).toBe(true);
    expect(swept.filter((r) => isFigures(r) && r.path.endsWith(old.paymentIntent)).map((r) => r.key)).toEqual([b.secret_key]);
    expect(await settlementOf(old.sale.id)).toMatchObject({ status: 'known' });
    expect(await items()).toEqual([]);
  });

  it('more than 3 days after its disconnect, A’s window is empty: Stripe is not asked to list it, its payouts are still read', async () => {
    // A was disconnected about two days ago (the tests above); a day more leaves its window, 3 days back, starting after its disconnect.
    advance(25 * HOUR);
    const before = shop.double.requests.length;
    await sweep();
    const swept = shop.double.requests.slice(before);
    const pathsWith = (key: string) => swept.filter((r) => r.key === key && r.method === 'GET').map((r) => r.path);
    expect(pathsWith(shop.keys.secret_key)).toEqual(['/v1/payouts']);
    expect(swept.filter((r) => r.key === b.secret_key && isList(r)).map((r) => r.path)).toEqual(['/v1/charges', '/v1/refunds']);
    expect(await items()).toEqual([]);
  });
});
