import { describe, expect, it } from 'vitest';
import { type Bench, booksAgree } from './processor-matrix';
import type { ProcessorShop } from './processor-shop';
import { newTransaction, type ProcessorUnderTest } from './processors';

// The fault matrix's payment route for the real processors' connectors: a payment by
// redirect (Stripe Checkout; Redsys's payment page), which the processor's notification
// (Stripe's event, Redsys's signed notification), the customer's return or, failing both,
// the reconciliation settles. The faults:
// - `kill-before`: the service is SIGKILLed before the processor acts (Stripe: its Checkout
//   Session is held before it is made, and never is; Redsys: the customer was given the
//   form to Redsys and never goes);
// - `kill-during`: the service is down while the customer pays on the processor's page (the
//   notification and the return find no one);
// - `kill-after`: killed once the payment is on our books;
// - `lose`: the processor's notification is lost and the customer never comes back;
// - `late`: the notification comes after the customer's return settled the payment;
// - `decline`: the card is declined (Stripe: the customer then goes back to the shop);
// - `refuse`: the processor refuses to start the payment (Stripe; Redsys is not asked then);
// - `lose-start`, `fail-start` (START_FAULTS, Stripe): the processor starts the payment (a
//   PaymentIntent, a Checkout Session) and its answer is lost, by a cut connection or a 500
//   that its Idempotency-Key keeps: the customer has nothing to pay with, and what was
//   started must not stay open;
// - `lose-start-kill` (RESTART_FAULTS, Stripe): the PaymentIntent or the Checkout Session
//   made, its answer lost by a cut connection, then the service SIGKILLed before the
//   reconciliation asked Stripe: the restarted service no longer knows what it sent.
// After each case: one payment at the processor or none, the same on our books, nothing left
// that could still charge the customer (a Checkout Session open), no call pending.

export const PAYMENT_FAULTS = ['kill-before', 'kill-during', 'kill-after', 'lose', 'late', 'decline', 'refuse'] as const;
/** The start's answer lost: for processors asked before the customer goes to pay (Stripe). */
export const START_FAULTS = ['lose-start', 'fail-start'] as const;
/** The start's answer lost, then a restart: what was started, no customer ever had. */
export const RESTART_FAULTS = ['lose-start-kill'] as const;
export type PaymentFault = (typeof PAYMENT_FAULTS)[number] | (typeof START_FAULTS)[number] | (typeof RESTART_FAULTS)[number];
const POLL = { timeout: 60_000, interval: 250 };
/** How far the service's clock moves per look: a redirect's wait (15 min) is passed in a few. */
const STEP_MS = 4 * 60_000;

/** Each fault of `faults` on a payment (by redirect, or by the Payment Element: `p.paymentRoute`). */
export function paymentCases({ p, shop, forAPerson }: Bench, faults: readonly PaymentFault[]) {
  describe(`${p.name} ${p.paymentRoute}`, () => {
    it.each(faults)('%s', { timeout: 120_000 }, async (fault) => {
      const tx = await newTransaction(shop.api, false);
      const mark = p.mark();
      const paid = await paymentWith(p, shop, tx.token, fault);

      await expect
        .poll(async () => {
          // Time passes for the service and the processor alike (Stripe's lookup lists by
          // `created`): past the redirect's wait, the claim, the settle window.
          shop.advance(STEP_MS);
          p.clockAt(shop.elapsed());
          return (await shop.calls(tx.id)).filter((c) => c.state === 'pending' || c.state === 'attention').length;
        }, POLL)
        .toBe(0);
      if (fault === 'late') await p.sendNotifications();

      const processor = p.payments(mark);
      expect(processor).toEqual({ charged: paid ? [1700] : [], open: 0 });
      const sales = (await shop.api.get(`/sale/?transaction_id=${tx.id}`)).body.results as { captured: number }[];
      expect(sales.map((s) => Math.round(s.captured * 100))).toEqual(processor.charged);
      expect((await shop.api.get(`/transaction/${tx.id}/`)).body.status).toBe(paid ? 'D' : 'N');
      await booksAgree(shop, forAPerson);
    });
  });
}

/** Drives one payment through the fault; whether the processor charged the customer. */
async function paymentWith(p: ProcessorUnderTest, shop: ProcessorShop, token: string, fault: PaymentFault): Promise<boolean> {
  switch (fault) {
    case 'kill-before': {
      const held = p.holdPayment();
      if (!held) {
        await p.visit(shop, await p.payPost(shop, token));
        await shop.kill();
        return false;
      }
      const answer = p.payPost(shop, token).catch(() => null);
      await held.arrived;
      await shop.kill(async () => {
        await answer;
        held.release();
      });
      return false;
    }
    case 'kill-during': {
      const visit = await p.visit(shop, await p.payPost(shop, token));
      await shop.kill(async () => {
        // Paid while the service is down: the notification and the return find no one.
        await visit.decide(true);
      });
      return true;
    }
    case 'kill-after': {
      const visit = await p.visit(shop, await p.payPost(shop, token));
      await backToUs(await visit.decide(true));
      await shop.kill();
      return true;
    }
    case 'lose':
    case 'late': {
      p.holdNotifications();
      const visit = await p.visit(shop, await p.payPost(shop, token));
      const answer = await visit.decide(true);
      if (fault === 'late') await backToUs(answer);
      return true;
    }
    case 'decline': {
      const visit = await p.visit(shop, await p.payPost(shop, token));
      await backToUs(await visit.decide(false));
      return false;
    }
    case 'refuse': {
      if (!p.refusePayment()) throw new Error(`${p.name} is not asked before the customer goes to its page`);
      await p.expectPageAgain(await p.payPost(shop, token));
      return false;
    }
    case 'lose-start':
    case 'fail-start':
    case 'lose-start-kill': {
      if (!p.losePayment(fault === 'fail-start' ? '500' : 'cut')) throw new Error(`${p.name} is not asked before the customer goes to its page`);
      await p.expectPageAgain(await p.payPost(shop, token));
      // The service's clock has not moved: its reconciliation has not asked Stripe yet.
      if (fault === 'lose-start-kill') await shop.kill();
      return false;
    }
  }
}

/** The customer follows the processor's 303 back to our return route. */
async function backToUs(answer: Response): Promise<void> {
  expect(answer.status).toBe(303);
  const returned = await fetch(answer.headers.get('location')!, { redirect: 'manual' });
  expect(returned.status).toBe(303);
}
