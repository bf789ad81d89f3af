import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { type Client, ENGINES, startTestService, type TestService } from './harness';

// A connected processor's gateways are its environment's (registry.ts `of`, wired in
// service.ts): listed on GET /v1/gateway/ of that environment only, from the moment it is
// connected, and no longer once it is disconnected, in the same process that served the
// change and without a restart.

let serial = 0;
const testKeys = () => {
  const n = String(++serial).padStart(4, '0');
  return { secret_key: `sk_test_51Gw${'g'.repeat(40)}S${n}`, webhook_secret: `whsec_Gw${'h'.repeat(24)}${n}`, publishable_key: `pk_test_51Gw${'p'.repeat(40)}P${n}` };
};

const listed = async (api: Client) => ((await api.get('/gateway/')).body.results as { id: string }[]).map((g) => g.id);

describe.each(ENGINES)('processor gateways by environment on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;

  beforeAll(async () => {
    double = await startStripeDouble();
    t = await startTestService(engine, { env: { STRIPE_API_URL: double.url } });
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('lists a connected Stripe account’s gateway in its own environment only, until it is disconnected', async () => {
    const shop = await t.newEnvironment('Connected shop');
    const other = await t.newEnvironment('Other shop');
    expect(await listed(shop)).not.toContain(STRIPE_CARD_ID);

    const connected = await shop.post('/processor/', { type: 'stripe', ...testKeys() });
    expect(connected.status, connected.text).toBe(201);
    expect(await listed(shop)).toContain(STRIPE_CARD_ID);
    // Stripe's published test cards, typed in Stripe's fields in its test mode.
    const gateway = await shop.get(`/gateway/${STRIPE_CARD_ID}/`);
    expect(gateway.status).toBe(200);
    expect(gateway.body.test_cards).toEqual([
      { number: '4242 4242 4242 4242', behaviour: 'approved' },
      { number: '4000 0025 0000 3155', behaviour: 'challenged' },
      { number: '4000 0000 0000 9995', behaviour: 'insufficientFunds' },
      { number: '4000 0000 0000 0002', behaviour: 'declined' },
    ]);
    expect(((await shop.get('/gateway/')).body.results as { id: string; test_cards: unknown }[]).find((g) => g.id === STRIPE_CARD_ID)!.test_cards).toEqual(gateway.body.test_cards);
    expect(await listed(other)).not.toContain(STRIPE_CARD_ID);
    expect((await other.get(`/gateway/${STRIPE_CARD_ID}/`)).status).toBe(404);

    expect((await shop.request('DELETE', `/processor/${connected.body.id}/`)).status).toBe(204);
    expect(await listed(shop)).not.toContain(STRIPE_CARD_ID);
    expect((await shop.get(`/gateway/${STRIPE_CARD_ID}/`)).status).toBe(404);
  });
});
