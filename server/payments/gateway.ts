import type { Authentication } from '../domain/authentication';
import type { GatewayCapabilities } from '../domain/gateway-capabilities';
import type { ProcessorFigures, ProcessorPayout } from '../domain/processor-settlement';
import type { GatewayTestData } from '../domain/test-cards';
import type { GatewayField } from '../../widget/fields/types';

export type { Authentication, GatewayCapabilities };

// A payment gateway is an adapter behind this one interface (version 2, docs/payments.md
// "The gateway interface"). The checkout renders what a gateway declares (`flow`,
// `fields`); the use cases in this folder call the rest, always outside any database
// transaction and always with `reference`: our idempotency reference, derived from the
// reservation (see docs/payments.md). A gateway that receives the same reference twice
// must act once and answer the same; `lookup` answers what it did for a reference, so a
// call whose answer was lost can be reconciled.
//
// Every call ends in one of three ways: an answer (it acted, or it declined / refused),
// `not_acted` (it surely did nothing: refused before sending, a definite 4xx-like error),
// or no answer at all (a throw, a timeout: the outcome is unknown, and only a lookup or a
// notification can tell). A version 1 module never says `not_acted`, so whatever it
// throws is an unknown outcome, which is always safe.

/** The version of this interface; a module that declares none was written for version 1. */
export const GATEWAY_INTERFACE_VERSION = 2;

export interface CardSummary {
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
}

/** What every call carries. */
export interface CallContext {
  /** Our idempotency reference for this call. */
  reference: string;
  /** Aborted when the configured gateway timeout runs out: a networked adapter passes it to fetch. */
  signal: AbortSignal;
}

export interface PayInput extends CallContext {
  /** Integer minor units. */
  amount: number;
  currency: string;
  /** true: capture now; false: hold the funds (authorize). */
  capture: boolean;
  /** What the customer entered in the gateway's declared fields, already validated. */
  fields: Record<string, string>;
  /**
   * Since 2, given by the checkout: this call's own return route, absolute. A gateway that
   * answers `redirect` sends the customer back there; what comes back is handed to `return`.
   */
  returnUrl?: string;
  /** Since 2, given by the checkout: the page's language (en, es, fr, au), for a processor's page. */
  language?: string;
}

/**
 * Where a gateway sends the customer: a GET (the checkout answers 303; `method` absent is
 * GET) or a POST of `fields` (the checkout renders a form that submits itself, with a
 * button without JavaScript). Only to an origin the gateway declares (`origins.redirect`).
 */
export interface RedirectTo {
  url: string;
  method?: 'GET' | 'POST';
  fields?: Record<string, string>;
}

/** A sandbox processor's page (`sandboxPage`): its two choices. */
export interface SandboxPage {
  approve: RedirectTo;
  reject: RedirectTo;
}

/**
 * Since 2: the customer must continue on the processor's page. Nothing is decided yet: the
 * call stays open until its return (`return`), a notification or a lookup settles it.
 */
export interface RedirectRequired {
  outcome: 'redirect';
  redirect: RedirectTo;
  /** The processor's own id of what it started (its session), recorded on the call. */
  processorId?: string;
}

/** What came back to a call's return route, for `return` to verify and read. */
export interface ReturnInput extends CallContext {
  processorId?: string;
  /** The return's query string and (for a POST) its form body, every value a string. */
  query: Record<string, string>;
  body: Record<string, string>;
  /** The challenge a redirect challenge's return belongs to (`ChallengeRequired.redirect`). */
  challenge?: string;
}

/**
 * Version 2: the gateway surely did not act (it refused the request before sending it, or
 * answered with a definite error such as a 4xx). Nothing moved; the caller may say so.
 */
export interface NotActed {
  outcome: 'not_acted';
  reason: string;
}

