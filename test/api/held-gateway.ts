import type { Gateway } from '../../server/payments/gateway';
import { createGateways, type Gateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';

// A slow processor: the sandbox card gateway, except that a call the test chooses waits
// at the processor until the test lets it go, then acts and answers as the sandbox does.
// For tests of what the service allows while a call is in flight.

export const HELD_ID = '0190f5a0-0000-7000-8000-0000000000c2';

type Held = 'pay' | 'capture' | 'refund' | 'void' | 'charge' | 'store';

export interface HeldGateway extends Gateway {
  /**
   * Holds the next call of `method`: `arrived` resolves once it reaches the processor,
   * `release` lets it act, or, given a reason, answers that the processor refused it
   * without acting (a capture, refund or void).
   */
  hold(method: Held): { arrived: Promise<void>; release(refusal?: string): void };
}

export function withHeld(): { gateways: Gateways; held: HeldGateway } {
  const inner = createSandboxCard();
  const armed = new Map<Held, { arrive: () => void; released: Promise<string | undefined> }>();
  const wrap =
    <I, R>(method: Held, real: (input: I) => Promise<R>) =>
    async (input: I): Promise<R> => {
      const h = armed.get(method);
      if (h) {
        armed.delete(method);
        h.arrive();
        const refusal = await h.released;
        if (refusal !== undefined) return { ok: false, reason: refusal } as R;
      }
      return real(input);
    };
  const held: HeldGateway = {
    ...inner,
    id: HELD_ID,
    code: 'held-card',
    name: 'Held card',
    hold(method) {
      let arrive!: () => void;
      let release!: (refusal?: string) => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<string | undefined>((resolve) => (release = resolve));
      armed.set(method, { arrive, released });
      return { arrived, release };
    },
    pay: wrap('pay', (i) => inner.pay(i)),
    capture: wrap('capture', (i) => inner.capture(i)),
    refund: wrap('refund', (i) => inner.refund(i)),
    void: wrap('void', (i) => inner.void(i)),
    charge: wrap('charge', (i) => inner.charge(i)),
    store: wrap('store', (i: Parameters<NonNullable<Gateway['store']>>[0]) => inner.store!(i)),
  };
  return { gateways: createGateways([...sandboxGateways(), held]), held };
}
