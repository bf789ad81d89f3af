import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { paidTransaction } from './pay';

// Holds expire: an uncaptured hold is voided by the hold-expiry job once HOLD_EXPIRY_MS
// (default 7 days) has passed on the service's clock, through the gateway's void; the sale
// says when, and `sale.hold_expired` reports it. Each hold is voided once, however many
// rounds run at the same time. A database of its own: the job takes every due hold.

const DAY = 86_400_000;

describe.each(ENGINES)('holds expire, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const clock = testClock();
  const expire = () => t.service.jobs.runOnce(JOB_NAMES.holdExpiry);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now: clock.now });
    api = await t.newEnvironment('Hotel');
  });
  afterAll(() => t?.close());

  const sale = async (id: string) => (await api.get(`/sale/${id}/`)).body;
  const NOTIFY = { notify_url: 'https://merchant.example/hooks' };
  const held = async () => (await paidTransaction(api, transactionBody({ authorize: true, ...NOTIFY }))).sale.id;

  it('voids an uncaptured hold after 7 days, once, with the sale dated and an event; captured money stays', async () => {
    const whole = await held();
    const part = await held();
    expect((await api.post(`/sale/${part}/capture/`, { amount: 5 })).status).toBe(200);
    const captured = (await paidTransaction(api, transactionBody())).sale.id;

    expect(await expire()).toBe(0);
    clock.advance(7 * DAY - 60_000);
    expect(await expire()).toBe(0);
    expect(await sale(whole)).toMatchObject({ status: 'held', held: 17, hold_expired: null });

    clock.advance(120_000);
    // Two rounds at once, as two processes would run them: each hold is taken by one.
    const [a, b] = await Promise.all([expire(), expire()]);
    expect(a + b).toBe(2);
    const voided = await sale(whole);
    expect(voided).toMatchObject({ status: 'voided', held: 0, captured: 0, voided: 17 });
    expect(Date.parse(voided.hold_expired)).toBeGreaterThanOrEqual(clock.now().getTime() - 60_000);
    expect(voided.operations.map((o: { kind: string }) => o.kind)).toEqual(['authorize', 'void']);
    expect(await sale(part)).toMatchObject({ status: 'captured', held: 0, captured: 5, voided: 12, refundable: 5 });
    expect((await sale(part)).hold_expired).not.toBeNull();
    expect(await sale(captured)).toMatchObject({ status: 'captured', hold_expired: null });

    for (const id of [whole, part]) {
      const events = await api.get(`/event/?object_id=${id}`);
      const types = events.body.results.map((e: { type: string }) => e.type);
      expect(types.filter((x: string) => x === 'sale.hold_expired')).toHaveLength(1);
      expect(types).toContain('sale.voided');
    }
    // Nothing left to expire: later rounds void nothing more.
    clock.advance(DAY);
    expect(await expire()).toBe(0);
    expect((await sale(whole)).operations).toHaveLength(2);
  });
});
