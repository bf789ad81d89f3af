import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { ENGINES } from './harness';
import { paidByCheckout, useStripeShop } from './stripe-shop';

// The daily sweep (docs/processors.md "The daily sweep"), over real HTTP against the Stripe
// double: the processor's charges and refunds of the last days, listed by their `created`
// window, compared with our books both ways; every difference is an attention item, once.

const HOUR = 3_600_000;
const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('Stripe daily sweep on %s', (engine) => {
  const shop = useStripeShop(engine);
  /**
   * Rounds of the sweep job until none is due (a round takes 5 processors: on PostgreSQL the
   * database also holds other test files' processors, which it sweeps against this double too).
   */
  async function sweep(): Promise<void> {
    for (let round = 0; round < 100 && (await shop.t.service.jobs.runOnce(JOB_NAMES.processorSweep)) > 0; round++);
  }
  const items = () => shop.t.service.deps.database.db.selectFrom('processor_attention').selectAll().where('processor_id', '=', shop.processorId).where('event_type', '=', 'sweep').execute();

  it('finds a charge we never recorded, a refund we were never told of, a capture that differs and a sale Stripe does not have; once a day, once each', async () => {
    // Ours, and right: no difference.
    await paidByCheckout(shop);
    // A sale whose capture Stripe holds otherwise, and one Stripe does not have at all.
    const differs = await paidByCheckout(shop);
    shop.double.books.charges.get(differs.charge)!.amount_captured = 1000;
    const vanished = await paidByCheckout(shop);
    shop.double.books.charges.delete(vanished.charge);
    // A charge made at Stripe with the shop's key, never by this service.
    const url = new URL(shop.double.url);
    const stripe = new Stripe(shop.keys.secret_key, { apiVersion: '2026-10-28.endive', host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
    const stranger = await stripe.paymentIntents.create({ amount: 4200, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    // A refund made at Stripe whose events never arrive (held until the end).
    const quiet = await paidByCheckout(shop);
    shop.double.holdEvents = true;
    const silent = await stripe.refunds.create({ payment_intent: quiet.paymentIntent, amount: 300 });
    expect(await items()).toEqual([]);

    // A processor is first swept a day after it was connected; the newest hour is never swept.
    const mine = () => shop.double.requests.filter((r) => r.key === shop.keys.secret_key && r.method === 'GET' && (r.path === '/v1/charges' || r.path === '/v1/refunds'));
    await sweep();
    expect(mine()).toEqual([]);
    shop.clock.advance(25 * HOUR);
    await sweep();
    const found = await items();
    const bySubject = new Map(found.map((i) => [i.subject, i.why]));
    expect(bySubject.get(stranger.latest_charge as string)).toContain('a charge at the processor (4200 EUR minor units) that our books do not have');
    expect(bySubject.get(silent.id)).toContain('a refund at the processor (300 EUR minor units) that our books do not have');
    expect(bySubject.get(differs.charge)).toContain(`captured 1000 EUR minor units at the processor, 1700 in our books (sale ${differs.sale.id})`);
    expect(bySubject.get(vanished.sale.id)).toContain(`records a payment (${vanished.paymentIntent}) the processor does not list`);
    expect(found).toHaveLength(4);
    expect(found.every((i) => i.event_id === null && i.environment_id === shop.api.keys.environment_id)).toBe(true);
    // Listed by the created window, never searched.
    const lists = mine();
    expect(lists.map((r) => r.path)).toEqual(['/v1/charges', '/v1/refunds']);
    expect(lists[0]!.params).toMatchObject({ created: { gte: expect.any(String), lte: expect.any(String) }, expand: ['data.payment_intent'] });
    expect(shop.double.requests.some((r) => r.path.includes('/search'))).toBe(false);

    // Not due again for a day; then the same differences add nothing.
    await sweep();
    expect(mine()).toHaveLength(2);
    shop.clock.advance(25 * HOUR);
    await sweep();
    expect(mine()).toHaveLength(4);
    expect(await items()).toHaveLength(4);
    shop.double.holdEvents = false;
    await shop.double.deliverEvents();
  });

  it('the double refuses a created window that is not a range of integers, as Stripe does', async () => {
    const res = await fetch(`${shop.double.url}/v1/charges?created[gte]=yesterday`, { headers: { authorization: `Bearer ${shop.keys.secret_key}`, 'content-type': FORM } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'parameter_invalid_integer', param: 'created[gte]' });
  });
});