/** `authentication`: optional, absent when the gateway did not authenticate the cardholder. */
export type SettledResult =
  | { outcome: 'approved'; reference: string; card: CardSummary | null; authentication?: Authentication }
  | { outcome: 'declined' | 'insufficient_funds'; card: CardSummary | null; authentication?: Authentication };

/**
 * The issuer asks the customer to authenticate before it decides. Nothing moved: the
 * checkout shows the challenge and, once the customer answers it, calls `resume` with
 * `challenge`. A customer who fails or abandons it leaves the payment open.
 */
export interface ChallengeRequired {
  outcome: 'challenge';
  /** The gateway's id of the challenge, handed back to `resume`. */
  challenge: string;
  /**
   * Since 2, optional: the processor's own id of the payment (or stored method) it started,
   * although nothing is decided yet. Recorded on the gateway call and carried to the call
   * that resumes it, so a lookup of that call is given it (`LookupInput.processorId`).
   */
  processorId?: string;
  /**
   * Since 2, optional: the challenge is the issuer's page: the checkout sends the customer
   * there, and its return (`return` with `challenge`) settles the payment. null: none.
   */
  redirect?: RedirectTo | null;
}

/**
 * Since 2, an answer of `charge`: the issuer declines the charge until the cardholder
 * authenticates (Stripe's `authentication_required` off-session). Nothing moved; the
 * processor keeps the payment (`processorId`), which `confirm` completes with the
 * customer present (docs/processors.md "Payments that need the customer").
 */
export interface AuthenticationRequired {
  outcome: 'authentication_required';
  processorId: string;
  card: CardSummary | null;
}

/** What `confirm` and `confirmed` are given: the charge's own reference and amount, and the processor's payment. */
export interface ConfirmInput extends CallContext {
  /** The processor's id of the payment that answered `authentication_required`. */
  payment: string;
  /** What the charge asked for: the processor's answer must say the same. */
  amount: number;
  currency: string;
}

/**
 * Since 2, `hosted-fields`: the processor's own fields in our page take the card (its script,
 * `Gateway.hostedFields`), never our server. `pay` started the payment at the processor
 * without a card; the page's script confirms it there with `secret` and then brings the
 * customer to the call's return route, where `return` reads what the processor decided.
 * The call stays open meanwhile, as for a redirect; `secret` is handed to that page only,
 * never stored.
 */
export interface HostedFieldsRequired {
  outcome: 'hosted_fields';
  /** What the processor's script confirms the payment with (Stripe: the PaymentIntent's client_secret). */
  secret: string;
  /** The processor's id of the payment it started, recorded on the call. */
  processorId: string;
}

export type PayResult =
  | SettledResult
  | RedirectRequired
  | HostedFieldsRequired
  /** Version 1's redirect, without a destination: no longer followed (treated as not_acted, docs/payments.md). */
  | { outcome: 'redirect'; redirect?: undefined }
  | ChallengeRequired;

/** What the customer did at the challenge, handed back by the checkout. */
export type ChallengeAnswer = 'completed' | 'failed';

export type ActionResult = { ok: true; reference: string } | { ok: false; reason: string };

/** What the gateway did for one of our references. */
export type LookupResult =
  | { status: 'not_found' }
  | {
      status: 'failed';
      reason: 'declined' | 'insufficient_funds' | 'refused';
      card: CardSummary | null;
      authentication?: Authentication;
      /** A saved card's charge declined until the cardholder authenticates: the processor's payment, kept for them to confirm (as `charge`'s `authentication_required`). */
      confirm?: string;
    }
  | { status: 'succeeded'; reference: string; card: CardSummary | null; authentication?: Authentication };

/** The kinds of gateway call, as `lookup` is told which one it is asked about. */
export type GatewayCallKindName = 'pay' | 'charge' | 'store' | 'capture' | 'refund' | 'void' | 'subscription';

/**
 * What `lookup` is given. Since 2, besides our reference: the processor's own id of what the
 * call made or started, when one is known (an approved answer's `reference`, a challenge's
 * `processorId`), and the kind of call it was. Both optional: a call made before, or one
 * whose processor named nothing, has no processor id, and a version 1 module reads neither.
 */
