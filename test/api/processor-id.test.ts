import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { Gateway, LookupInput, LookupResult } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { listCalls } from '../../server/store/gateway-calls';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { payWithCard } from './pay';

// The processor's own id on the gateway call (issue 45, "Interface, next version"): a
// gateway's approval (its reference) or challenge (its `processorId`) is recorded on the
// call, carried to the call that resumes a challenge, and given to `lookup` with the call's
// kind when reconciliation asks about a call whose answer was lost.

const PROCESSOR_CARD_ID = '0190f5a0-0000-7000-8000-0000000000d1';

interface ProcessorCard extends Gateway {
  /** Every lookup's input, without its signal. */
  readonly lookups: Omit<LookupInput, 'signal'>[];
}

/**
 * The sandbox card under another id, whose processor names what it starts: a challenge
 * carries `pi_<our reference>`. It carries out a resumed challenge and loses the answer on
 * the way back; a lookup then finds the payment by the processor's id it is given.
 */
function processorCard(): ProcessorCard {
  const inner = createSandboxCard();
  const lookups: ProcessorCard['lookups'] = [];
  /** Payments made after their answer was lost, by the processor's id. */
  const made = new Map<string, LookupResult>();
  return {
    ...inner,
    id: PROCESSOR_CARD_ID,
    code: 'processor-card',
    name: 'Processor card',
    lookups,
    async pay(input) {
      const answer = await inner.pay(input);
      return answer.outcome === 'challenge' ? { ...answer, processorId: `pi_${input.reference}` } : answer;
    },
    async resume(input) {
      const answer = await inner.resume!(input);
      if (answer.outcome === 'approved') {
        const processorId = `pi_${input.challenge.replace(/^chl_/, '')}`;
        made.set(processorId, { status: 'succeeded', reference: answer.reference, card: answer.card });
      }
      throw new Error('connection reset');
    },
    async lookup(input) {
      lookups.push({ reference: input.reference, ...(input.kind ? { kind: input.kind } : {}), ...(input.processorId ? { processorId: input.processorId } : {}) });
      return (input.processorId && made.get(input.processorId)) || (await inner.lookup!(input));
    },
  };
}

describe.each(ENGINES)("the processor's id on %s", (engine) => {
  let t: TestService;
  let api: Client;
  const gateway = processorCard();
  const clock = testClock();

  beforeAll(async () => {
    // A database of its own: its reconciliation takes only this file's calls.
    t = await startIsolatedService(engine, { gateways: createGateways([...sandboxGateways(), gateway]), now: clock.now, env: { GATEWAY_TIMEOUT_MS: '2000' } });
    api = await t.newEnvironment('Processor Shop');
  });
  afterAll(() => t?.close());

  async function created() {
    const res = await api.post('/transaction/', transactionBody());
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  }

  const callsOf = (subject: string) => listCalls(t.service.deps.database.db, subject);

  it("an approval's reference is recorded on its call", async () => {
    const tx = await created();
    const res = await payWithCard(t.url, tx.token, TEST_CARDS.approved, PROCESSOR_CARD_ID);
    expect(res.status).toBe(200);
    const [sale] = (await api.get(`/sale/?transaction_id=${tx.id}`)).body.results as { id: string }[];
    expect(sale).toBeDefined();
    const [call] = await callsOf(tx.id);
    expect(call).toMatchObject({ kind: 'pay', state: 'succeeded', processor_id: expect.stringMatching(/^sbx_gc_/) });
  });

  it("a challenge's processor id is carried to its resumed call, and a lost answer is looked up by it and its kind", async () => {
    const tx = await created();
    const paid = await payWithCard(t.url, tx.token, TEST_CARDS.challenged, PROCESSOR_CARD_ID);
    const body = (await paid.json()) as { kind: string; location: string };
    expect(body.kind).toBe('challenge');
    const [opener] = await callsOf(tx.id);
    const processorId = `pi_${opener!.reference}`;
    expect(opener).toMatchObject({ kind: 'pay', state: 'failed', processor_id: processorId });

    // The customer completes the challenge; the processor pays, and its answer is lost.
    const page = await (await fetch(`${t.url}/pay/${tx.token}/`)).text();
    const csrf = /"csrf":"([^"]+)"/.exec(page)![1]!;
    const res = await fetch(new URL(body.location, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ answer: 'completed' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { view: { status: string } }).view.status).toBe('checking');
    const resumed = (await callsOf(tx.id)).find((c) => c.id !== opener!.id)!;
    expect(resumed).toMatchObject({ kind: 'pay', state: 'pending', processor_id: processorId });
    expect(resumed.unknown_since).not.toBeNull();

    // Reconciliation asks by our reference, the call's kind and the processor's id, and records the payment.
    clock.advance(60_000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(gateway.lookups).toContainEqual({ reference: resumed.reference, kind: 'pay', processorId });
    expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('D');
    const after = (await callsOf(tx.id)).find((c) => c.id === resumed.id)!;
    expect(after).toMatchObject({ state: 'succeeded', processor_id: `sbx_${opener!.reference}` });
  });
});
