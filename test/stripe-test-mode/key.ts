// The key `npm run test:stripe-test-mode` runs with: a Stripe secret key of test mode, from
// STRIPE_TEST_SECRET_KEY, never a live one. Without it the command stops at once, before any
// test, with a message saying what to set (and exits non-zero).

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9_]+$/;

/** The test-mode key, or why there is none. */
export function stripeTestKey(env: NodeJS.ProcessEnv = process.env): { key: string } | { problem: string } {
  const key = env.STRIPE_TEST_SECRET_KEY?.trim();
  if (!key) return { problem: 'STRIPE_TEST_SECRET_KEY is not set: set it to a secret key of your Stripe account in test mode (sk_test_…) to run the Stripe flows against Stripe’s test mode.' };
  if (!TEST_KEY.test(key)) return { problem: 'STRIPE_TEST_SECRET_KEY is not a test-mode key (sk_test_… or rk_test_…): these flows move money, and never run in live mode.' };
  return { key };
}

/** Vitest's global setup: refuses to start without a test-mode key. */
export default function requireStripeTestKey(): void {
  const found = stripeTestKey();
  if ('problem' in found) throw new Error(found.problem);
}
