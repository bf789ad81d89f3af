import { defineConfig } from 'vitest/config';

// `npm run test:stripe-test-mode`: the Stripe connector's flows against Stripe's own test
// mode (api.stripe.com) with STRIPE_TEST_SECRET_KEY, for whoever has network. Not part of
// `npm test`, whose Stripe tests run against the double (test/stripe/). docs/processors.md.
export default defineConfig({
  test: {
    include: ['test/stripe-test-mode/**/*.test.ts'],
    globalSetup: ['test/stripe-test-mode/key.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // One at a time: Stripe's test mode rate-limits (25 requests a second).
    maxWorkers: 1,
  },
});
