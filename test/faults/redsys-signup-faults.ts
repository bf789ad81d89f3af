import { describe, expect, it } from 'vitest';
import { REDSYS_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { formOn, paramsOf } from '../api/redsys-shop';
import { decideOnPage } from '../redsys/helpers';
import { ACTION_FAULTS, type ActionFault, type Bench, booksAgree } from './processor-matrix';
import type { ProcessorShop } from './processor-shop';
import type { redsysProcessor } from './processors';
import { alertOf, done, eventsOf, type Expected as SignupExpected, MESSAGES, newSignup, notSaved, PERIOD_MINOR, POLL, postSignup, RETURN } from './signup-faults';

// The fault matrix's subscription sign-up with the Redsys connector: a waiting subscription
// (charged at once, no trial) signed up on its hosted page (/pay/sub_…/, without
// JavaScript) with a card saved on Redsys's page (a validation of amount 0 that stores it),
// then its first period charged by the subscriptions job (a merchant-initiated REST payment
// with the card's identifier). The sign-up's steps and their faults:
// - `form`: the form that posts the customer to Redsys, made by us (Redsys is not asked):
//   the service killed once it was given, the customer never going (`kill-left`) or going
//   once the service is up again (`kill-after`);
// - `notification`: Redsys's signed notification, which alone saves the card (the query
//   service does not carry a stored card): the service down while the customer approves
//   (`kill-during`: the notification and the return find no one), the notification lost
//   (`lose`) or late after the customer's return (`late`), the card denied (`deny`);
// - `return`: the customer never back (`lose`), or the service killed after it (`kill-after`);
// - `charge`: the first period's REST payment, with each fault of processor-matrix.ts.
// After each case (and, where no card was saved, the customer's next try): the subscription
// started once with a card Redsys stored, every other card the sign-up waited for `failed`,
// the first period approved at Redsys once and `charged` on our books, nothing pending.
// What the customer was told is the truth: sent to Redsys, being checked (the card may be
// saved), not saved (declined), or back at the shop.

type Step = 'form' | 'notification' | 'return' | 'charge';
type Fault = ActionFault | 'kill-left' | 'late' | 'deny';
/** What the customer is told at the fault: nothing (no answer, or never back), sent to Redsys, being checked, declined, back to the shop. */
type Told = 'nothing' | 'redsys' | 'checking' | 'declined' | 'shop';

/** As Stripe's sign-up cases end (signup-faults.ts); its attempts are the REST payments sent for the first period (a new order only after the last was proven not made). */
type Expected = SignupExpected<Told>;

const REDSYS_SIGNUP_CASES: [Step, Fault, Expected][] = [
  ['form', 'kill-left', notSaved('redsys')],
  ['form', 'kill-after', done('shop')],
  // No notification reached us and the query service cannot say a card was stored: the card is not saved (Redsys's copy never used).
  ['notification', 'kill-during', notSaved('checking')],
  ['notification', 'lose', notSaved('checking')],
  ['notification', 'late', done('checking')],
  ['notification', 'deny', notSaved('declined')],
  ['return', 'lose', done('nothing')],
  ['return', 'kill-after', done('shop')],
  ...ACTION_FAULTS.map((fault): [Step, Fault, Expected] => ['charge', fault, done('shop', fault === 'kill-before' || fault === 'refuse' ? 2 : 1)]),
];

/** A challenge's lapse (15 min) passes in a few looks. */
const STEP_MS = 4 * 60_000;

/** What an answer of ours tells the customer. */
async function toldBy(answer: Response | null, token: string): Promise<Told> {
  if (!answer) return 'nothing';
  const location = answer.headers.get('location') ?? '';
  if (answer.status === 303 && location === `/pay/${token}/challenge/`) return 'redsys';
  if (answer.status === 303 && location === `/pay/${token}/?result=error.saveChecking`) return 'checking';
  if (answer.status === 303 && location === `/pay/${token}/?result=error.saveDeclined`) return 'declined';
  if (answer.status === 303 && location.startsWith(`${RETURN}?`)) return 'shop';
  const alert = alertOf(await answer.text());
  if (answer.status === 200 && alert === MESSAGES['error.saveChecking']) return 'checking';
  throw new Error(`unexpected answer ${answer.status} ${location} ${alert ?? ''}`);
}

type RedsysBench = Bench<ReturnType<typeof redsysProcessor>>;

/** Each case of the sign-up with Redsys. */
export function redsysSignupCases({ p, shop, forAPerson }: RedsysBench) {
  describe(`${p.name} subscription sign-up`, () => {
    it.each(REDSYS_SIGNUP_CASES)('%s %s', { timeout: 180_000 }, async (step, fault, end) => {
      const double = p.double;
      const sub = await newSignup(shop);
      const cards = new Set<string>();
      const track = async () => {
        const card = await shop.signupCard(sub.id);
        if (card) cards.add(card);
      };
      double.holdNotifications = step === 'notification' && (fault === 'lose' || fault === 'late');

      const answer = await firstTry(p, shop, sub, step, fault);
      await track();
      expect(await toldBy(answer, sub.token), 'what the customer is told').toBe(end.told);
      if (end.told === 'checking') {
        // One card at a time: while Redsys may have saved it, the page takes no other.
        const sent = double.requests.filter((r) => r.service === 'page').length;
        expect(await toldBy(await postSignup(shop, sub.token, REDSYS_CARD_ID), sub.token)).toBe('checking');
        expect(await shop.signupCard(sub.id)).toBe([...cards].at(-1));
        expect(double.requests.filter((r) => r.service === 'page').length).toBe(sent);
      }
      // Late: after the customer's return.
      if (fault === 'late') await p.sendNotifications();

      const state = async () => {
        shop.advance(STEP_MS);
        const s = (await shop.api.get(`/subscription/${sub.id}/`)).body;
        const open = await Promise.all([...cards].map(async (id) => (await shop.calls(id)).some((c) => c.state === 'pending' || c.state === 'attention')));
        const waiting = await Promise.all([...cards].map(async (id) => (await shop.api.get(`/authorization/${id}/`)).body.status === 'requires_action'));
        return { status: s.status, charges: s.charges.map((c: { period: number; status: string }) => [c.period, c.status]), unsettled: [...open, ...waiting].filter(Boolean).length };
      };
      if (!end.saved) {
        // The card's challenge lapses unanswered: nothing saved, the sign-up open for another card.
        await expect.poll(state, POLL).toEqual({ status: 'waiting', charges: [], unsettled: 0 });
        // A notification that comes now, after the save was over, saves nothing.
        await p.sendNotifications();
        expect(await eventsOf(shop, 'subscription.started', sub.id)).toEqual([]);
        const again = await postSignup(shop, sub.token, REDSYS_CARD_ID);
        expect(await toldBy(again, sub.token)).toBe('redsys');
        await track();
        expect(await toldBy(await backFrom(await onRedsys(shop, p, again, 'approve')), sub.token)).toBe('shop');
      }
      await expect.poll(state, POLL).toEqual({ status: 'active', charges: [[1, 'charged']], unsettled: 0 });
      const subscription = (await shop.api.get(`/subscription/${sub.id}/`)).body;
      // Redsys's late notifications change nothing.
      await p.sendNotifications();
      double.holdNotifications = false;

      const states = await Promise.all([...cards].map(async (id) => [id, (await shop.api.get(`/authorization/${id}/`)).body.status] as const));
      expect(states.filter(([, status]) => status !== 'failed')).toEqual([[subscription.authorization, 'active']]);
      expect(await eventsOf(shop, 'subscription.started', sub.id)).toHaveLength(1);

      // The first period at Redsys: approved once; a new order only after the last was proven not made.
      const periods = double.requests.filter((r) => r.service === 'rest' && String(r.params.DS_MERCHANT_MERCHANTDATA).startsWith(`subscription:${sub.id}:`));
      const orders = [...new Set(periods.map((r) => r.params.DS_MERCHANT_ORDER!))];
      const approved = orders.map((o) => double.books.find(double.terminals[0]!, o)?.payment).filter((pay) => pay?.response === '0000');
      expect(approved.map((pay) => pay!.amount)).toEqual([PERIOD_MINOR]);
      expect(orders.length, 'attempts at the first period').toBe(end.attempts);
      await booksAgree(shop, forAPerson);
    });
  });
}

/** Our challenge's page, where our answer sent the customer: its form that posts to Redsys. */
async function redsysForm(shop: ProcessorShop, p: ReturnType<typeof redsysProcessor>, answer: Response) {
  const form = await formOn(shop.url, p.double.url, answer.headers.get('location')!);
  expect(paramsOf(form.fields).DS_MERCHANT_AMOUNT).toBe('0');
  return form;
}

/** The customer on Redsys's page, sent there by our answer. */
async function onRedsys(shop: ProcessorShop, p: ReturnType<typeof redsysProcessor>, answer: Response, decision: 'approve' | 'deny') {
  const { url, fields } = await redsysForm(shop, p, answer);
  return decideOnPage(url, fields, decision);
}

/** The customer follows Redsys's 303 back to our return route: our answer. */
async function backFrom(decided: Response): Promise<Response> {
  expect(decided.status).toBe(303);
  return fetch(decided.headers.get('location')!, { redirect: 'manual' });
}

/** The customer's way with the fault: what the service answered at it (null: no answer, or never back). */
async function firstTry(p: ReturnType<typeof redsysProcessor>, shop: ProcessorShop, sub: { id: string; token: string }, step: Step, fault: Fault): Promise<Response | null> {
  const posted = await postSignup(shop, sub.token, REDSYS_CARD_ID);
  expect(await toldBy(posted.clone(), sub.token)).toBe('redsys');
  if (step === 'form') {
    await shop.kill();
    return fault === 'kill-left' ? posted : backFrom(await onRedsys(shop, p, posted, 'approve'));
  }
  if (step === 'notification' && fault === 'kill-during') {
    const { url, fields } = await redsysForm(shop, p, posted);
    let decided: Response | null = null;
    // Approved while the service is down: the notification and the return find no one; the customer is back once it is up.
    await shop.kill(async () => void (decided = await decideOnPage(url, fields, 'approve')));
    return backFrom(decided!);
  }
  if (step === 'notification') return backFrom(await onRedsys(shop, p, posted, fault === 'deny' ? 'deny' : 'approve'));
  if (step === 'return') {
    const decided = await onRedsys(shop, p, posted, 'approve');
    if (fault === 'lose') return null;
    const returned = await backFrom(decided);
    await shop.kill();
    return returned;
  }
  // The first period's charge, by the subscriptions job once the sign-up started.
  const held = fault === 'kill-before' || fault === 'kill-during' ? p.hold('charge', fault === 'kill-during') : null;
  if (fault === 'lose' || fault === 'fail-after') p.lose('charge', fault === 'lose' ? 'cut' : '500');
  if (fault === 'refuse') p.refuse('charge');
  const returned = await backFrom(await onRedsys(shop, p, posted, 'approve'));
  if (held) {
    await held.arrived;
    await shop.kill(async () => held.release());
  }
  if (fault === 'kill-after') {
    await expect.poll(async () => (await shop.api.get(`/subscription/${sub.id}/`)).body.charges.map((c: { status: string }) => c.status), POLL).toEqual(['charged']);
    await shop.kill();
  }
  return returned;
}
