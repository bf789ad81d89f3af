import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { pageCsrf } from '../api/pay';
import { back, onCheckout } from '../api/stripe-shop';
import type { HeldRequest } from '../held-answer';
import { RESTART_FAULTS, START_FAULTS } from './payment-faults';
import { ACTION_FAULTS, type ActionFault, type Bench, booksAgree } from './processor-matrix';
import { type ProcessorShop, SETTLE_WINDOW_MS } from './processor-shop';
import type { stripeProcessor } from './processors';

// The fault matrix's subscription sign-up with the Stripe connector: a waiting subscription
// (a plan charged at once, no trial) signed up on its hosted page (/pay/sub_…/, without
// JavaScript) with a card saved on Stripe Checkout in setup mode, then its first period
// charged off-session by the subscriptions job. Each fault of processor-matrix.ts on each
// of the sign-up's three calls to Stripe:
// - `session`: the Checkout Session's creation, when the customer chooses Stripe;
// - `read`: the return's read of the session, once the customer saved the card there;
// - `charge`: the first period's PaymentIntent, right after the sign-up started.
// And the payment routes' start faults (payment-faults.ts) on `session` alone: the setup
// session made and its answer lost by a cut connection (`lose-start`), by a 500 kept for its
// Idempotency-Key (`fail-start`), or cut and then the service SIGKILLed before reconciliation
// asked Stripe (`lose-start-kill`): the restarted service no longer knows what it sent.
// `session lose` and `session fail-after` are not run: they are `lose-start` and `fail-start`
// (the same fault on the same call, the same ending), named as every route's start is.
// Stripe's events come late in every case but `kill-after`. After each case (and, where no
// card was saved, the customer's next try): the subscription started once with the one card
// Stripe saved (no other saved card left unknown or unused), its first period charged at
// Stripe once (one PaymentIntent; a new attempt, under a key of its own, only after the
// last was proven not made) and on our books the same, no setup session of the sign-up left
// open at Stripe (where a card could still be saved), and nothing left pending. The page never says "not saved" of a card that may be: it says
// it is being checked (`error.saveChecking`) and takes no other card meanwhile, and only
// reconciliation decides.

export const SIGNUP_CALLS = ['session', 'read', 'charge'] as const;
export type SignupCall = (typeof SIGNUP_CALLS)[number];
/** The start faults, on the setup session's creation only. */
export const SIGNUP_START_FAULTS = [...START_FAULTS, ...RESTART_FAULTS] as const;
type StartFault = (typeof SIGNUP_START_FAULTS)[number];
/** The faults of `session` that are its start faults under another name (`lose` is `lose-start`, `fail-after` is `fail-start`): run once, by the start's name. */
const SESSION_AS_START: readonly SignupFault[] = ['lose', 'fail-after'];
export type SignupFault = ActionFault | StartFault;

/** What the customer is told at the fault: nothing (the service died), sent to Stripe's page, the card being checked, a failure to try again, back to the shop. */
type Told = 'nothing' | 'stripe' | 'checking' | 'failed' | 'shop';

/** How a case ends: what the customer was told; whether the card given before the fault ends saved (else the next try saves one); the attempts at the first period. */
export interface Expected<T extends string = Told> {
  told: T;
  saved: boolean;
  attempts: number;
}

export const done = <T extends string>(told: T, attempts = 1): Expected<T> => ({ told, saved: true, attempts });
export const notSaved = <T extends string>(told: T): Expected<T> => ({ told, saved: false, attempts: 1 });

/** The matrix: each call × each fault, and what it must come to. */
const SIGNUP_EXPECTED: Record<SignupCall, Record<ActionFault, Expected>> = {
  // No session reached the customer: nothing saved, the sign-up open for the next try once reconciliation proves it.
  session: {
    'kill-before': notSaved('nothing'),
    'kill-during': notSaved('nothing'),
    // Sent to Stripe's page, then killed: the customer saves the card there and is back once the service is.
    'kill-after': done('shop'),
    // Not run (SESSION_AS_START): `lose-start` and `fail-start` below.
    lose: notSaved('checking'),
    'fail-after': notSaved('checking'),
    refuse: notSaved('failed'),
  },
  // The card is saved at Stripe whatever the read's fate: reconciliation reads it and starts the sign-up.
  read: {
    // Killed under the customer: what they are told when back on the return once the service is up again.
    'kill-before': done('checking'),
    'kill-during': done('checking'),
    'kill-after': done('shop'),
    lose: done('checking'),
    'fail-after': done('checking'),
    refuse: done('checking'),
  },
  // Signed up; the period charged once. One proven not made (cut before Stripe acted, refused) is due again at once, a new attempt.
  charge: {
    'kill-before': done('shop', 2),
    'kill-during': done('shop'),
    'kill-after': done('shop'),
    lose: done('shop'),
    'fail-after': done('shop'),
    refuse: done('shop', 2),
  },
};

