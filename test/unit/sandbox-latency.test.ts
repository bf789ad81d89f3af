import { describe, expect, it } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { createSandboxCard } from '../../server/payments/sandbox';
import { withLatency } from '../../server/payments/sandbox-latency';

// SANDBOX_LATENCY_MS (payments/sandbox-latency.ts): a sandbox gateway's processor calls
// wait first, and a call's signal cuts the wait short as it would a network call.

describe('withLatency', () => {
  function spied() {
    const made: string[] = [];
    const card = createSandboxCard();
    const gateway: Gateway = { ...card, refund: async (input) => (made.push(input.reference), card.refund(input)) };
    return { gateway, made };
  }

  it('0 leaves the gateway as it is', () => {
    const { gateway } = spied();
    expect(withLatency(gateway, 0)).toBe(gateway);
  });

  it('makes the call only after the wait, with its input, and answers what the gateway answers', async () => {
    const { gateway, made } = spied();
    const slowed = withLatency(gateway, 20);
    expect(slowed.id).toBe(gateway.id);
    const answer = slowed.refund({ reference: 'ref_1', signal: new AbortController().signal, payment: 'sbx_pay', amount: 100 });
    expect(made).toEqual([]);
    await expect(answer).resolves.toMatchObject({ ok: true });
    expect(made).toEqual(['ref_1']);
  });

  it('a call whose signal fires during the wait is never made: it throws, as a network call cut short does', async () => {
    const { gateway, made } = spied();
    const slowed = withLatency(gateway, 10_000);
    const controller = new AbortController();
    const answer = slowed.refund({ reference: 'ref_2', signal: controller.signal, payment: 'sbx_pay', amount: 100 });
    controller.abort();
    await expect(answer).rejects.toThrow(/abort/i);
    expect(made).toEqual([]);
  });
});
