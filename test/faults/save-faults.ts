import { describe, expect, it } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { back, onCheckout } from '../api/stripe-shop';
import { type PaymentFault } from './payment-faults';
import { type ActionFault, type Bench, booksAgree } from './processor-matrix';
import { type ProcessorShop, SETTLE_WINDOW_MS } from './processor-shop';
import { alertOf, MESSAGES } from './signup-faults';
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

// The matrix's faults of a read (processor-matrix.ts) on the return's read of the setup
// session, once the customer saved the card on Stripe's page (as the sign-up's `read`,
// signup-faults.ts): SIGKILL while the double holds the read before answering it
// (`kill-before`) or its answer after reading (`kill-during`: a read changes nothing at
// Stripe, but the service dies at another moment of the resume), then the customer back on
// the return once the service is up again; killed once the card is on our books
// (`kill-after`); the read's answer lost by a cut connection (`lose`) or a 500 (`fail-after`);
// Stripe refusing the read (`refuse`: a rate limit, a rolled key). Stripe's events come late
// in every case but `kill-after`. The page says the card is being checked (never "not
// saved": it is saved at Stripe) until reconciliation reads the session; after each case
// the card saved once (one complete setup session, the authorization `active`, one
// `authorization.created`), no setup session left open, nothing pending, no key in the output.

type StartFault = Extract<PaymentFault, 'lose-start' | 'fail-start' | 'lose-start-kill'>;
const SESSIONS = { method: 'POST' as const, path: /^\/v1\/checkout\/sessions$/ };
const READ = { method: 'GET' as const, path: /^\/v1\/checkout\/sessions\/cs_/ };
const SAVED = 'https://shop.example/saved';
const POLL = { timeout: 60_000, interval: 250 };

type StripeBench = Bench<ReturnType<typeof stripeProcessor>>;

/** Moves the service's clock and Stripe's together from now (Stripe's lookups list what was made since a call, by the service's clock). */
function together({ p, shop }: StripeBench): (ms: number) => void {
  const advance = (ms: number) => {
    shop.advance(ms);
    p.clockAt(shop.elapsed());
  };
  advance(0);
  return advance;
}

export function saveCases(bench: StripeBench, faults: readonly StartFault[]) {
  const { p, shop } = bench;
  describe(`${p.name} card saved on the hosted save page`, () => {
    it.each(faults)('%s', { timeout: 120_000 }, async (fault) => {
      const double = p.double;
      const advance = together(bench);
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

      await notSavedThenSaved(bench, advance, card, sessionsBefore, ['expired', 'complete']);
    });
  });
}

/**
 * After a fault that saved nothing: once reconciliation settled the card's calls, its store
 * call failed and the page waits for a card again, no setup session of it open at Stripe,
 * Stripe's late events change nothing; the customer tries again on the same page, to
 * Stripe's page, and the card is saved. `sessions`: the statuses of the case's setup sessions at the end.
 */
async function notSavedThenSaved({ p, shop, forAPerson }: StripeBench, advance: (ms: number) => void, card: { id: string; token: string }, sessionsBefore: Set<string>, sessions: string[]): Promise<void> {
  const double = p.double;
  await reconciled(shop, advance, card.id);
  const waiting = async () => [(await shop.calls(card.id)).map((c) => [c.kind, c.state]), (await shop.api.get(`/authorization/${card.id}/`)).body.status];
  expect(await waiting()).toEqual([[['store', 'failed']], 'pending']);
  await p.sendNotifications();
  double.holdEvents = false;
  const open = [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id) && cs.status === 'open').map((cs) => cs.id);
  expect(open, 'setup sessions left open at Stripe').toEqual([]);
  expect(await waiting()).toEqual([[['store', 'failed']], 'pending']);

  const started = await p.payPost(shop, card.token);
  expect(started.status, await started.clone().text()).toBe(303);
  expect((await back(await onCheckout(started.headers.get('location')!, 'pay'))).headers.get('location')).toBe(SAVED);
  expect((await shop.api.get(`/authorization/${card.id}/`)).body.status).toBe('active');
  expect([...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id)).map((cs) => cs.status)).toEqual(sessions);
  await booksAgree(shop, forAPerson);
}

