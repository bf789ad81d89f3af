import type { GatewayField } from '../../widget/fields/types';

// A payment gateway is an adapter behind this one interface. The checkout renders what a
// gateway declares (`flow`, `fields`); the use cases in this folder call the rest, always
// outside any database transaction and always with `reference`: our idempotency
// reference, derived from the reservation (see docs/payments.md). A gateway that receives
// the same reference twice must act once and answer the same; `lookup` answers what it
// did for a reference, so a call whose answer was lost can be reconciled.

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

export type SettledResult =
  | { outcome: 'approved'; reference: string; card: CardSummary | null }
  | { outcome: 'declined' | 'insufficient_funds'; card: CardSummary | null };

export type PayResult =
  | SettledResult
  /** The customer must continue on the provider's page. */
  | { outcome: 'redirect' };

export type ActionResult = { ok: true; reference: string } | { ok: false; reason: string };

/** What the gateway did for one of our references. */
export type LookupResult =
  | { status: 'not_found' }
  | { status: 'failed'; reason: 'declined' | 'insufficient_funds' | 'refused'; card: CardSummary | null }
  | { status: 'succeeded'; reference: string; card: CardSummary | null };

export interface ActionInput extends CallContext {
  /** The gateway's reference of the payment the action applies to. */
  payment: string;
  amount: number;
}

export interface Gateway {
  /** Stable UUID, the same in every environment. */
  id: string;
  code: string;
  name: string;
  flow: 'form' | 'redirect';
  fields: GatewayField[];
  /** null: every currency. */
  currencies: string[] | null;
  enabled: boolean;
  pay(input: PayInput): Promise<PayResult>;
  capture(input: ActionInput): Promise<ActionResult>;
  refund(input: ActionInput): Promise<ActionResult>;
  void(input: ActionInput): Promise<ActionResult>;
  /** Charges a stored payment method (an authorization's gateway reference), captured at once. */
  charge(input: CallContext & { method: string; amount: number; currency: string }): Promise<SettledResult>;
  /** Stores a payment method without charging it; only gateways whose fields the API can take. */
  store?(input: CallContext & { fields: Record<string, string> }): Promise<SettledResult>;
  lookup(input: CallContext): Promise<LookupResult>;
}

export type StoringGateway = Gateway & Required<Pick<Gateway, 'store'>>;

export const canStore = (g: Gateway): g is StoringGateway => g.store !== undefined;
