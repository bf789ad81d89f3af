import { describe, expect, it } from 'vitest';
import { type Bench, booksAgree } from './processor-matrix';
import { type ProcessorShop, SETTLE_WINDOW_MS } from './processor-shop';

// The fault matrix's charge of a saved card with the real processors' connectors: a card
// saved through the save page and the processor's page, then charged by the merchant with
// `POST /v1/authorization/{id}/charge/` (Redsys: a merchant-initiated REST payment with the
// card's identifier; Stripe: an off-session PaymentIntent on the card's Customer), under an
// Idempotency-Key. The faults, as processor-matrix.ts's on actions:
// - `kill-before`: SIGKILL while the processor holds the charge before making it (then cut:
//   never made); `kill-during`: while it holds its answer after making it; `kill-after`:
//   once the sale is on our books;
// - `lose`: made, its answer lost by a cut connection; `fail-after`: made, answered by a 500;
// - `refuse`: refused before it is made; `decline`: declined by the card's issuer.
// After each case the processor charged the card once or not at all, our sales of the card
// say the same (a made charge `captured` once, one never made `failed` or none, a decline
// `declined`), nothing is left pending, and the same key later answers the same sale
// without asking the processor again.

const CHARGE_FAULTS = ['kill-before', 'kill-during', 'kill-after', 'lose', 'fail-after', 'refuse', 'decline'] as const;
export type ChargeFault = (typeof CHARGE_FAULTS)[number];
const POLL = { timeout: 60_000, interval: 250 };
/** 4.00 EUR, in minor units at the processor. */
const AMOUNT = 4;
const MINOR = 400;
const MADE: ReadonlySet<ChargeFault> = new Set(['kill-during', 'kill-after', 'lose', 'fail-after']);
/** The live request's answer, when the service lives to give it. */
const FIRST_ANSWER: Partial<Record<ChargeFault, number>> = { lose: 202, 'fail-after': 202, refuse: 502, decline: 402 };

/** Our sales charged to the card: status and captured, minor units. */
async function chargesOf(shop: ProcessorShop, authorization: string) {
  const sales = (await shop.api.get(`/sale/?authorization_id=${authorization}&page_size=100`)).body.results as { id: string; status: string; captured: number; transaction_id: string | null }[];
  return sales.filter((s) => s.transaction_id === null).map((s) => ({ id: s.id, status: s.status, captured: Math.round(s.captured * 100) }));
}

/** Each fault of `faults` on a charge of a saved card. */
export function chargeCases({ p, shop, forAPerson }: Bench, faults: readonly ChargeFault[] = CHARGE_FAULTS) {
  describe(`${p.name} charge of a saved card`, () => {
    it.each(faults)('%s', { timeout: 120_000 }, async (fault) => {
      // Both clocks move together: Stripe's lookup lists the PaymentIntents created since the call, by the service's clock.
      const advance = (ms: number) => {
        shop.advance(ms);
        p.clockAt(shop.elapsed());
      };
      advance(0);
      const card = await p.saveCard(shop, fault === 'decline');
      const charge = () =>
        shop.api.post(`/authorization/${card.authorization}/charge/`, { amount: AMOUNT, currency: 'EUR' }, { 'idempotency-key': `fault-charge-${fault}-${card.authorization}` });
      // What the processor tells by notification (Stripe's events) comes late: the service settles the call by asking it.
      if (fault !== 'kill-after') p.holdNotifications();

      if (fault === 'kill-before' || fault === 'kill-during') {
        const held = p.hold('charge', fault === 'kill-during');
        const answer = charge().catch(() => null);
        await held.arrived;
        await shop.kill(async () => {
          await answer;
          held.release();
        });
      } else if (fault === 'kill-after') {
        const answer = await charge();
        expect(answer.status, answer.text).toBe(201);
        await shop.kill();
      } else {
        if (fault === 'refuse') p.refuse('charge');
        if (fault === 'lose' || fault === 'fail-after') p.lose('charge', fault === 'lose' ? 'cut' : '500');
        const answer = await charge();
        expect(answer.status, answer.text).toBe(FIRST_ANSWER[fault]);
      }

      const made = MADE.has(fault);
      const expected = made ? ['captured'] : fault === 'decline' ? ['declined'] : fault === 'refuse' ? [] : ['failed'];
      await expect
        .poll(async () => {
          // Time passes for the service: past the claim, the settle window and each recheck's wait.
          advance(SETTLE_WINDOW_MS);
          return (await chargesOf(shop, card.authorization)).map((s) => s.status);
        }, POLL)
        .toEqual(expected);
      await p.sendNotifications();
      expect(p.cardCharges(card.handle), 'charged at the processor').toEqual(made ? [MINOR] : []);
      const [sale] = await chargesOf(shop, card.authorization);
      expect(sale?.captured ?? 0).toBe(made ? MINOR : 0);

      // The same key, later: a made charge answers its sale, the processor not asked again.
      advance(120_000);
      const sent = p.sent('charge', card.handle);
      const again = await charge();
      if (made) {
        expect([again.status, again.body.id], again.text).toEqual([201, sale!.id]);
        expect(p.sent('charge', card.handle)).toBe(sent);
      }
      // Whatever a retry of one not made did, both books agree once it settles.
      await expect
        .poll(async () => {
          advance(SETTLE_WINDOW_MS);
          return (await chargesOf(shop, card.authorization)).some((s) => s.status === 'pending');
        }, POLL)
        .toBe(false);
      const captured = (await chargesOf(shop, card.authorization)).reduce((sum, s) => sum + s.captured, 0);
      expect(p.cardCharges(card.handle).reduce((sum, a) => sum + a, 0)).toBe(captured);
      await booksAgree(shop, forAPerson);
    });
  });
}
