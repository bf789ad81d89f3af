import { describe, expect, it } from 'vitest';
import { stripeTestKey } from '../stripe-test-mode/key';

// `npm run test:stripe-test-mode` starts only with a test-mode key (test/stripe-test-mode/key.ts): without one it says what to set, and a live key is refused.
describe('the key of npm run test:stripe-test-mode', () => {
  it('takes a test-mode secret or restricted key', () => {
    expect(stripeTestKey({ STRIPE_TEST_SECRET_KEY: 'sk_test_FAKE123' })).toEqual({ key: 'sk_test_FAKE123' });
    expect(stripeTestKey({ STRIPE_TEST_SECRET_KEY: ' rk_test_FAKE123\n' })).toEqual({ key: 'rk_test_FAKE123' });
  });

  it('says what to set when there is none, and refuses a live key or anything else', () => {
    expect(stripeTestKey({})).toEqual({ problem: expect.stringContaining('STRIPE_TEST_SECRET_KEY is not set') });
    expect(stripeTestKey({ STRIPE_TEST_SECRET_KEY: '' })).toEqual({ problem: expect.stringContaining('is not set') });
    // A live key's shape, made here from its parts so that nothing that looks like a live key sits in the source.
    const liveShaped = ['sk', 'live', 'NOTAKEY'].join('_');
    for (const key of [liveShaped, 'pk_test_FAKE123', 'whsec_FAKE123']) {
      expect(stripeTestKey({ STRIPE_TEST_SECRET_KEY: key })).toEqual({ problem: expect.stringContaining('not a test-mode key') });
    }
  });
});
