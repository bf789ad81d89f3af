import { expect } from 'vitest';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import type { Client } from '../api/harness';
import { transactionBody } from '../api/harness';
import { formOn, paramsOf, redsysForm, toRedsys } from '../api/redsys-shop';
import { back, onCheckout, publishableConfirm, stripeTestKeys, toCheckout } from '../api/stripe-shop';
import type { HeldRequest } from '../held-answer';
import { REDSYS_CARD_ID, STRIPE_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { HOSTED_FIELDS } from '../../server/payments/stripe/element';
import { pageCsrf } from '../api/pay';
import { decideOnPage } from '../redsys/helpers';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

// The processors of the fault matrix (processor-matrix.ts), each behind the same face: its
// double, how the service is pointed at it and connected, a sale paid through it by
// redirect, its books for that payment, and the faults it can be told to make on the next
// capture, refund or void.

export type Action = 'capture' | 'refund' | 'void';
/** An action on a payment, or a charge of a saved card (merchant-initiated, off-session). */
export type Move = Action | 'charge';

/** What the processor holds for one payment, in minor units, and how often it carried out each action on it. */
export interface ProcessorBooks {
  captured: number;
  held: number;
  refunded: number;
  done: Record<Action, number>;
}

/** A payment as both sides know it: our transaction and sale, the processor's id for it (a PaymentIntent, an order number). */
export interface Paid {
  tx: { id: string; token: string };
  sale: string;
  handle: string;
}

export interface ProcessorUnderTest {
  name: 'Stripe' | 'Redsys';
  /** How the customer pays, for the payment cases' names. */
  paymentRoute: string;
  start(): Promise<void>;
  close(): Promise<void>;
  /** What the service is started with to reach the double. */
  env(): Record<string, string>;
  connect(api: Client): Promise<void>;
  /** A new transaction, paid through the processor's page (only held with `authorize`). */
  pay(shop: { api: Client; url: string }, authorize: boolean): Promise<Paid>;
  books(handle: string): ProcessorBooks;
  /** How many times the service sent this action on this payment, or charges of this saved card (carried out or not). */
  sent(move: Move, handle: string): number;
  /** The next `move` is held before (`acted: false`) or after being carried out. */
  hold(move: Move, acted: boolean): HeldRequest;
  /** Redsys: the next query (an action's count taken before it is sent) is held, then cut. */
  holdCount?(): HeldRequest;
  /** The next `move` is carried out and its answer lost: a cut connection, or a 500. */
  lose(move: Move, how: 'cut' | '500'): void;
  /** The next `move` is refused before it is carried out. */
  refuse(move: Move): void;
  /** A card saved through the save page and the processor's page (its next charge declined by the issuer when `declining`): our authorization, and the processor's handle of the card. */
  saveCard(shop: { api: Client; url: string }, declining: boolean): Promise<{ authorization: string; handle: string }>;
  /** What the processor charged the saved card: each approved charge's amount, minor units. */
  cardCharges(handle: string): number[];
  /** The processor's clock moved as far on as the service's (`ms`), for what it dates and lists by date (Stripe's `created`). */
  clockAt(ms: number): void;
  /** Its notifications of what it did wait (Stripe's events; Redsys sends none for operations). */
  holdNotifications(): void;
  /** Sends what waited, late: after the service settled the call by itself. */
  sendNotifications(): Promise<void>;
  /** The payment page's pay post without JavaScript, choosing the processor's card: the service's answer. */
  payPost(shop: { url: string }, token: string): Promise<Response>;
  /** Follows that answer to the processor's page: the customer there. */
  visit(shop: { url: string }, answer: Response): Promise<Visit>;
  /** The next pay post's request to the processor (Stripe's Checkout Session) is held before it is carried out; null when it sends none (Redsys). */
  holdPayment(): HeldRequest | null;
  /** The next pay post's request to the processor is refused; false when it sends none. */
  refusePayment(): boolean;
  /** The next pay post's request to the processor is carried out and its answer lost (a cut connection, or a 500); false when it sends none. */
  losePayment(how: 'cut' | '500'): boolean;
  /** The pay post's answer is the payment page again, saying so, not a way to the processor. */
  expectPageAgain(answer: Response): Promise<void>;
  /** Where the processor's payments stand: what it charged (minor units each) and how many pages could still charge, since `mark`. */
  payments(mark: Mark): { charged: number[]; open: number };
  mark(): Mark;
}

export type Mark = ReadonlySet<string>;

/** A customer on the processor's page. */
export interface Visit {
  /** Pays, or is declined and goes back to the shop: the processor's answer (a 303 back to us, or its page). */
  decide(approve: boolean): Promise<Response>;
}

const FORM = 'application/x-www-form-urlencoded';
const SAVED = 'https://shop.example/saved';

async function payPost(shop: { url: string }, token: string, gateway: string): Promise<Response> {
  return fetch(`${shop.url}/pay/${token}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': FORM, origin: shop.url },
    body: new URLSearchParams({ action: 'pay', gateway, csrf: await pageCsrf(shop.url, token) }),
  });
}

/** The form post's answer: the page itself (its state in the HTML), not a 303. */
async function formPageAgain(answer: Response): Promise<void> {
  expect([answer.status, answer.headers.get('location')]).toEqual([200, null]);
  expect(await answer.text()).toContain('checkout-state');
}

/** `POST /v1/authorization/` for `gateway` without a card: the save page's token. */
async function saveRequest(api: Client, gateway: string): Promise<{ id: string; token: string }> {
  const res = await api.post('/authorization/', { gateway, return_url: SAVED });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The one key of `after` not in `before`. */
function added<T>(before: ReadonlySet<T>, after: Iterable<T>): T {
  const fresh = [...after].filter((k) => !before.has(k));
  expect(fresh).toHaveLength(1);
  return fresh[0]!;
}

export async function newTransaction(api: Client, authorize: boolean): Promise<{ id: string; token: string }> {
  const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', authorize }));
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function stripeProcessor(): ProcessorUnderTest & { double: StripeDouble; keys: ReturnType<typeof stripeTestKeys> } {
  const STRIPE_PATHS: Record<Move, RegExp> = {
    capture: /^\/v1\/payment_intents\/[A-Za-z0-9_]+\/capture$/,
    void: /^\/v1\/payment_intents\/[A-Za-z0-9_]+\/cancel$/,
    refund: /^\/v1\/refunds$/,
    charge: /^\/v1\/payment_intents$/,
  };
  const match = (move: Move) => ({ method: 'POST' as const, path: STRIPE_PATHS[move] });
  /** Seconds the double's clock was moved on. */
  let moved = 0;
  /** Which of the double's requests concern the payment (a PaymentIntent) or the saved card (a PaymentMethod). */
  const about = (move: Move, handle: string, r: { path: string; params: Record<string, unknown> }) =>
    move === 'charge' ? r.params.payment_method === handle : move === 'refund' ? r.params.payment_intent === handle : r.path.includes(handle);
  const SESSIONS = { method: 'POST' as const, path: /^\/v1\/checkout\/sessions$/ };
  const p = {
    name: 'Stripe' as const,
    paymentRoute: 'payment by redirect',
    double: null as unknown as StripeDouble,
    /** The keys it was connected with (the Payment Element's customer confirms under the publishable one). */
    keys: null as unknown as ReturnType<typeof stripeTestKeys>,
    async start() {
      p.double = await startStripeDouble();
    },
    close: () => p.double.close(),
    env: () => ({ STRIPE_API_URL: p.double.url, STRIPE_FILES_URL: p.double.filesUrl }),
    async connect(api: Client) {
      const keys = (p.keys = stripeTestKeys());
      const connected = await api.post('/processor/', { type: 'stripe', ...keys });
      expect(connected.status, connected.text).toBe(201);
      p.double.addWebhookEndpoint(connected.body.webhook_url, keys.webhook_secret);
    },
    async pay(shop: { api: Client; url: string }, authorize: boolean): Promise<Paid> {
      const tx = await newTransaction(shop.api, authorize);
      const page = await toCheckout({ t: shop, double: p.double }, tx.token);
      expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
      await p.double.settled();
      const [sale] = (await shop.api.get(`/sale/?transaction_id=${tx.id}`)).body.results;
      return { tx, sale: sale.id, handle: p.double.books.checkoutSessions.get(page.split('/').pop()!)!.payment_intent as string };
    },
    books(pi: string): ProcessorBooks {
      const intent = p.double.books.paymentIntents.get(pi)!;
      // A PaymentIntent is captured once at most, and cancelled once at most (Stripe refuses a second of either).
      const refunds = [...p.double.books.refunds.values()].filter((r) => r.payment_intent === pi);
      return {
        captured: intent.amount_received as number,
        held: intent.status === 'requires_capture' ? (intent.amount_capturable as number) : 0,
        refunded: sum(refunds.filter((r) => ['pending', 'succeeded'].includes(r.status)).map((r) => r.amount as number)),
        done: { capture: intent.amount_received > 0 ? 1 : 0, refund: refunds.length, void: intent.status === 'canceled' ? 1 : 0 },
      };
    },
    sent: (move: Move, handle: string) => p.double.requests.filter((r) => r.method === 'POST' && STRIPE_PATHS[move].test(r.path) && about(move, handle, r)).length,
    hold: (move: Move, acted: boolean) => p.double.holdNext(match(move), { acted }),
    lose: (move: Move, how: 'cut' | '500') => (how === 'cut' ? p.double.loseNext(match(move)) : p.double.failNext(match(move), { acted: true })),
    refuse: (move: Move) => p.double.refuseNext(match(move)),
    async saveCard(shop: { api: Client; url: string }, declining: boolean) {
      const request = await saveRequest(shop.api, STRIPE_CARD_ID);
      const before = new Set(p.double.books.paymentMethods.keys());
      const started = await payPost(shop, request.token, STRIPE_CARD_ID);
      expect(started.status, await started.clone().text()).toBe(303);
      // Stripe's page in setup mode: a card whose later charges decline, or one they do not.
      const returned = await back(await onCheckout(started.headers.get('location')!, declining ? 'charge_fail' : 'pay'));
      expect(returned.headers.get('location')).toBe(SAVED);
      expect((await shop.api.get(`/authorization/${request.id}/`)).body.status).toBe('active');
      return { authorization: request.id, handle: added(before, p.double.books.paymentMethods.keys()) };
    },
    clockAt(ms: number) {
      const seconds = Math.floor(ms / 1000);
      p.double.books.advance(seconds - moved);
      moved = seconds;
    },
    cardCharges: (pm: string) =>
      [...p.double.books.paymentIntents.values()].filter((pi) => pi.payment_method === pm && pi.status === 'succeeded').map((pi) => pi.amount_received as number),
    holdNotifications: () => void (p.double.holdEvents = true),
    async sendNotifications() {
      expect((await p.double.deliverEvents()).map((d) => d.status).filter((status) => status >= 300)).toEqual([]);
    },
    payPost: (shop: { url: string }, token: string) => payPost(shop, token, STRIPE_CARD_ID),
    async visit(_shop: { url: string }, answer: Response): Promise<Visit> {
      expect(answer.status, await answer.clone().text()).toBe(303);
      const page = answer.headers.get('location')!;
      expect(page).toMatch(new RegExp(`^${p.double.url}/c/pay/cs_test_`));
      return {
        async decide(approve) {
          if (approve) return onCheckout(page, 'pay');
          // A declined card keeps the customer on Stripe's page; then back to the shop.
          const declined = await onCheckout(page, 'decline');
          expect([declined.status, await declined.text()]).toEqual([200, expect.stringMatching(/declined/i)]);
          return onCheckout(page, 'cancel');
        },
      };
    },
    holdPayment: () => p.double.holdNext(SESSIONS, { acted: false }),
    refusePayment: () => (p.double.refuseNext(SESSIONS), true),
    losePayment: (how: 'cut' | '500') => (how === 'cut' ? p.double.loseNext(SESSIONS) : p.double.failNext(SESSIONS, { acted: true }), true),
    expectPageAgain: formPageAgain,
    mark: () => new Set(p.double.books.checkoutSessions.keys()),
    payments(mark: Mark) {
      const sessions = [...p.double.books.checkoutSessions.values()].filter((cs) => !mark.has(cs.id));
      const intents = sessions.map((cs) => p.double.books.paymentIntents.get(cs.payment_intent as string)).filter((pi) => pi !== undefined);
      return { charged: intents.filter((pi) => ['succeeded', 'requires_capture'].includes(pi.status)).map((pi) => pi.amount as number), open: sessions.filter((cs) => cs.status === 'open').length };
    },
  };
  return p;
}

/** Statuses in which a PaymentIntent could still be confirmed, and so charge the customer. */
const CONFIRMABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

/**
 * Stripe with the card taken by the Payment Element in our page (`hosted-fields`): the
 * hydrated screen's pay post makes a PaymentIntent at Stripe (held or refused here as
 * Checkout's session is), the customer's browser confirms it under the publishable key as
 * Stripe.js does, then goes to the call's return route. Its other moves are Stripe's.
 */
export function stripeElementProcessor(): ProcessorUnderTest & { double: StripeDouble } {
  return stripeElementOf(stripeProcessor());
}

/** The Payment Element's view of a Stripe processor under test: its double, shop and moves shared (the prototype), its payment route its own. */
export function stripeElementOf(p: ReturnType<typeof stripeProcessor>): ProcessorUnderTest & { double: StripeDouble } {
  const INTENTS = { method: 'POST' as const, path: /^\/v1\/payment_intents$/ };
  return Object.assign(Object.create(p) as typeof p, {
    paymentRoute: 'payment by the Payment Element',
    payPost: async (shop: { url: string }, token: string) =>
      fetch(`${shop.url}/pay/${token}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/json', 'x-csrf-token': await pageCsrf(shop.url, token) },
        body: JSON.stringify({ action: 'pay', gateway: STRIPE_CARD_ID, fields: { [HOSTED_FIELDS]: '1' } }),
      }),
    async visit(_shop: { url: string }, answer: Response): Promise<Visit> {
      const started = (await answer.json()) as { outcome: string; secret: string; location: string };
      expect([answer.status, started.outcome], JSON.stringify(started)).toEqual([200, 'confirm']);
      return {
        async decide(approve: boolean) {
          const confirmed = await publishableConfirm(p.double, p.keys.publishable_key, started.secret, approve ? '4242424242424242' : '4000000000000002', started.location);
          expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(approve ? 200 : 402);
          // Paid or declined, our glue sends the browser to the call's return route (location.assign).
          return Response.redirect(started.location, 303);
        },
      };
    },
    holdPayment: () => p.double.holdNext(INTENTS, { acted: false }),
    refusePayment: () => (p.double.refuseNext(INTENTS), true),
    losePayment: (how: 'cut' | '500') => (how === 'cut' ? p.double.loseNext(INTENTS) : p.double.failNext(INTENTS, { acted: true }), true),
    async expectPageAgain(answer: Response) {
      const body = (await answer.json()) as { outcome: string };
      expect([answer.status, body.outcome], JSON.stringify(body)).toEqual([200, 'view']);
    },
    mark: () => new Set(p.double.books.paymentIntents.keys()),
    payments(mark: Mark) {
      const intents = [...p.double.books.paymentIntents.values()].filter((pi) => !mark.has(pi.id));
      return {
        charged: intents.filter((pi) => ['succeeded', 'requires_capture'].includes(pi.status)).map((pi) => pi.amount as number),
        open: intents.filter((pi) => CONFIRMABLE.has(pi.status)).length,
      };
    },
  });
}