export interface LookupInput extends CallContext {
  processorId?: string;
  kind?: GatewayCallKindName;
  /**
   * A capture, refund or void: the payment's own reference (what the action acts on), so a
   * process that did not send the action, one started after a crash, can read it back there.
   */
  payment?: string;
  /** With `payment`: the action's amount, integer minor units (a processor that shows an order's operations by amount can tell whether it made this one). */
  amount?: number;
}

/** What `store` is given. */
export interface StoreInput extends CallContext {
  fields: Record<string, string>;
  /**
   * The caller can show the customer the issuer's challenge (the hosted save page, or the
   * API's `requires_action`), so the gateway may answer `challenge`; its `resume` then
   * finishes the store. Absent: it must decide without one.
   */
  authenticate?: boolean;
  /**
   * Since 2, given by the hosted save page: the store call's own return route, absolute. A
   * gateway whose processor takes the card on its own page answers `challenge` with
   * `redirect` there and the customer comes back to this route; `resume` then reads what
   * the processor did.
   */
  returnUrl?: string;
  /** Since 2, given by the hosted save page: its language (en, es, fr, au), for a processor's page. */
  language?: string;
  /** Since 2: the processor's customer object of the client the card is saved for (`customer`), when there is one. */
  customer?: string;
}

export interface ActionInput extends CallContext {
  /** The gateway's reference of the payment the action applies to. */
  payment: string;
  amount: number;
}

/**
 * What the processor told us on its own (a webhook), once the module has verified it came
 * from the processor: the same as a lookup of `reference` would answer.
 */
export interface GatewayNotification {
  reference: string;
  result: Exclude<LookupResult, { status: 'not_found' }>;
}

/** Where a gateway's part of a page may load from, frame, connect and post to (CSP `script-src`, `frame-src`, `connect-src`, `form-action`). */
export interface GatewayOrigins {
  script?: readonly string[];
  frame?: readonly string[];
  connect?: readonly string[];
  form?: readonly string[];
  /** Where its `redirect` answers may send the customer (checked before any is followed; not a CSP directive). */
  redirect?: readonly string[];
}

