// Test card numbers as the card networks and processors publish them (Stripe's own, for the
// outcomes that have one): a sandbox gateway declares which of them reach which outcome
// (payments/gateway.ts `testData`), a live environment refuses every one of them
// (payments/live.ts), and the checkout's card-testing limit does not count them
// (checkout/limits.ts): every developer and every test run types them.

/** One card per outcome, shared with the tests and the docs. */
export const TEST_CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
  /** The issuer challenges the cardholder; completing the challenge approves. */
  challenged: '4000 0027 6000 3184',
  /** The issuer authenticates the cardholder without a challenge, and approves. */
  frictionless: '4000 0000 0000 3055',
  /** The issuer challenges the cardholder, then declines even a completed challenge. */
  challengedThenDeclined: '4000 0084 0000 1629',
  /** Approves; the sandbox bank disputes the capture as fraudulent a few seconds later (payments/disputes.ts). */
  disputedFraudulent: '4000 0000 0000 0259',
  /** Approves; then disputed as a product not received. */
  disputedNotReceived: '4000 0000 0000 2685',
  /** Approves; then the bank opens an inquiry (a `warning_*` dispute that moves no money). */
  disputeInquiry: '4000 0000 0000 1976',
} as const;

/** What paying with a test card does in a sandbox: the keys of TEST_CARDS. */
export type TestCardBehaviour = keyof typeof TEST_CARDS;

/** A sandbox gateway's test data: the numbers that reach each outcome it can reach. */
export interface GatewayTestData {
  cards: readonly { number: string; behaviour: TestCardBehaviour }[];
}

/** The test data of the cards named, as a gateway declares it. */
export const testData = (...behaviours: TestCardBehaviour[]): GatewayTestData => ({
  cards: behaviours.map((behaviour) => ({ number: TEST_CARDS[behaviour], behaviour })),
});

/**
 * Stripe's test cards (docs.stripe.com/testing), typed in Stripe's own fields in its test
 * mode: those TEST_CARDS shares with Stripe, and for 3-D Secure the card Stripe documents
 * as requiring authentication on every on-session payment (TEST_CARDS' `challenged` is the
 * sandbox's).
 */
export const STRIPE_TEST_DATA: GatewayTestData = {
  cards: [...testData('approved').cards, { number: '4000 0025 0000 3155', behaviour: 'challenged' }, ...testData('insufficientFunds', 'declined').cards],
};

/** The first number the sandbox gateways among `gateways` declare for `behaviour`. */
export function testCardFor(gateways: readonly { sandbox?: boolean; testData?: GatewayTestData }[], behaviour: TestCardBehaviour): string | undefined {
  for (const g of gateways) {
    const card = g.sandbox ? g.testData?.cards.find((c) => c.behaviour === behaviour) : undefined;
    if (card) return card.number;
  }
  return undefined;
}
