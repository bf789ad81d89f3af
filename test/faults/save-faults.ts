import { describe, expect, it } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { back, onCheckout } from '../api/stripe-shop';
import { type PaymentFault } from './payment-faults';
import { type Bench, booksAgree } from './processor-matrix';
import { SETTLE_WINDOW_MS } from './processor-shop';
import type { stripeProcessor } from './processors';

// The fault matrix's card-saving route with the Stripe connector: the hosted save page
// (`POST /v1/authorization/` without a card, then its page without JavaScript), whose pay
// post makes a Checkout Session in setup mode and sends the customer to Stripe's page. The
// start faults of the payment routes (payment-faults.ts) on that session's creation: its
// answer lost by a cut connection (`lose-start`), by a 500 kept for its Idempotency-Key
// (`fail-start`), or cut and then the service SIGKILLed before reconciliation asked Stripe
// (`lose-start-kill`). After each case: no setup session of it left open at Stripe (where a
// card could still be saved), the store call proven failed (none pending: the page waits for
// a card again, its authorization `pending` as after a declined card, docs/payments.md), the
// customer saves a card on the same page, nothing pending, no key in the output.

type StartFault = Extract<PaymentFault, 'lose-start' | 'fail-start' | 'lose-start-kill'>;
const SESSIONS = { method: 'POST' as const, path: /^\/v1\/checkout\/sessions$/ };
const SAVED = 'https://shop.example/saved';
const POLL = { timeout: 60_000, interval: 250 };

type StripeBench = Bench<ReturnType<typeof stripeProcessor>>;

export function saveCases({ p, shop, forAPerson }: StripeBench, faults: readonly StartFault[]) {
  describe(`${p.name} card saved on the hosted save page`, () => {
    it.each(faults)('%s', { timeout: 120_000 }, async (fault) => {
      const double = p.double;
      const advance = (ms: number) => {
        shop.advance(ms);
        p.clockAt(shop.elapsed());
      };
      advance(0);
      const request = async () => {
        const res = await shop.api.post('/authorization/', { gateway: STRIPE_CARD_ID, return_url: SAVED });
        expect(res.status, res.text).toBe(201);
        return res.body as { id: string; token: string };
      };
      const card = await request();
      const sessionsBefore = new Set(double.books.checkoutSessions.keys());
      double.holdEvents = true;
      if (fault === 'fail-start') double.failNext(SESSIONS, { acted: true });
      else double.loseNext(SESSIONS);
      const answer = await p.payPost(shop, card.token);
      // No way to Stripe's page: the session's answer never reached the service.
      expect(answer.headers.get('location') ?? '').not.toMatch(new RegExp(`^${double.url}`));
      await answer.arrayBuffer();
      // Stripe made the session all the same.
      const made = [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id));
      expect(made.map((cs) => [cs.mode, cs.status])).toEqual([['setup', 'open']]);
      // The service's clock has not moved: its reconciliation has not asked Stripe yet.
      if (fault === 'lose-start-kill') await shop.kill();

      await expect
        .poll(async () => {
          advance(SETTLE_WINDOW_MS);
          return (await shop.calls(card.id)).filter((c) => c.state === 'pending' || c.state === 'attention').length;
        }, POLL)
        .toBe(0);
      const waiting = async () => [(await shop.calls(card.id)).map((c) => [c.kind, c.state]), (await shop.api.get(`/authorization/${card.id}/`)).body.status];
      expect(await waiting()).toEqual([[['store', 'failed']], 'pending']);
      await p.sendNotifications();
      double.holdEvents = false;
      const open = [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id) && cs.status === 'open').map((cs) => cs.id);
      expect(open, 'setup sessions left open at Stripe').toEqual([]);
      // Stripe's late events change nothing.
      expect(await waiting()).toEqual([[['store', 'failed']], 'pending']);

      // The customer tries again on the same page: to Stripe's page, and the card is saved.
      const started = await p.payPost(shop, card.token);
      expect(started.status, await started.clone().text()).toBe(303);
      expect((await back(await onCheckout(started.headers.get('location')!, 'pay'))).headers.get('location')).toBe(SAVED);
      expect((await shop.api.get(`/authorization/${card.id}/`)).body.status).toBe('active');
      expect([...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id)).map((cs) => cs.status)).toEqual(['expired', 'complete']);
      await booksAgree(shop, forAPerson);
    });
  });
}
