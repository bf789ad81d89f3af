import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { HELD_ID, type HeldGateway, withHeld } from './held-gateway';
import { payWithCard } from './pay';

// Amounts move only from confirmed states: while a capture is still at the processor, its
// amount is neither refundable nor free to capture or void again; once the processor
// confirms it, it is refundable. The same for a refund in flight.

describe.each(ENGINES)('amounts move only from confirmed states, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let held: HeldGateway;

  beforeAll(async () => {
    const g = withHeld();
    held = g.held;
    t = await startTestService(engine, { gateways: g.gateways });
    api = await t.newEnvironment('Slow Processor Shop');
  });
  afterAll(() => t?.close());

  /** A sale of 17.00 EUR held at the slow processor. */
  async function heldSale(): Promise<string> {
    const tx = await api.post('/transaction/', transactionBody({ authorize: true }));
    expect(tx.status, tx.text).toBe(201);
    expect((await payWithCard(t.url, tx.body.token, undefined, HELD_ID)).status).toBe(200);
    const sales = await api.get(`/sale/?transaction_id=${tx.body.id}`);
    expect(sales.body.results).toMatchObject([{ status: 'held', held: 17 }]);
    return sales.body.results[0].id;
  }

  it('a capture still at the processor is not refundable yet (409 saying so); once confirmed it is', async () => {
    const id = await heldSale();
    const capture = held.hold('capture');
    const capturing = api.post(`/sale/${id}/capture/`, { amount: 10 });
    await capture.arrived;

    // Still held as far as anyone can tell: nothing captured, nothing refundable.
    expect((await api.get(`/sale/${id}/`)).body).toMatchObject({ status: 'held', held: 17, captured: 0, refundable: 0 });
    const early = await api.post(`/sale/${id}/refund/`, { amount: 10 });
    expect(early.status, early.text).toBe(409);
    expect(early.body.detail).toMatch(/a capture of 10 EUR is still in flight at the processor/);
    // The capture's amount is reserved: what is left of the hold is 7.00, no more.
    const over = await api.post(`/sale/${id}/void/`, { amount: 8 });
    expect(over.status, over.text).toBe(409);
    expect((await api.get(`/sale/?status=captured&transaction_id=${(await api.get(`/sale/${id}/`)).body.transaction_id}`)).body.count).toBe(0);

    capture.release();
    const captured = await capturing;
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'partially_captured', held: 7, captured: 10, refundable: 10 });
    const refund = await api.post(`/sale/${id}/refund/`, { amount: 10 });
    expect(refund.status, refund.text).toBe(200);
    expect(refund.body).toMatchObject({ captured: 10, refunded: 10, refundable: 0 });
  });

  it('a refund in flight is counted: a second refund cannot take the same money, and nothing shows refunded until confirmed', async () => {
    const id = await heldSale();
    expect((await api.post(`/sale/${id}/capture/`, undefined)).status).toBe(200);
    const refund = held.hold('refund');
    const refunding = api.post(`/sale/${id}/refund/`, { amount: 12 });
    await refund.arrived;
    expect((await api.get(`/sale/${id}/`)).body).toMatchObject({ status: 'captured', captured: 17, refunded: 0, refundable: 5 });
    const second = await api.post(`/sale/${id}/refund/`, { amount: 6 });
    expect(second.status, second.text).toBe(409);
    expect(second.body.detail).not.toMatch(/in flight/);
    refund.release();
    expect((await refunding).body).toMatchObject({ status: 'partially_refunded', refunded: 12, refundable: 5 });
    expect((await api.post(`/sale/${id}/refund/`, { amount: 5 })).body).toMatchObject({ status: 'refunded', refundable: 0 });
  });
});
