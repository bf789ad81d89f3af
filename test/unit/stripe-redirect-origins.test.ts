import { describe, expect, it } from 'vitest';
import { mergeOrigins } from '../../server/checkout/security';
import { checkRedirect } from '../../server/payments/redirect';
import { STRIPE_AUTHENTICATION_ORIGIN } from '../../server/payments/stripe/confirm';
import { STRIPE_CHECKOUT_ORIGIN, stripeGateways } from '../../server/payments/stripe/gateway';

// Where Stripe's card gateway may send a customer (docs/payments.md "Redirects and
// returns"): Stripe Checkout's https origin and its 3-D Secure host (a charge the customer
// confirms, docs/processors.md) always; a test double's origin only when the
// double stands in for Stripe's API (STRIPE_API_URL, tests only), never otherwise, and never
// another loopback origin (this service's own included), even for a test-mode (sandbox) gateway.

const OWN = 'http://127.0.0.1:3000';
const DOUBLE = 'http://127.0.0.1:45678';
const at = (url: string) => ({ url, method: 'GET' });

describe('Stripe gateway redirect origins', () => {
  it('with Stripe’s own API: Checkout’s origin only, https, in live and test mode alike', () => {
    for (const secretKey of ['sk_live_abc123', 'sk_test_abc123']) {
      const [gateway] = stripeGateways({ secretKey });
      expect(gateway!.flow).toBe('redirect');
      expect(gateway!.origins?.redirect).toEqual([STRIPE_CHECKOUT_ORIGIN, STRIPE_AUTHENTICATION_ORIGIN]);
      expect(gateway!.replacedOrigin).toBeUndefined();
      expect(checkRedirect(gateway!, at('https://checkout.stripe.com/c/pay/cs_test_1'), OWN)).toHaveProperty('to');
      expect(checkRedirect(gateway!, at('https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1'), OWN)).toHaveProperty('to');
      expect(checkRedirect(gateway!, at('http://checkout.stripe.com/c/pay/cs_test_1'), OWN)).toHaveProperty('refused');
      expect(checkRedirect(gateway!, at(`${DOUBLE}/c/pay/cs_test_1`), OWN)).toHaveProperty('refused');
      // A test-mode gateway is a sandbox one, but not the sandbox that draws its page on ours.
      expect(checkRedirect(gateway!, at(`${OWN}/pay/x/provider/gc_1/`), OWN)).toHaveProperty('refused');
      expect(mergeOrigins([gateway!]).redirect).toEqual([STRIPE_CHECKOUT_ORIGIN, STRIPE_AUTHENTICATION_ORIGIN]);
    }
  });

  it('with a double standing in (STRIPE_API_URL): its origin too, and no other loopback origin', () => {
    const [gateway] = stripeGateways({ secretKey: 'sk_test_abc123', apiUrl: DOUBLE });
    expect(gateway!.replacedOrigin).toBe(DOUBLE);
    expect(checkRedirect(gateway!, at(`${DOUBLE}/c/pay/cs_test_1`), OWN)).toHaveProperty('to');
    expect(checkRedirect(gateway!, at('http://127.0.0.1:45679/c/pay/cs_test_1'), OWN)).toHaveProperty('refused');
    expect(checkRedirect(gateway!, at(`http://user:pw@127.0.0.1:45678/c/pay/cs_test_1`), OWN)).toHaveProperty('refused');
    expect(mergeOrigins([gateway!]).redirect).toEqual([STRIPE_CHECKOUT_ORIGIN, STRIPE_AUTHENTICATION_ORIGIN, DOUBLE]);
  });
});