/** A start's answer lost (then a restart, or not): no session reached the customer, the card is being checked; once reconciliation ended the session, the next try saves one. */
const SIGNUP_START_EXPECTED: Record<StartFault, Expected> = {
  'lose-start': notSaved('checking'),
  'fail-start': notSaved('checking'),
  'lose-start-kill': notSaved('checking'),
};

const isStart = (fault: SignupFault): fault is StartFault => (SIGNUP_START_FAULTS as readonly string[]).includes(fault);

export const POLL = { timeout: 90_000, interval: 250 };
export const MESSAGES = JSON.parse(readFileSync(new URL('../../locales/en.json', import.meta.url), 'utf8')) as Record<string, string>;
const FORM = 'application/x-www-form-urlencoded';
export const RETURN = 'https://shop.example/subscribed';
/** The plan's 9.99 EUR, in minor units at Stripe. */
export const PERIOD_MINOR = 999;
const CALLS = {
  session: { method: 'POST' as const, path: /^\/v1\/checkout\/sessions$/ },
  read: { method: 'GET' as const, path: /^\/v1\/checkout\/sessions\/cs_/ },
  charge: { method: 'POST' as const, path: /^\/v1\/payment_intents$/ },
};

type StripeBench = Bench<ReturnType<typeof stripeProcessor>>;

