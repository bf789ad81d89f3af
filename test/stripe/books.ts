import { invalid, noSuch } from './errors';
import { type CardDetails, paymentMethod, type StripeObject } from './objects';

// The double's account: every object it made, by id, its clock and the switches tests turn.
// One account, shared by every accepted key.

/** What a test card does when a PaymentIntent is confirmed with it. */
export type CardBehaviour =
  | { kind: 'succeed' }
  | { kind: 'decline'; decline_code: string; message: string }
  /** 3-D Secure on every payment: `requires_action` on-session, `authentication_required` off-session. */
  | { kind: 'authenticate' }
  /** Saved (a SetupIntent succeeds), then every payment with it is declined. */
  | { kind: 'decline_charges'; decline_code: string; message: string };

const card = (brand: string, last4: string): CardDetails => ({ brand, last4, exp_month: 12, exp_year: 2034, funding: 'credit', country: 'US' });
const declined = (decline_code: string, message = 'Your card was declined.'): CardBehaviour => ({ kind: 'decline', decline_code, message });

/** Stripe's test PaymentMethods (the `pm_card_…` ids): each use makes a new PaymentMethod of that card. */
export const TEST_PAYMENT_METHODS = {
  pm_card_visa: { card: card('visa', '4242'), behaviour: { kind: 'succeed' } },
  pm_card_mastercard: { card: card('mastercard', '4444'), behaviour: { kind: 'succeed' } },
  pm_card_chargeDeclined: { card: card('visa', '0002'), behaviour: declined('generic_decline') },
  pm_card_chargeDeclinedInsufficientFunds: { card: card('visa', '9995'), behaviour: declined('insufficient_funds', 'Your card has insufficient funds.') },
  pm_card_chargeDeclinedFraudulent: { card: card('visa', '0019'), behaviour: declined('fraudulent') },
  pm_card_authenticationRequired: { card: card('visa', '3184'), behaviour: { kind: 'authenticate' } },
  /** Saved without trouble (a SetupIntent succeeds), then every charge of it is declined: Stripe's 4000 0000 0000 0341. */
  pm_card_chargeCustomerFail: { card: card('visa', '0341'), behaviour: { kind: 'decline_charges', decline_code: 'generic_decline', message: 'Your card was declined.' } },
  pm_card_threeDSecure2Required: { card: card('visa', '3220'), behaviour: { kind: 'authenticate' } },
} as const satisfies Record<string, { card: CardDetails; behaviour: CardBehaviour }>;

export type TestPaymentMethod = keyof typeof TEST_PAYMENT_METHODS;

export const SPENT_MESSAGE =
  'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.';