const REDSYS_TYPES: Record<Action, string> = { capture: '2', refund: '3', void: '9' };

/** Redsys on the published test terminal (1, with the query service) or its terminal 2 (without). */
export function redsysProcessor(terminal: '1' | '2' = '1'): ProcessorUnderTest & { double: RedsysDouble } {
  const rests = () => p.double.requests.filter((r) => r.service === 'rest');
  const chargesSent = (identifier: string) => rests().filter((r) => r.params.DS_MERCHANT_IDENTIFIER === identifier);
  const operationsSent = (action: Action, order: string) =>
    rests().filter((r) => r.params.DS_MERCHANT_ORDER === order && r.params.DS_MERCHANT_TRANSACTIONTYPE === REDSYS_TYPES[action]).length;
  const p = {
    name: 'Redsys' as const,
    paymentRoute: 'payment by redirect',
    double: null as unknown as RedsysDouble,
    async start() {
      p.double = await startRedsysDouble();
    },
    close: () => p.double.close(),
    env: () => ({ REDSYS_URL: p.double.url }),
    async connect(api: Client) {
      const connected = await api.post('/processor/', { type: 'redsys', merchant_code: PUBLIC_TEST_MERCHANT, terminal, secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' });
      expect(connected.status, connected.text).toBe(201);
    },
    async pay(shop: { api: Client; url: string }, authorize: boolean): Promise<Paid> {
      const tx = await newTransaction(shop.api, authorize);
      const { url, fields } = await toRedsys(shop.url, p.double.url, tx.token);
      expect((await decideOnPage(url, fields, 'approve')).status).toBe(303);
      expect(p.double.notifications.at(-1)!.status, 'the notification’s answer').toBe(204);
      const [sale] = (await shop.api.get(`/sale/?transaction_id=${tx.id}`)).body.results;
      return { tx, sale: sale.id, handle: paramsOf(fields).DS_MERCHANT_ORDER! };
    },
    books(order: string): ProcessorBooks {
      const o = p.double.books.find(p.double.terminals[Number(terminal) - 1]!, order)!;
      const made = (type: string, response: string) => o.operations.filter((x) => x.type === type && x.response === response);
      const confirmed = sum(made('2', '0900').map((x) => x.amount));
      const approved = o.payment.response === '0000';
      return {
        captured: !approved ? 0 : o.payment.type === '0' ? o.payment.amount : confirmed,
        held: approved && o.payment.type === '1' && made('9', '0400').length === 0 ? o.payment.amount - confirmed : 0,
        refunded: sum(made('3', '0900').map((x) => x.amount)),
        done: { capture: made('2', '0900').length, refund: made('3', '0900').length, void: made('9', '0400').length },
      };
    },
    sent: (move: Move, handle: string) => (move === 'charge' ? chargesSent(handle).length : operationsSent(move, handle)),
    hold: (_move: Move, acted: boolean) => p.double.holdNext('rest', { acted }),
    holdCount: () => p.double.holdNext('query', { acted: false }),
    lose: (_move: Move, how: 'cut' | '500') => (how === 'cut' ? p.double.loseNext('rest') : p.double.failNext('rest', { acted: true })),
    // Redsys's refusal of an operation it will not carry out (here, the over-refund code; the connector treats every errorCode but SIS0051 alike).
    refuse: () => p.double.refuseNext('SIS0057'),
    async saveCard(shop: { api: Client; url: string }, declining: boolean) {
      const request = await saveRequest(shop.api, REDSYS_CARD_ID);
      const started = await payPost(shop, request.token, REDSYS_CARD_ID);
      expect(started.status, await started.clone().text()).toBe(303);
      const { url, fields } = await formOn(shop.url, p.double.url, started.headers.get('location')!);
      // A validation of amount 0 on Redsys's page; its notification saves the card.
      expect((await decideOnPage(url, fields, 'approve')).status).toBe(303);
      expect((await shop.api.get(`/authorization/${request.id}/`)).body.status).toBe('active');
      const saved = p.double.books.find(p.double.terminals[Number(terminal) - 1]!, paramsOf(fields).DS_MERCHANT_ORDER!)!.stored!;
      if (declining) p.double.declineNextCharge();
      return { authorization: request.id, handle: saved.identifier };
    },
    // Nothing Redsys's double does depends on its clock.
    clockAt: () => {},
    /** The orders of the card's merchant-initiated charges (the REST payments naming its identifier). */
    cardCharges: (identifier: string) =>
      [...new Set(chargesSent(identifier).map((r) => r.params.DS_MERCHANT_ORDER!))]
        .map((order) => p.double.books.find(p.double.terminals[Number(terminal) - 1]!, order)?.payment)
        .filter((pay) => pay?.response === '0000')
        .map((pay) => pay!.amount),
    holdNotifications: () => void (p.double.holdNotifications = true),
    sendNotifications: () => p.double.sendNotifications(),
    payPost: (shop: { url: string }, token: string) => payPost(shop, token, REDSYS_CARD_ID),
    async visit(shop: { url: string }, answer: Response): Promise<Visit> {
      // Our page whose form posts the customer to Redsys (it sent Redsys nothing yet).
      const { url, fields } = await redsysForm(shop.url, p.double.url, answer);
      return { decide: (approve) => decideOnPage(url, fields, approve ? 'approve' : 'deny') };
    },
    holdPayment: () => null,
    refusePayment: () => false,
    losePayment: () => false,
    expectPageAgain: formPageAgain,
    mark: () => new Set(p.double.books.orders.keys()),
    payments(mark: Mark) {
      const orders = [...p.double.books.orders.entries()].filter(([key]) => !mark.has(key)).map(([, o]) => o);
      return { charged: orders.filter((o) => o.payment.response === '0000').map((o) => o.payment.amount), open: 0 };
    },
  };
  return p;
}