export interface Gateway {
  /** The interface version the module was written for; absent: 1. */
  version?: number;
  /** Stable UUID, the same in every environment. */
  id: string;
  code: string;
  name: string;
  flow: 'form' | 'redirect';
  fields: GatewayField[];
  /** null: every currency. */
  currencies: string[] | null;
  enabled: boolean;
  /**
   * Takes only test cards and moves no real money: offered in sandbox environments only
   * (a processor's own test mode, loaded through GATEWAY_MODULES, sets it too).
   */
  sandbox?: boolean;
  /**
   * A sandbox gateway's test data: which published test numbers reach which outcome
   * (domain/test-cards.ts). Shown on `GET /v1/gateway/`; the demo shop and `trigger` pay with
   * what it declares, and the sandbox bank disputes the captures of its dispute cards.
   */
  testData?: GatewayTestData;
  /**
   * Who settles its money. `platform` (absent: every shared gateway so far, the sandbox's
   * too): it reaches the platform's account, enters the merchant's balance and is paid out
   * by us, and a sale's `destination` can split it. `processor`: the merchant's own
   * processor account settles it (every connected processor's gateway is so, whatever it
   * declares): outside our balance, payouts and dispute fees, and never split
   * (payments/settlement.ts).
   */
  settlement?: 'platform' | 'processor';
  /**
   * What it can do beyond taking a payment; each one left out is true (the sandbox's, and
   * every module written before there were capabilities). The page and the API offer and
   * accept only what the payment's gateway declares (domain/gateway-capabilities.ts).
   */
  capabilities?: Partial<GatewayCapabilities>;
  /**
   * Origins its part of a page needs (its script, its frames, its API, a form it posts to),
   * exact https origins checked at start (registry.ts): added to the Content-Security-Policy
   * of the hosted pages that offer it, and of no other page. Script, frame and connect may
   * also name the subdomains of a host declared exactly (`https://*.js.stripe.com`).
   */
  origins?: GatewayOrigins;
  /**
   * The connected processor account it acts for (the processor's id in the processors API),
   * set on the gateways of a connected processor; absent for the shared ones. What the
   * processor keeps per account (a client's customer object) is kept under it.
   */
  account?: string;
  /**
   * Set only while a test double stands in for the gateway's processor (a replaced processor
   * URL such as STRIPE_API_URL, which is for tests: docs/processors.md): the double's
   * origin, where its own copy of the processor's page is. Its redirects may go there
   * (payments/redirect.ts) and the page's `form-action` allows it; never set with the
   * processor's own URLs, so production keeps the https rule of `origins.redirect`.
   */
  replacedOrigin?: string;
  /**
   * Version 2, optional, `hosted-fields`: the processor's script that takes the card in our
   * page (`script`, on an origin of `origins.script`, or `replacedOrigin` for a test
   * double) and the public key it is given. A page that offers the gateway loads it only
   * with JavaScript on; its pay post then asks `pay` with `fields.hosted_fields = '1'`, which
   * answers `hosted_fields`.
   */
  /** `units`: the payment's amount as the processor's script counts it, when not in ISO 4217's minor units; null: it cannot take that amount. */
  hostedFields?: { script: string; key: string; units?: (amount: number, currency: string) => number | null };
  pay(input: PayInput): Promise<PayResult | NotActed>;
  capture(input: ActionInput): Promise<ActionResult | NotActed>;
  refund(input: ActionInput): Promise<ActionResult | NotActed>;
  void(input: ActionInput): Promise<ActionResult | NotActed>;
  /**
   * Version 2, optional: the second half of a payment whose `pay` answered `challenge`,
   * once the customer has answered it. Its own reference (a call of its own, looked up
   * like a payment). A gateway that never challenges needs none.
   */
  resume?(input: CallContext & { challenge: string; answer: ChallengeAnswer }): Promise<SettledResult | NotActed>;
  /**
   * Version 2, optional: verifies and reads what came back to a call's return route (the
   * customer's return from `redirect`). The processor's answer only: a return that does not
   * verify is `not_acted` (nothing settles); `pending` when the processor has not decided
   * (a notification or a lookup will). Never trust a field the customer could have typed.
   */
  return?(input: ReturnInput): Promise<SettledResult | { outcome: 'pending' } | NotActed>;
  /**
   * Sandbox only: the choices its simulated processor page offers for an open call, each a
   * form post to the call's return route (signed), or null for a reference it did not start;
   * a promise when the sandbox keeps its sessions in the database. A real processor's page
   * is on its own site.
   */
  sandboxPage?(input: { reference: string }): Promise<SandboxPage | null> | SandboxPage | null;
  /**
   * Charges a stored payment method (an authorization's gateway reference), captured at
   * once. Always started by the merchant (`initiator`), never challenged: the cardholder
   * authenticated when the method was stored.
   */
  charge(input: CallContext & { method: string; amount: number; currency: string; initiator?: 'merchant' }): Promise<SettledResult | AuthenticationRequired | NotActed>;
  /**
   * Version 2, optional (with `confirmed`): the customer, back on our page, confirms a
   * charge that answered `authentication_required`. `redirect`: to the issuer's
   * authentication, which sends the customer back to `returnUrl`; or decided at once.
   */
  confirm?(input: ConfirmInput & { returnUrl: string }): Promise<RedirectRequired | SettledResult | NotActed>;
  /** What became of a confirmed payment, read from the processor by its id (never from the return's query); `pending` until the customer has finished. */
  confirmed?(input: ConfirmInput): Promise<SettledResult | { outcome: 'pending' }>;
  /**
   * Stores a payment method without charging it (StoreInput). Its approved answer's
   * `reference` is what a later `charge` is given as `method`.
   */
  store?(input: StoreInput): Promise<SettledResult | ChallengeRequired | NotActed>;
  /**
   * Version 2, optional: makes the processor's own customer object for one of our clients
   * (a Stripe Customer), which the cards saved for that client are attached to. Called once
   * per client and processor account (`account`): the service keeps its id and hands it to
   * every later `store` of that client's cards (payments/processor-customers.ts).
   */
  customer?(input: CallContext & { client: string }): Promise<{ customer: string } | NotActed>;
  /**
   * What the gateway did for one of our references. Optional since version 2: a gateway
   * that can neither be looked up nor notify sends its unknown outcomes to `attention`.
   */
  lookup?(input: LookupInput): Promise<LookupResult>;
  /**
   * Version 2, optional, for a gateway the merchant's own processor account settles: what
   * the processor settled for a captured payment (`payment`: the approved answer's
   * reference), its fee and net from its own record (payments/processor-settlement.ts).
   * null while the processor has no such record yet.
   */
  processorFigures?(input: { payment: string; signal: AbortSignal }): Promise<ProcessorFigures | null>;
  /**
   * Version 2, optional, for a processor whose API lists its own payouts to the merchant's
   * bank (Stripe's; Redsys's gives none): those created since `since`, newest first, at most
   * a few hundred. Read by the daily sweep only (payments/processor-payouts.ts).
   */
  processorPayouts?(input: { since: Date; signal: AbortSignal }): Promise<ProcessorPayout[]>;
  /**
   * Version 2, optional: when the hold on a payment (`payment`: the approved answer's
   * reference) expires, as the processor says (Stripe's `capture_before`); null when it
   * does not. Without it, a hold expires HOLD_EXPIRY_MS after its sale (payments/hold-expiry.ts).
   */
  holdExpiry?(input: CallContext & { payment: string }): Promise<Date | null>;
  /**
   * Version 2, optional: verifies and reads a notification the processor posted to
   * `POST /gateways/{code}/notify`. null: not verified (answered 400, the status of every
   * processor notification that does not verify; nothing changes).
   */
  notification?(input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null>;
}

/**
 * Thrown by a gateway (version 2) when nothing it could say may be believed or asked for
 * again: the processor's answer does not match the request (amount, currency, our
 * reference, its own id), or an operation's outcome is unknown and the processor cannot be
 * asked (a refund on a Redsys terminal without its query service). Never recorded, never
 * retried: the call goes to `attention`, for a person, at the reconciliation's first look
 * (payments/reconcile.ts).
 */
export class GatewayAttention extends Error {}

/**
 * Thrown by a gateway's `lookup` when the processor cannot be asked about the call and its
 * signed notification is what will tell (a payment on a Redsys terminal without its query
 * service). Not for a person: nothing was sent twice or answered wrongly, so the call waits
 * for the notification while the customer may still be on the processor's page, then ends
 * as not made; a notification after that takes the late-payment path (payments/reconcile.ts,
 * redirect.ts, notification.ts).
 */
export class GatewayNotificationOnly extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayNotificationOnly';
  }
}

/** A `GatewayAttention` for an answer that does not match its request: the field, what was asked, what came back. */
export class GatewayMismatch extends GatewayAttention {
  constructor(
    processor: string,
    readonly field: string,
    readonly expected: unknown,
    readonly received: unknown,
  ) {
    super(`${processor}'s answer does not match the request: ${field} is ${JSON.stringify(received)}, expected ${JSON.stringify(expected)}`);
    this.name = new.target.name;
  }
}

export type StoringGateway = Gateway & Required<Pick<Gateway, 'store'>>;

export const canStore = (g: Gateway): g is StoringGateway => g.store !== undefined;