export function openBooks(baseUrl: () => string) {
  let offset = 0;
  const books = {
    /** Stripe's clock, in Unix seconds; tests move it (`advance`) instead of waiting. */
    now: () => Math.floor(Date.now() / 1000) + offset,
    advance(seconds: number) {
      offset += seconds;
    },
    baseUrl,
    paymentIntents: new Map<string, StripeObject>(),
    charges: new Map<string, StripeObject>(),
    /** The balance transactions captured charges made (objects.ts `settle`). */
    balanceTransactions: new Map<string, StripeObject>(),
    refunds: new Map<string, StripeObject>(),
    customers: new Map<string, StripeObject>(),
    paymentMethods: new Map<string, StripeObject>(),
    checkoutSessions: new Map<string, StripeObject>(),
    setupIntents: new Map<string, StripeObject>(),
    disputes: new Map<string, StripeObject>(),
    /** The account's payouts to its bank, made on Stripe's own schedule (`StripeDouble.payOut`). */
    payouts: new Map<string, StripeObject>(),
    /** Files uploaded to the files host, with their bytes. */
    files: new Map<string, StripeObject>(),
    fileBytes: new Map<string, Buffer>(),
    /** Each session's `payment_intent_data`: what its PaymentIntent is made with when the customer pays. */
    intentData: new Map<string, StripeObject>(),
    /** Events to send, in order (server.ts delivers them to the registered webhook endpoints). */
    outbox: [] as { type: string; object: StripeObject; previous?: StripeObject }[],
    behaviours: new Map<string, CardBehaviour>(),
    /** PaymentMethods used with a PaymentIntent without a Customer: Stripe refuses them ever after. */
    spent: new Set<string>(),
    /** How long after its creation an object appears in search results (Stripe: usually under a minute). */
    searchLagSeconds: 60,
    /** How long an authorization holds, as `capture_before` says (7 days for online card payments; other periods for some cards, and with extended authorization). */
    holdSeconds: 7 * 24 * 3600,
    /** New refunds go `pending` (then `failRefund` fails them, as a bank can days later). */
    refundsGoPending: false,

    /** A PaymentMethod as the browser's Stripe.js would make it, or the new one a test id makes. */
    newPaymentMethod(test: TestPaymentMethod): StripeObject {
      const { card: details, behaviour } = TEST_PAYMENT_METHODS[test];
      const pm = paymentMethod(details, books.now());
      books.paymentMethods.set(pm.id, pm);
      books.behaviours.set(pm.id, behaviour);
      return pm;
    },

    /** The PaymentMethod a request names: a test id makes a new one; a spent one is refused. */
    usePaymentMethod(id: string): StripeObject {
      if (id in TEST_PAYMENT_METHODS) return books.newPaymentMethod(id as TestPaymentMethod);
      const pm = books.paymentMethods.get(id);
      if (!pm) throw noSuch('PaymentMethod', id, 'payment_method');
      if (books.spent.has(id)) throw invalid('payment_method_unexpected_state', SPENT_MESSAGE, 'payment_method');
      return pm;
    },

    customer(id: string): StripeObject {
      const found = books.customers.get(id);
      if (!found) throw noSuch('customer', id, 'customer');
      return found;
    },

    paymentIntent(id: string): StripeObject {
      const found = books.paymentIntents.get(id);
      if (!found) throw noSuch('payment_intent', id);
      return found;
    },
  };
  return books;
}

export type Books = ReturnType<typeof openBooks>;

/** Expandable fields, per object, and where their objects are kept. */
const EXPANDABLE: Record<string, Record<string, keyof Books>> = {
  payment_intent: { latest_charge: 'charges', payment_method: 'paymentMethods', customer: 'customers' },
  charge: { payment_intent: 'paymentIntents', customer: 'customers', balance_transaction: 'balanceTransactions' },
  refund: { charge: 'charges', payment_intent: 'paymentIntents' },
  dispute: { charge: 'charges', payment_intent: 'paymentIntents' },
  'checkout.session': { payment_intent: 'paymentIntents', customer: 'customers', setup_intent: 'setupIntents' },
  setup_intent: { payment_method: 'paymentMethods', customer: 'customers' },
};

/** A copy of `object` with the `expand[]` paths replaced by their objects (`data.x` in a list); an unknown path is a 400. */
export function expand(books: Books, object: StripeObject, paths: string[] = []): StripeObject {
  const copy = structuredClone(object);
  for (const path of paths) {
    const [head, ...rest] = path.split('.');
    if (copy.object === 'list' || copy.object === 'search_result') {
      if (head !== 'data' || rest.length === 0) throw invalid(null, `This property cannot be expanded (${path}).`, 'expand');
      copy.data = copy.data.map((item: StripeObject) => expand(books, item, [rest.join('.')]));
      continue;
    }
    const store = EXPANDABLE[copy.object]?.[head!];
    if (!store) throw invalid(null, `This property cannot be expanded (${path}).`, 'expand');
    const id = copy[head!];
    const found = typeof id === 'string' ? (books[store] as Map<string, StripeObject>).get(id) : undefined;
    // `a.b`: the expanded object's own field expanded in turn, as Stripe does up to four levels.
    if (found) copy[head!] = rest.length > 0 ? expand(books, found, [rest.join('.')]) : structuredClone(found);
  }
  return copy;
}
