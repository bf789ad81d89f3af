import { afterEach, describe, expect, it, vi } from 'vitest';
import { withResult } from '../../../widget/screen/result-loader';
import type { CheckoutOutcome } from '../../../widget/screen/transport';
import { makeView } from './fixtures';

// The words an answer brings (client-strings.ts), and an answer without them: one from an
// instance older than the page, during a deploy. A screen it must show is asked for again
// whole; one it leaves the page for goes on.

const reload = vi.fn();

function answering(outcome: CheckoutOutcome) {
  vi.stubGlobal('location', { reload });
  const learned: Record<string, string>[] = [];
  const deps = withResult({ submit: async () => outcome, answer: async () => outcome }, (words) => learned.push(words));
  return { deps, learned };
}

/** Whether `promise` has settled once everything queued has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
}

afterEach(() => {
  vi.unstubAllGlobals();
  reload.mockClear();
});

describe('withResult', () => {
  it("takes an answer's words before the answer renders", async () => {
    const outcome: CheckoutOutcome = { outcome: 'view', view: makeView({ status: 'declined' }), strings: { 'status.declined.title': 'Declined' } };
    const { deps, learned } = answering(outcome);
    expect(await deps.submit({ action: 'pay' } as never, 'csrf')).toBe(outcome);
    expect(learned).toEqual([{ 'status.declined.title': 'Declined' }]);
    expect(reload).not.toHaveBeenCalled();
  });

  it('reloads the page, and never settles, for a view or a paid screen that came without words', async () => {
    for (const outcome of [
      { outcome: 'view', view: makeView({ status: 'declined' }) },
      { outcome: 'redirect', location: 'https://shop.example/ok', kind: 'completed', view: makeView({ status: 'paid' }) },
      { outcome: 'redirect', location: '/pay/t/challenge', kind: 'challenge' },
    ] as CheckoutOutcome[]) {
      reload.mockClear();
      const { deps, learned } = answering(outcome);
      expect(await settled(deps.answer('/pay/t/', {} as never, 'csrf')), JSON.stringify(outcome)).toBe(false);
      expect(reload).toHaveBeenCalledTimes(1);
      expect(learned).toEqual([]);
    }
  });

  it('goes on with an answer that leaves the page (a provider), words or not', async () => {
    const outcome: CheckoutOutcome = { outcome: 'redirect', location: 'https://provider.example/approve', kind: 'provider' };
    const { deps } = answering(outcome);
    expect(await deps.submit({ action: 'pay' } as never, 'csrf')).toBe(outcome);
    expect(reload).not.toHaveBeenCalled();
  });
});
