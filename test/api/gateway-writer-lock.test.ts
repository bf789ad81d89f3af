import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { CONTROLLED_ID, type ControlledGateway, withControlled } from './gateways';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard } from './pay';

// No database lock is held across a gateway call: while one hangs (for as long as the
// test likes: the timeout is far away), another environment creates transactions. On
// SQLite a gateway call inside a transaction would hold the single writer, and the
// create below would wait for the gateway: this test would then time out.

describe.each(ENGINES)('a hanging gateway on %s', (engine) => {
  let t: TestService;
  let shopA: Client;
  let shopB: Client;
  let gw: ControlledGateway;

  beforeAll(async () => {
    const { gateways, controlled } = withControlled();
    gw = controlled;
    t = await startTestService(engine, { gateways, env: { GATEWAY_TIMEOUT_MS: '600000' } });
    shopA = await t.newEnvironment('Shop A');
    shopB = await t.newEnvironment('Shop B');
  });
  afterAll(async () => {
    await gw?.completeHung();
    await t?.close();
  });

  it('holds no writer: another environment creates a transaction while a capture hangs', async () => {
    const tx = (await shopA.post('/transaction/', transactionBody({ authorize: true }))).body;
    gw.mode = 'ok';
    const paid = await payWithCard(t.url, tx.token, TEST_CARDS.approved, CONTROLLED_ID);
    expect(paid.status).toBe(200);
    const sale = (await shopA.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];

    gw.mode = 'hang';
    const arrived = gw.nextCall();
    const capture = shopA.post(`/sale/${sale.id}/capture/`, {});
    expect((await arrived).method).toBe('capture');

    const created = await shopB.post('/transaction/', transactionBody());
    expect(created.status).toBe(201);
    // Created while the gateway still holds the capture.
    expect(gw.hanging).toBe(1);

    // The gateway acted but its answer was lost: an unknown outcome, never 'nothing moved'.
    await gw.completeHung();
    const answer = await capture;
    expect(answer.status).toBe(202);
    expect(answer.body.status).toBe('pending');
  });

  it('holds no writer: another environment creates a transaction while a checkout payment hangs', async () => {
    const tx = (await shopA.post('/transaction/', transactionBody())).body;
    gw.mode = 'hang';
    const arrived = gw.nextCall();
    const paying = payWithCard(t.url, tx.token, TEST_CARDS.approved, CONTROLLED_ID);
    expect((await arrived).method).toBe('pay');

    expect((await shopB.post('/transaction/', transactionBody())).status).toBe(201);
    expect(gw.hanging).toBe(1);

    await gw.completeHung();
    // Its answer was lost: the screen says the payment is being checked and takes no other.
    const answer = (await (await paying).json()) as { view: { status: string } };
    expect(answer.view.status).toBe('checking');
  });
});
