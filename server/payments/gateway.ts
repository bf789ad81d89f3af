import type { GatewayField } from '../../widget/screen/view';

// A payment gateway is an adapter behind this one interface. The checkout renders what a
// gateway declares (`flow`, `fields`) and calls `pay`; sales call capture/refund/void.
// Adding a gateway means adding an adapter here, not touching the screen.

export interface CardSummary {
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
}

export interface PayInput {
  /** Integer minor units. */
  amount: number;
  currency: string;
  /** true: capture now; false: hold the funds (authorize). */
  capture: boolean;
  /** What the customer entered in the gateway's declared fields, already validated. */
  fields: Record<string, string>;
}

export type PayResult =
  | { outcome: 'approved'; reference: string; card: CardSummary | null }
  | { outcome: 'declined' | 'insufficient_funds'; card: CardSummary | null }
  /** The customer must continue on the provider's page; see `Gateway.redirect`. */
  | { outcome: 'redirect' };

/** What a gateway answers when no customer is present to be redirected. */
export type SettledResult = Exclude<PayResult, { outcome: 'redirect' }>;

export type ActionResult = { ok: true; reference: string } | { ok: false; reason: string };

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
  capture(reference: string, amount: number): Promise<ActionResult>;
  refund(reference: string, amount: number): Promise<ActionResult>;
  void(reference: string, amount: number): Promise<ActionResult>;
  /**
   * Charges a stored payment method (an authorization's reference), captured at once. The
   * same `idempotencyKey` again answers the first call's result instead of charging twice.
   */
  charge(reference: string, input: { amount: number; currency: string }, idempotencyKey?: string): Promise<SettledResult>;
  /** Stores a payment method without charging it; only gateways whose fields the API can take. */
  store?(fields: Record<string, string>): Promise<SettledResult>;
}
