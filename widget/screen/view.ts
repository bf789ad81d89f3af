// The contract between the server (which builds it from a transaction) and the payment
// screen (which renders it on the server and hydrates it in the browser). Plain data only:
// it is serialised into the page as the initial state.
import type { GatewayField } from '../fields/types';
import type { Language } from '../i18n/language';

export type { Language };

/** What the screen shows; `processing` is only ever a client-side state. */
/** `checking`: a payment's outcome is unknown, being checked with the provider; no other payment is taken. */
export type ScreenStatus = 'pending' | 'checking' | 'paid' | 'declined' | 'cancelled' | 'expired';

/** Amounts are integer minor units of `CheckoutView.currency`. */
export interface ProductLine {
  name: string;
  description: string | null;
  /** Decimal string, e.g. "2" or "1.5". */
  quantity: string;
  unitPrice: number;
  lineTotal: number;
}

export interface AdjustmentLine {
  name: string;
  value: number;
}

export type { GatewayField } from '../fields/types';

/** A gateway's `hosted-fields`: the processor's script and public key, and the payment its fields are made for (minor units). */
export interface HostedOption {
  script: string;
  key: string;
  amount: number;
  currency: string;
  hold: boolean;
}

export interface GatewayOption {
  id: string;
  /** The adapter's code; the screen shows the locale's `gateway.name.{code}`, else `name`. */
  code?: string;
  name: string;
  /** 'form': collect `fields` and pay in place; 'redirect': send the customer to the provider. */
  flow: 'form' | 'redirect';
  fields: GatewayField[];
  /** `hosted-fields`: the processor's script and public key; with JavaScript on its fields take the card in the page (stripe-element.ts). */
  hosted?: HostedOption;
}

export interface Receipt {
  saleId: string;
  amount: number;
  brand: string | null;
  last4: string | null;
  paidAt: string; // ISO 8601
}

/**
 * What the frame needs to talk to the merchant's page. return_url and cancel_url are the
 * merchant's own choice and not secret; the frame reports them as `redirect` and the
 * merchant's page decides whether to go there (the frame never navigates the top window).
 */
export interface EmbedView {
  /** The exact merchant origin to post messages to; the server also lists it in frame-ancestors. */
  parentOrigin: string;
  returnUrl: string | null;
  cancelUrl: string | null;
  /**
   * This render is the immediate result of the customer's own pay or cancel (a form post
   * answered with HTML, or the way back from a redirect gateway's approval page): the
   * frame reports the paid or cancelled state once it has loaded. Any other load of a
   * finished transaction reports nothing, so a merchant page that mounts a paid token on
   * its return_url cannot loop.
   */
  justFinished: boolean;
}

/** A subscription's hosted sign-up: what the customer agrees to, instead of order lines. */
export interface SubscriptionTerms {
  planName: string;
  /** Charged every period, minor units. */
  amount: number;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
  trialDays: number;
  /** ISO 8601: when the first (or, past due, the owed) period is charged. */
  firstChargeAt: string;
  /** The subscription's charges fail: the customer gives a new card for the owed period. */
  pastDue: boolean;
}

export interface CheckoutView {
  /**
   * The transaction's id (UUID). Optional, added by the screen: embed mode reports it to
   * the merchant's page in checkout:completed / checkout:cancelled (the only page whose
   * state carries it).
   */
  transactionId?: string;
  language: Language;
  merchantName: string;
  orderId: string | null;
  currency: string; // ISO 4217
  exponent: number; // minor-unit digits of the currency
  lines: ProductLine[];
  itemsPrice: number;
  tax: AdjustmentLine | null;
  shipping: AdjustmentLine | null;
  coupon: AdjustmentLine | null;
  totalPrice: number;
  expiresAt: string; // ISO 8601
  serverNow: string; // ISO 8601, to correct the client clock for the countdown
  status: ScreenStatus;
  gateways: GatewayOption[];
  selectedGateway: string | null;
  /** Declined message key and per-field error keys from the last POST, if any. */
  error: { message: string; fields: Record<string, string> } | null;
  receipt: Receipt | null;
  csrf: string;
  /** Embed mode (inside the widget's iframe); null on the hosted page. */
  embed: EmbedView | null;
  /** Present on a subscription's sign-up page (/pay/sub_…/). */
  subscription?: SubscriptionTerms;
  /** true on a page that saves a card for later payments (/pay/sav_…/): nothing is charged. */
  saveCard?: boolean;
  // Optional, so views built before these existed (and other screens reusing the
  // components) still type-check.
  /**
   * "Back to {shop}": cancel_url, else the home page of return_url's site; it leaves the
   * payment open. Null in embed mode (the shop is around the frame) or when unknown.
   */
  backUrl?: string | null;
  /** Paid only: where the paid screen links back to, return_url, else the site of cancel_url. */
  returnUrl?: string | null;
  /** Without JavaScript, the customer asked to cancel: the screen asks to confirm. */
  confirmCancel?: boolean;
  /** What a failed form post had in its fields, to fill them again; never the card number or CVC. */
  values?: Record<string, string>;
  /** After too many declined attempts: when paying is possible again (ISO 8601). */
  retryAt?: string | null;
  /** The merchant's brand: a stylesheet of its colours and its logo, both on our origin; null: the page's own look. */
  brand?: { stylesheet: string | null; logo: string | null } | null;
  /** A sandbox environment's page: the top bar says it is in test mode. */
  sandbox?: boolean;
}