type SessionFault = Extract<ActionFault, 'kill-before' | 'kill-during' | 'kill-after' | 'refuse'>;

/**
 * The matrix's other faults on the setup session's creation (as the sign-up's `session`,
 * signup-faults.ts; its `lose` and `fail-after` are the start faults above): SIGKILL while
 * the double holds the creation before making the session (`kill-before`) or after making
 * it (`kill-during`), no answer reaching the customer; killed once the customer is on
 * Stripe's page (`kill-after`: the card is saved there and the customer is back at the shop
 * once the service is up again); Stripe refusing the creation (`refuse`: the page says the
 * card was not saved). Then as the start faults: nothing saved, no session left open, the
 * next try saves the card; `kill-after` saves it once.
 */
export function saveSessionCases(bench: StripeBench, faults: readonly SessionFault[]) {
  const { p, shop, forAPerson } = bench;
  describe(`${p.name} card saved on the hosted save page, the setup session's creation`, () => {
    it.each(faults)('session %s', { timeout: 120_000 }, async (fault) => {
      const double = p.double;
      const advance = together(bench);
      const card = await newSave(shop);
      const sessionsBefore = new Set(double.books.checkoutSessions.keys());
      double.holdEvents = fault !== 'kill-after';
      if (fault === 'kill-before' || fault === 'kill-during') {
        const held = double.holdNext(SESSIONS, { acted: fault === 'kill-during' });
        const posted = p.payPost(shop, card.token).catch(() => null);
        await held.arrived;
        await shop.kill(async () => {
          await posted;
          held.release();
        });
        await notSavedThenSaved(bench, advance, card, sessionsBefore, fault === 'kill-during' ? ['expired', 'complete'] : ['complete']);
        return;
      }
      if (fault === 'refuse') double.refuseNext(SESSIONS);
      const answer = await p.payPost(shop, card.token);
      if (fault === 'refuse') {
        // Back on the page, which says so and takes a card again.
        expect([answer.status, answer.headers.get('location')]).toEqual([303, `/pay/${card.token}/?result=error.saveFailed`]);
        expect(alertOf(await (await fetch(`${shop.url}${answer.headers.get('location')}`)).text())).toBe(MESSAGES['error.saveFailed']);
        await notSavedThenSaved(bench, advance, card, sessionsBefore, ['complete']);
        return;
      }
      const location = answer.headers.get('location') ?? '';
      expect(location.startsWith(`${double.url}/c/pay/cs_test_`), location).toBe(true);
      await shop.kill();
      expect(await toldBy(await back(await onCheckout(location, 'pay')), shop)).toBe('shop');
      await reconciled(shop, advance, card.id);
      await p.sendNotifications();
      double.holdEvents = false;
      expect((await shop.api.get(`/event/?type=authorization.created&object_id=${card.id}`)).body.results).toHaveLength(1);
      expect((await shop.api.get(`/authorization/${card.id}/`)).body.status).toBe('active');
      expect([...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id)).map((cs) => cs.status)).toEqual(['complete']);
      await booksAgree(shop, forAPerson);
    });
  });
}

/** What the return told the customer: the card being checked, or back to the shop. */
/** Time passes for the service until reconciliation settled every call of the card's save. */
async function reconciled(shop: ProcessorShop, advance: (ms: number) => void, card: string): Promise<void> {
  await expect
    .poll(async () => {
      advance(SETTLE_WINDOW_MS);
      return (await shop.calls(card)).filter((c) => c.state === 'pending' || c.state === 'attention').length;
    }, POLL)
    .toBe(0);
}