/** A waiting subscription of a new plan (charged at once, no trial) and its sign-up token. */
export async function newSignup(shop: ProcessorShop): Promise<{ id: string; token: string }> {
  const plan = await shop.api.post('/plan/', { name: 'Box', amount: 9.99, currency: 'EUR', interval: 'month' });
  expect(plan.status, plan.text).toBe(201);
  const sub = await shop.api.post('/subscription/', { plan: plan.body.id, return_url: RETURN });
  expect(sub.status, sub.text).toBe(201);
  return { id: sub.body.id, token: /\/pay\/(sub_[^/]+)\//.exec(sub.body.payment_url)![1]! };
}

/** The sign-up form posted without JavaScript, choosing `gateway` (Stripe's card unless told). */
export async function postSignup(shop: ProcessorShop, token: string, gateway = STRIPE_CARD_ID): Promise<Response> {
  return fetch(`${shop.url}/pay/${token}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': FORM, origin: shop.url },
    body: new URLSearchParams({ action: 'pay', gateway, customer_email: 'ada@example.com', csrf: await pageCsrf(shop.url, token) }),
  });
}

/** What an answer of ours tells the customer. */
async function toldBy(answer: Response | null, token: string, stripeUrl: string): Promise<Told> {
  if (!answer) return 'nothing';
  const location = answer.headers.get('location') ?? '';
  if (answer.status === 303 && location.startsWith(`${stripeUrl}/c/pay/cs_test_`)) return 'stripe';
  if (answer.status === 303 && location === `/pay/${token}/?result=error.saveChecking`) return 'checking';
  if (answer.status === 303 && location.startsWith(`${RETURN}?`)) return 'shop';
  const html = await answer.text();
  const alert = alertOf(html);
  if (answer.status === 200 && alert === MESSAGES['error.saveChecking']) return 'checking';
  if (answer.status === 200 && alert === MESSAGES['error.saveFailed']) return 'failed';
  throw new Error(`unexpected answer ${answer.status} ${location} ${alert ?? html.slice(0, 200)}`);
}

/** Each fault of `faults` on each call of `calls` of a sign-up with Stripe (a start fault on `session` only; `session`'s `lose` and `fail-after` only as its start faults). */
export function signupCases({ p, shop, forAPerson }: StripeBench, calls: readonly SignupCall[] = SIGNUP_CALLS, faults: readonly SignupFault[] = ACTION_FAULTS) {
  const runs = (call: SignupCall, fault: SignupFault) => (call === 'session' ? !SESSION_AS_START.includes(fault) : !isStart(fault));
  const cases = calls.flatMap((call) => faults.filter((fault) => runs(call, fault)).map((fault) => [call, fault] as const));
  describe(`${p.name} subscription sign-up`, () => {
    it.each(cases)('%s %s', { timeout: 180_000 }, async (call, fault) => {
      const double = p.double;
      // Both clocks move together: Stripe's lookup lists the PaymentIntents created since the call, by the service's clock.
      const advance = (ms: number) => {
        shop.advance(ms);
        p.clockAt(shop.elapsed());
      };
      advance(0);
      const sub = await newSignup(shop);
      const sessionsBefore = new Set(double.books.checkoutSessions.keys());
      const cardsBefore = new Set(double.books.paymentMethods.keys());
      /** Every card the sign-up waited for, in turn. */
      const cards = new Set<string>();
      const track = async () => {
        const card = await shop.signupCard(sub.id);
        if (card) cards.add(card);
      };
      double.holdEvents = fault !== 'kill-after';
      const end = isStart(fault) ? SIGNUP_START_EXPECTED[fault] : SIGNUP_EXPECTED[call][fault];

      /** The customer's way with the fault on `call`: what the service answered at it (null: no answer). */
      const firstTry = async (): Promise<Response | null> => {
        const killed = (held: HeldRequest, answer: Promise<Response | null>) =>
          held.arrived.then(() =>
            shop.kill(async () => {
              await answer;
              held.release();
            }),
          );
        const kills = fault === 'kill-before' || fault === 'kill-during';
        const arm = (on: SignupCall) => {
          if (on !== call) return null;
          if (kills) return double.holdNext(CALLS[call], { acted: fault === 'kill-during' });
          if (fault === 'lose' || fault === 'lose-start' || fault === 'lose-start-kill') double.loseNext(CALLS[call]);
          if (fault === 'fail-after' || fault === 'fail-start') double.failNext(CALLS[call], { acted: true });
          if (fault === 'refuse') double.refuseNext(CALLS[call]);
          return null;
        };
        const heldSession = arm('session');
        const posted = postSignup(shop, sub.token).catch(() => null);
        if (heldSession) {
          await killed(heldSession, posted);
          return null;
        }
        const answer = await posted;
        if (call === 'session') {
          if (fault === 'kill-after') {
            expect(await toldBy(answer, sub.token, double.url)).toBe('stripe');
            await shop.kill();
            return back(await onCheckout(answer!.headers.get('location')!, 'pay'));
          }
          if (fault === 'lose-start-kill' && answer) {
            // The page answered while the service's clock stood still: reconciliation has not asked Stripe yet. Its body read whole first (a clone buffers it).
            await answer.clone().arrayBuffer();
            await shop.kill();
          }
          return answer;
        }
        expect(await toldBy(answer, sub.token, double.url)).toBe('stripe');
        const paid = await onCheckout(answer!.headers.get('location')!, 'pay');
        expect(paid.status).toBe(303);
        const heldRead = arm('read');
        const heldCharge = arm('charge');
        const returnUrl = paid.headers.get('location')!;
        const returned = fetch(returnUrl, { redirect: 'manual' }).catch(() => null);
        if (heldRead) {
          await killed(heldRead, returned);
          // The service died under the customer, who comes back to the return once it is up again.
          return fetch(returnUrl, { redirect: 'manual' });
        }
        const came = await returned;
        // The subscriptions job charges the first period within its second.
        if (heldCharge) await killed(heldCharge, Promise.resolve(null));
        if (call === 'read' && fault === 'kill-after') await shop.kill();
        if (call === 'charge' && fault === 'kill-after') {
          await expect.poll(async () => (await shop.api.get(`/subscription/${sub.id}/`)).body.charges.map((c: { status: string }) => c.status), POLL).toEqual(['charged']);
          await shop.kill();
        }
        return came;
      };

      // The service knows nothing of what it sent once restarted, and the case is about the
      // customer's next try before reconciliation settles it: the clock stands still from the
      // save to that try, however long the restart takes on a loaded machine (the settle window
      // is 12 s of the service's time). Started again whatever happens: the next cases share the clock.
      const startClock = fault === 'lose-start-kill' ? shop.holdClock() : null;
      try {
        const answer = await firstTry();
        await track();
        const told = await toldBy(answer, sub.token, double.url);
        expect(told, 'what the customer is told').toBe(end.told);
        if (told === 'checking') {
          // One card at a time: while it may be saved, the page takes no other and asks Stripe nothing.
          const sessions = double.books.checkoutSessions.size;
          expect(await toldBy(await postSignup(shop, sub.token), sub.token, double.url)).toBe('checking');
          expect(double.books.checkoutSessions.size).toBe(sessions);
        }
      } finally {
        startClock?.();
        advance(0);
      }

      // Time passes for the service until reconciliation proved every card the sign-up waited for: not saved, or saved and signed up with, its first period settled.
      const state = async () => {
        advance(SETTLE_WINDOW_MS);
        const s = (await shop.api.get(`/subscription/${sub.id}/`)).body;
        const open = await Promise.all([...cards].map(async (id) => (await shop.calls(id)).some((c) => c.state === 'pending' || c.state === 'attention')));
        const charges = s.charges.map((c: { period: number; status: string }) => [c.period, c.status]);
        return { status: s.status, charges, unsettled: open.filter(Boolean).length };
      };
      const started = { status: 'active', charges: [[1, 'charged']], unsettled: 0 };
      if (!end.saved) {
        await expect.poll(state, POLL).toEqual({ status: 'waiting', charges: [], unsettled: 0 });
        expect(await eventsOf(shop, 'subscription.started', sub.id)).toEqual([]);
        // The customer tries again: the page is open for another card, which signs up.
        const again = await postSignup(shop, sub.token);
        expect(await toldBy(again, sub.token, double.url)).toBe('stripe');
        await track();
        expect(await toldBy(await back(await onCheckout(again.headers.get('location')!, 'pay')), sub.token, double.url)).toBe('shop');
      }
      await expect.poll(state, POLL).toEqual(started);
      const subscription = (await shop.api.get(`/subscription/${sub.id}/`)).body;
      // Stripe's late events change nothing.
      await p.sendNotifications();
      double.holdEvents = false;

      // Stripe saved one card, and it is the subscription's: every other card the sign-up waited for failed.
      const saved = [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id) && cs.status === 'complete');
      expect(saved).toHaveLength(1);
      // A session whose answer was lost belongs to no card the page knew of (the customer may
      // have saved another meanwhile): it is ended when reconciliation reaches its call, as time passes.
      const openSessions = () => {
        advance(SETTLE_WINDOW_MS);
        return [...double.books.checkoutSessions.values()].filter((cs) => !sessionsBefore.has(cs.id) && cs.status === 'open').map((cs) => cs.id);
      };
      await expect.poll(openSessions, { ...POLL, message: 'setup sessions left open at Stripe' }).toEqual([]);
      const states = await Promise.all([...cards].map(async (id) => [id, (await shop.api.get(`/authorization/${id}/`)).body.status] as const));
      expect(states.filter(([, status]) => status !== 'failed')).toEqual([[subscription.authorization, 'active']]);
      expect(await eventsOf(shop, 'subscription.started', sub.id)).toHaveLength(1);

      // The first period at Stripe: one PaymentIntent, charged once; an attempt proven not made (refused, or cut before Stripe acted) is made again under a key of its own.
      const newCards = new Set([...double.books.paymentMethods.keys()].filter((pm) => !cardsBefore.has(pm)));
      const intents = [...double.books.paymentIntents.values()].filter((pi) => newCards.has(pi.payment_method as string));
      const keys = new Set(double.requests.filter((r) => r.path === '/v1/payment_intents' && r.method === 'POST' && String(r.idempotencyKey).startsWith(`subscription:${sub.id}:`)).map((r) => r.idempotencyKey));
      expect(intents.map((pi) => [pi.status, pi.amount_received])).toEqual([['succeeded', PERIOD_MINOR]]);
      expect(keys.size, 'attempts at the first period').toBe(end.attempts);
      await booksAgree(shop, forAPerson);
    });
  });
}

export const eventsOf = async (shop: ProcessorShop, type: string, id: string) => (await shop.api.get(`/event/?type=${type}&object_id=${id}`)).body.results;

/** The page's alert, unescaped (the page also carries every message for its script: only the alert says what is shown). */
export const alertOf = (html: string) =>
  /<p class="alert__text">([^<]*)<\/p>/.exec(html)?.[1]?.replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, n: string) => String.fromCodePoint(parseInt(n, hex ? 16 : 10)));
