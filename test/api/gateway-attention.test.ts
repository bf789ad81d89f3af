import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { JOB_NAMES } from '../../server/jobs/names';
import { type Gateway, GatewayAttention } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard } from '../../server/payments/sandbox';
import { listCalls } from '../../server/store/gateway-calls';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService } from './harness';
import { payWithCard, priced } from './pay';

// A gateway whose answers cannot be believed (docs/payments.md "The gateway interface",
// `GatewayAttention`): the processor answers about another amount, or an outcome cannot be
// asked about again. Such a call is never recorded and never retried: an answer that
// contradicts its request sends it to `attention` at once, never to pending; a lookup that
// does, at the reconciliation's first look, long before the settle window would; a call
// whose lookup answers plainly is settled as before.

const UNTRUSTED = '0190f5a0-0000-7000-8000-0000000000a7';

/**
 * The sandbox card, whose pay answer comes back about another amount while `payLies` (lost,
 * as a broken connection, otherwise: the charge made, its outcome unknown), and whose
 * lookup does too while `lookupLies`.
 */
function untrusted(): Gateway & { payLies: boolean; lookupLies: boolean } {
  const inner = createSandboxCard();
  const g = {
    ...inner,
    id: UNTRUSTED,
    code: 'untrusted',
    payLies: true,
    lookupLies: true,
    async pay(input: Parameters<Gateway['pay']>[0]) {
      await inner.pay(input);
      throw g.payLies ? new GatewayAttention(`the answer is about ${input.amount + 1}, not ${input.amount}`) : new Error('socket hang up');
    },
    async lookup(input: Parameters<NonNullable<Gateway['lookup']>>[0]) {
      if (g.lookupLies) throw new GatewayAttention('the lookup names another amount');
      return inner.lookup!(input);
    },
  };
  return g;
}

describe.each(ENGINES)('a gateway whose answers cannot be believed, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const gateway = untrusted();

  beforeAll(async () => {
    t = await startIsolatedService(engine, { gateways: createGateways([createSandboxCard(), gateway]) });
    api = await t.newEnvironment('Untrusted shop');
  });
  afterAll(() => t?.close());

  async function paidInDoubt() {
    const tx = await api.post('/transaction/', priced('EUR', 10));
    const res = await payWithCard(t.url, tx.body.token, TEST_CARDS.approved, UNTRUSTED);
    expect(((await res.json()) as { view: { status: string } }).view.status).toBe('checking');
    return tx.body as { id: string };
  }
  const callOf = async (id: string) => (await listCalls(t.service.deps.database.db, id))[0]!;

  it('an answer that contradicts its request goes to attention at once, never pending, recording no sale', async () => {
    Object.assign(gateway, { payLies: true, lookupLies: false });
    const tx = await paidInDoubt();
    expect(await callOf(tx.id)).toMatchObject({ kind: 'pay', state: 'attention' });
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await callOf(tx.id)).state).toBe('attention');
    expect(await api.count(`/sale/?transaction_id=${tx.id}`)).toBe(0);
  });

  it('an outcome unknown, then a lookup that contradicts the request: attention at the first reconciliation, no sale', async () => {
    Object.assign(gateway, { payLies: false, lookupLies: true });
    const tx = await paidInDoubt();
    expect(await callOf(tx.id)).toMatchObject({ kind: 'pay', state: 'pending' });
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await callOf(tx.id)).state).toBe('attention');
    expect(await api.count(`/sale/?transaction_id=${tx.id}`)).toBe(0);
  });

  it('a lookup that answers plainly settles the call as before', async () => {
    Object.assign(gateway, { payLies: false, lookupLies: false });
    const tx = await paidInDoubt();
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await callOf(tx.id)).state).toBe('succeeded');
    expect(await api.count(`/sale/?transaction_id=${tx.id}`)).toBe(1);
  });
});