async function toldBy(answer: Response, shop: ProcessorShop): Promise<'checking' | 'shop' | 'saved'> {
  const location = answer.headers.get('location') ?? '';
  if (answer.status === 303 && location === SAVED) return 'shop';
  // Sent to the page itself (the store settled meanwhile): what it shows.
  if (answer.status === 303 && /^\/pay\/sav_[^/?]+\/$/.test(location)) {
    const page = await fetch(`${shop.url}${location}`, { redirect: 'manual' });
    const html = await page.text();
    if (page.status === 200 && html.includes('"status":"paid"')) return 'saved';
    if (page.status === 200 && html.includes('"status":"checking"')) return 'checking';
    throw new Error(`unexpected page ${page.status} ${html.slice(0, 200)}`);
  }
  if (answer.status === 303 && location.endsWith('?result=error.saveChecking')) return 'checking';
  const html = await answer.text();
  if (answer.status === 200 && alertOf(html) === MESSAGES['error.saveChecking']) return 'checking';
  // Back after a restart, its resumed store in doubt: the page's checking screen (its view's status), which takes no card.
  if (answer.status === 200 && html.includes('"status":"checking"') && html.includes('"error":{"message":"error.saveChecking"')) return 'checking';
  throw new Error(`unexpected answer ${answer.status} ${location} ${alertOf(html) ?? html.slice(0, 200)}`);
}

/** A new authorization of the save page: its id and page token. */
async function newSave(shop: ProcessorShop): Promise<{ id: string; token: string }> {
  const res = await shop.api.post('/authorization/', { gateway: STRIPE_CARD_ID, return_url: SAVED });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; token: string };
}

/** Each read fault of `faults` on the return's read of the setup session, the card saved at Stripe. */
export function saveReadCases(bench: StripeBench, faults: readonly ActionFault[]) {
  const { p, shop, forAPerson } = bench;
  describe(`${p.name} card saved on the hosted save page, the return's read`, () => {
    it.each(faults)('read %s', { timeout: 120_000 }, async (fault) => {
      const double = p.double;
      const advance = together(bench);
      const card = await newSave(shop);
      const sessionsBefore = new Set(double.books.checkoutSessions.keys());
      const cardsBefore = new Set(double.books.paymentMethods.keys());
      double.holdEvents = fault !== 'kill-after';
      const started = await p.payPost(shop, card.token);
      expect(started.status, await started.clone().text()).toBe(303);
      const paid = await onCheckout(started.headers.get('location')!, 'pay');
      expect(paid.status).toBe(303);
      const returnUrl = paid.headers.get('location')!;
      const returned = () => fetch(returnUrl, { redirect: 'manual' });

      let answer: Response;
      if (fault === 'kill-before' || fault === 'kill-during') {
        const held = double.holdNext(READ, { acted: fault === 'kill-during' });
        const first = returned().catch(() => null);
        await held.arrived;
        await shop.kill(async () => {
          await first;
          held.release();
        });
        // The service died under the customer, who comes back to the return once it is up again.
        answer = await returned();
      } else {
        if (fault === 'lose') double.loseNext(READ);
        if (fault === 'fail-after') double.failNext(READ, { acted: true });
        if (fault === 'refuse') double.refuseNext(READ);
        answer = await returned();
      }
      expect(await toldBy(answer, shop), 'what the customer is told').toBe(fault === 'kill-after' ? 'shop' : 'checking');
      if (fault === 'kill-after') await shop.kill();

      await reconciled(shop, advance, card.id);
      const saved = async () => [(await shop.api.get(`/authorization/${card.id}/`)).body.status, (await shop.api.get(`/event/?type=authorization.created&object_id=${card.id}`)).body.results.length];
      expect(await saved()).toEqual(['active', 1]);
      // Stripe's late events change nothing.
      await p.sendNotifications();
      double.holdEvents = false;
      expect(await saved()).toEqual(['active', 1]);
      const made = [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id));
      expect(made.map((cs) => [cs.mode, cs.status]), 'setup sessions at Stripe').toEqual([['setup', 'complete']]);
      const newCards = [...double.books.paymentMethods.keys()].filter((pm) => !cardsBefore.has(pm));
      expect(newCards).toHaveLength(1);
      // One store call recorded the card: the resumed one, by the return or by reconciliation.
      expect((await shop.calls(card.id)).filter((c) => c.state === 'succeeded').length).toBe(1);
      await booksAgree(shop, forAPerson);
    });
  });
}
