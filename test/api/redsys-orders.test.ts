import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processorGatewayLoader } from '../../server/payments/processor-gateways';
import { REDSYS_CARD_ID, type RedsysGateway } from '../../server/payments/redsys/gateway';
import { ORDER_ATTEMPTS, orderNumber } from '../../server/payments/redsys/order';
import { paymentRef } from '../../server/payments/redsys/references';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { claimOrderNumber } from '../../server/store/redsys-orders';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { type Client, ENGINES, startTestService, type TestService } from './harness';

// Redsys order numbers are unique per (merchant code, terminal), whichever environment
// connects the terminal (issue 46; docs/processors.md "Order numbers"), on both engines
// against the Redsys test double (REDSYS_URL): claims of one number at once let one
// reference in (the primary key of migration 109); two environments' terminals (the same
// merchant code and terminal) paying at once never share a number; a number another
// reference holds is skipped for the next one, and with every number taken the payment or
// charge is refused before Redsys is asked. The connector is reached as the service builds
// it (processorGatewayLoader), so the claims are the database's.

const terminalOne = { type: 'redsys', merchant_code: PUBLIC_TEST_MERCHANT, terminal: '1', secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' };

describe.each(ENGINES)('Redsys order numbers on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  const shops: { api: Client; processorId: string; card: RedsysGateway }[] = [];
  const db = () => t.service.deps.database.db;
  const claim = (orderNumber: string, reference: string, processorId = shops[0]!.processorId) =>
    claimOrderNumber(db(), { merchantCode: PUBLIC_TEST_MERCHANT, terminal: '1', orderNumber, reference, processorId }, new Date());
  const pay = (card: RedsysGateway, reference: string) => card.pay({ reference, signal: AbortSignal.timeout(5000), amount: 1250, currency: 'EUR', capture: true, fields: {}, returnUrl: 'https://shop.example/return' });
  const orderSent = (fields: Record<string, string>) => (JSON.parse(Buffer.from(fields.Ds_MerchantParameters!, 'base64').toString('utf8')) as Record<string, string>).DS_MERCHANT_ORDER;

  beforeAll(async () => {
    double = await startRedsysDouble();
    t = await startTestService(engine, { env: { REDSYS_URL: double.url } });
    const load = processorGatewayLoader({ db: db(), config: t.service.deps.config, log: t.service.deps.log });
    // Two environments, one terminal: the bank's numbers are the terminal's, not an environment's.
    for (const name of ['Redsys shop A', 'Redsys shop B']) {
      const api = await t.newEnvironment(name);
      const connected = await api.post('/processor/', terminalOne);
      expect(connected.status, connected.text).toBe(201);
      const card = (await load(api.keys.environment_id)).active.find((g) => g.id === REDSYS_CARD_ID) as RedsysGateway;
      shops.push({ api, processorId: connected.body.id, card });
    }
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('lets one reference claim a number when several claim it at once, and the same reference again', async () => {
    for (let round = 0; round < 10; round++) {
      const order = orderNumber(`race-${round}`);
      const won = await Promise.all(Array.from({ length: 6 }, (_, i) => claim(order, `race-${round}-${i}`)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = `race-${round}-${won.indexOf(true)}`;
      expect(await claim(order, winner)).toBe(true);
    }
  });

  it('two environments on one terminal paying at once never share an order number, and a resend keeps its number', async () => {
    const references = Array.from({ length: 20 }, (_, i) => `concurrent-${i}-${crypto.randomUUID()}`);
    const paid = await Promise.all(references.map((reference, i) => pay(shops[i % 2]!.card, reference)));
    const orders = paid.map((p) => {
      if (p.outcome !== 'redirect') throw new Error(`not sent to Redsys: ${JSON.stringify(p)}`);
      expect(orderSent(p.redirect.fields)).toBe(p.processorId);
      return p.processorId;
    });
    expect(new Set(orders).size).toBe(references.length);
    const again = await pay(shops[0]!.card, references[0]!);
    expect(again.outcome === 'redirect' && again.processorId).toBe(orders[0]);
    const rows = await db().selectFrom('redsys_orders').select(['order_number', 'reference']).where('reference', 'in', references).execute();
    expect(new Map(rows.map((r) => [r.reference, r.order_number]))).toEqual(new Map(references.map((r, i) => [r, orders[i]!])));
  });

  it('skips a number another reference holds on the terminal for its next one', async () => {
    const reference = `collides-${crypto.randomUUID()}`;
    // Another environment's payment took this reference's first number.
    expect(await claim(orderNumber(reference, 0), `other-${reference}`, shops[1]!.processorId)).toBe(true);
    const paid = await pay(shops[0]!.card, reference);
    if (paid.outcome !== 'redirect') throw new Error(`not sent to Redsys: ${JSON.stringify(paid)}`);
    expect(paid.processorId).toBe(orderNumber(reference, 1));
    expect(orderSent(paid.redirect.fields)).toBe(orderNumber(reference, 1));
  });

  it('refuses a payment and a charge whose every number is taken, before Redsys is asked', async () => {
    const asked = double.requests.length;
    const [payRef, chargeRef] = [`taken-pay-${crypto.randomUUID()}`, `taken-charge-${crypto.randomUUID()}`];
    for (const reference of [payRef, chargeRef]) {
      for (let attempt = 0; attempt < ORDER_ATTEMPTS; attempt++) expect(await claim(orderNumber(reference, attempt), `other-${attempt}-${reference}`)).toBe(true);
    }
    expect(await pay(shops[0]!.card, payRef)).toEqual({ outcome: 'not_acted', reason: expect.stringContaining('order number') });
    const stored = paymentRef({ order: '0001stored', currencyCode: '978', stored: { identifier: 'FAKEIDENTIFIER', cofTxnid: 'FAKETXN' } });
    const charged = await shops[0]!.card.charge({ reference: chargeRef, signal: AbortSignal.timeout(5000), method: stored, amount: 990, currency: 'EUR', initiator: 'merchant' });
    expect(charged).toEqual({ outcome: 'not_acted', reason: expect.stringContaining('order number') });
    expect(double.requests.length).toBe(asked);
  });
});
