import { describe, expect, it } from 'vitest';
import { dashboardText } from '../../server/dashboard/i18n';
import { JOB_NAMES } from '../../server/jobs';
import { member } from './dashboard';
import { ENGINES } from './harness';
import { useStripeShop } from './stripe-shop';

// Stripe's own payouts (docs/processors.md "The processor's payouts"), over real HTTP against
// the Stripe double: the daily sweep lists those of the last 30 days into the environment's
// `processor_payouts`, one row per payout, a status that moved overwritten, nothing added by
// a reading that finds nothing new; the Balance page shows them as last read (arrival in the
// shop's time zone, the amount as money, the status in words), read-only, and never asks
// Stripe while it renders.

const HOUR = 3_600_000;
const DAY_S = 24 * 3600;
const ZONE = 'Pacific/Auckland';

describe.each(ENGINES)('Stripe’s payouts on %s', (engine) => {
  const shop = useStripeShop(engine);
  async function sweep(): Promise<void> {
    for (let round = 0; round < 100 && (await shop.t.service.jobs.runOnce(JOB_NAMES.processorSweep)) > 0; round++);
  }
  const rows = () => shop.t.service.deps.database.db.selectFrom('processor_payouts').selectAll().where('processor_id', '=', shop.processorId).orderBy('payout_created_at').execute();
  const payoutLists = () => shop.double.requests.filter((r) => r.key === shop.keys.secret_key && r.path.startsWith('/v1/payouts'));
  /** The processor part of the Balance page, for a viewer signed in now (the clock moves days: a session would expire). */
  async function processorPart(): Promise<string> {
    const { browser } = await member(shop.t, shop.api, 'viewer');
    const before = shop.double.requests.length;
    const page = await browser.get('/dashboard/balance/');
    expect(page.status).toBe(200);
    // Rendered from the table: the page asks Stripe nothing.
    expect(shop.double.requests.length).toBe(before);
    return page.text.slice(page.text.indexOf('id="bal-processor"'));
  }

  it('the sweep reads them into the table, overwrites a status that moved, adds nothing on a reading with nothing new; the page shows them read-only', async () => {
    const { browser: owner } = await member(shop.t, shop.api, 'owner');
    expect((await owner.post('/dashboard/settings/time-zone/', { time_zone: ZONE })).status).toBe(303);
    const empty = await processorPart();
    expect(empty).toContain('payouts appear after its next daily read.');
    expect(empty).not.toContain('data-testid="processor-payouts"');

    const now = shop.double.books.now();
    const paid = shop.double.payOut({ amount: 5000, currency: 'eur', created: now - 3 * DAY_S, status: 'paid' });
    const moving = shop.double.payOut({ amount: 1234, currency: 'eur', created: now - DAY_S });
    // Older than the 30 days the sweep reads again: never listed.
    shop.double.payOut({ amount: 999, currency: 'eur', created: now - 40 * DAY_S, status: 'paid' });

    shop.clock.advance(25 * HOUR);
    await sweep();
    expect(payoutLists().map((r) => r.path)).toEqual(['/v1/payouts']);
    expect(payoutLists()[0]!.params).toMatchObject({ created: { gte: expect.any(String) }, limit: '100' });
    const first = await rows();
    expect(first.map((r) => [r.payout, Number(r.amount), r.currency, r.status, r.environment_id])).toEqual([
      [paid.id, 5000, 'EUR', 'paid', shop.api.keys.environment_id],
      [moving.id, 1234, 'EUR', 'in_transit', shop.api.keys.environment_id],
    ]);
    expect(first[1]!.arrival_date).toBe(new Date(moving.arrival_date * 1000).toISOString());

    const page = await processorPart();
    const text = dashboardText('en', ZONE);
    expect(page).toContain(`<tr data-processor-payout="${moving.id}"><th scope="row">Stripe</th><td>${text.dateTime(first[1]!.arrival_date)}</td><td>€12.34</td><td>On its way to your bank</td></tr>`);
    expect(page).toContain(`<tr data-processor-payout="${paid.id}"><th scope="row">Stripe</th><td>${text.dateTime(first[0]!.arrival_date)}</td><td>€50.00</td><td>Paid</td></tr>`);
    expect(page).not.toContain('<form');

    // Stripe's bank returns the payout: the next day's reading overwrites its row.
    Object.assign(shop.double.books.payouts.get(moving.id)!, { status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.' });
    shop.clock.advance(25 * HOUR);
    await sweep();
    const second = await rows();
    expect(second).toHaveLength(2);
    expect(second[1]).toMatchObject({ id: first[1]!.id, status: 'failed', failure_message: 'The bank account has been closed.' });
    expect(second[0]).toEqual(first[0]);
    expect(await processorPart()).toContain('<strong class="overdue">Failed: the money is back in your processor account: The bank account has been closed.</strong>');

    // A reading with nothing new changes nothing.
    shop.clock.advance(25 * HOUR);
    await sweep();
    expect(payoutLists()).toHaveLength(3);
    expect(await rows()).toEqual(second);
  });
});
