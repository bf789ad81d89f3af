import type { Authentication } from '../domain/authentication';
import type { GatewayCapabilities } from '../domain/gateway-capabilities';
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
}

export type PayResult =
  | SettledResult
  /** The customer must continue on the provider's page. */
  | { outcome: 'redirect' }
  | ChallengeRequired;

/** What the customer did at the challenge, handed back by the checkout. */
export type ChallengeAnswer = 'completed' | 'failed';

export type ActionResult = { ok: true; reference: string } | { ok: false; reason: string };

/** What the gateway did for one of our references. */
export type LookupResult =
  | { status: 'not_found' }
  | { status: 'failed'; reason: 'declined' | 'insufficient_funds' | 'refused'; card: CardSummary | null; authentication?: Authentication }
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
   * What it can do beyond taking a payment; each one left out is true (the sandbox's, and
   * every module written before there were capabilities). The page and the API offer and
   * accept only what the payment's gateway declares (domain/gateway-capabilities.ts).
   */
  capabilities?: Partial<GatewayCapabilities>;
  /**
   * Origins its part of a page needs (its script, its frames, its API, a form it posts to),
   * exact https origins checked at start (registry.ts): added to the Content-Security-Policy
   * of the hosted pages that offer it, and of no other page.
   */
  origins?: GatewayOrigins;
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
   * Charges a stored payment method (an authorization's gateway reference), captured at
   * once. Always started by the merchant (`initiator`), never challenged: the cardholder
   * authenticated when the method was stored.
   */
  charge(input: CallContext & { method: string; amount: number; currency: string; initiator?: 'merchant' }): Promise<SettledResult | NotActed>;
  /**
   * Stores a payment method without charging it; only gateways whose fields the API can take.
   * `authenticate`: the caller can show the customer the issuer's challenge (the hosted save
   * page, or the API's `requires_action`), so the gateway may answer `challenge`; its
   * `resume` then finishes the store. Absent: it must decide without one.
   */
  store?(input: CallContext & { fields: Record<string, string>; authenticate?: boolean }): Promise<SettledResult | ChallengeRequired | NotActed>;
  /**
   * What the gateway did for one of our references. Optional since version 2: a gateway
   * that can neither be looked up nor notify sends its unknown outcomes to `attention`.
   */
  lookup?(input: LookupInput): Promise<LookupResult>;
  /**
   * Version 2, optional: verifies and reads a notification the processor posted to
   * `POST /gateways/{code}/notify`. null: not verified (answered 401, nothing changes).
   */
  notification?(input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null>;
}

export type StoringGateway = Gateway & Required<Pick<Gateway, 'store'>>;

export const canStore = (g: Gateway): g is StoringGateway => g.store !== undefined;
