import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { expect, type Service, startService, test } from './fixtures';

// A spec file's own service with the Stripe double connected to its demo sandbox through
// the processors API (as a merchant connects Stripe), started once for the file; `name`
// makes the file's keys its own (the double refuses a key it knows for another account).

const key = (prefix: string, name: string, suffix: string, length: number) => `${prefix}${name}${'0'.repeat(length - prefix.length - name.length - suffix.length)}${suffix}`;

/** `standInStripeJs`: the page loads the double's stand-in Stripe.js (STRIPE_JS_URL), so it offers the Payment Element. */
export function useStripeShop(name: string, options: { standInStripeJs?: boolean } = {}): { readonly service: Service; readonly stripe: StripeDouble } {
  let service: Service | undefined;
  let stripe: StripeDouble | undefined;
  let stop: (() => Promise<void>) | undefined;
  test.beforeAll(async () => {
    stripe = await startStripeDouble();
    ({ service, stop } = await startService({ BACKGROUND_WORK: 'false', STRIPE_API_URL: stripe.url, ...(options.standInStripeJs ? { STRIPE_JS_URL: `${stripe.url}/v3/` } : {}) }));
    const connected = await service.api('POST', '/processor/', {
      type: 'stripe',
      secret_key: key('sk_test_FAKE', `${name}Key`, 'SK01', 65),
      publishable_key: key('pk_test_FAKE', `${name}Key`, 'PK01', 65),
      webhook_secret: key('whsec_FAKE', `${name}WebhookSecret`, '1', 34),
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
  });
  test.afterAll(async () => {
    await stop?.();
    await stripe?.close();
  });
  return {
    get service() {
      return service!;
    },
    get stripe() {
      return stripe!;
    },
  };
}
