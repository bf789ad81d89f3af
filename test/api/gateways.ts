import type { Gateway, LookupResult } from '../../server/payments/gateway';
import { createGateways, type Gateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';

// Gateways that fail on purpose, for the failure matrix: a card gateway that behaves as the
// sandbox card until told to decline, refuse before acting (`not_acted`, interface
// version 2), throw, time out (its own client gives up and says so) or hang (never
// answers: the service's own timeout must end the wait). Every call it
// receives is counted, and a hung call can be completed later, as a processor that
// approved after all, so reconciliation has something to find.

export const FAILURE_MODES = ['decline', 'refuse', 'throw', 'timeout', 'hang'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export const CONTROLLED_ID = '0190f5a0-0000-7000-8000-0000000000c1';

type Method = 'pay' | 'capture' | 'refund' | 'void' | 'charge' | 'store';

export interface ControlledGateway extends Gateway {
  mode: FailureMode | 'ok';
  /** Every call received, by method, with our reference. */
  readonly received: { method: Method; reference: string; payment?: string }[];
  /** Resolves when the next call arrives (a sentinel: the test waits for it, not for time). */
  nextCall(): Promise<{ method: Method; reference: string }>;
  /** Calls left hanging. */
  readonly hanging: number;
  /** Carries out every hung call at the processor (lookup will say so), and loses its answer on the way back. */
  completeHung(): Promise<void>;
}

function controlledGateway(): ControlledGateway {
  const inner = createSandboxCard();
  const received: ControlledGateway['received'] = [];
  const hung: (() => Promise<void>)[] = [];
  /** References the processor carried out after the caller stopped listening. */
  const lateDone = new Map<string, LookupResult>();
  let waiter: ((c: { method: Method; reference: string }) => void) | null = null;

  function wrap<I extends { reference: string }, R>(method: Method, real: (input: I) => Promise<R>, declined: R) {
    return async (input: I): Promise<R> => {
      const call = { method, reference: input.reference, payment: (input as { payment?: string }).payment };
      received.push(call);
      waiter?.(call);
      waiter = null;
      switch (gateway.mode) {
        case 'ok':
          return real(input);
        case 'decline':
          return declined;
        case 'refuse':
          return { outcome: 'not_acted', reason: 'the processor refused the request' } as R;
        case 'throw':
          throw new Error('processor exploded');
        case 'timeout':
          throw new DOMException('the processor did not answer', 'TimeoutError');
        case 'hang':
          return new Promise<R>((_resolve, reject) => {
            hung.push(async () => {
              const answer = await real(input);
              const ok = (answer as { ok?: boolean; outcome?: string }).ok === true || (answer as { outcome?: string }).outcome === 'approved';
              const reference = (answer as { reference?: string }).reference ?? '';
              lateDone.set(input.reference, ok ? { status: 'succeeded', reference, card: null } : { status: 'failed', reason: 'declined', card: null });
              // The answer is lost on the way back: whoever still waits hears a failure.
              reject(new Error('connection reset'));
            });
          });
      }
    };
  }

  const gateway: ControlledGateway = {
    ...inner,
    id: CONTROLLED_ID,
    code: 'controlled-card',
    name: 'Controlled card',
    mode: 'ok',
    received,
    get hanging() {
      return hung.length;
    },
    nextCall: () => new Promise((resolve) => (waiter = resolve)),
    async completeHung() {
      for (const done of hung.splice(0)) await done();
    },
    pay: wrap('pay', (i) => inner.pay(i), { outcome: 'declined', card: null }),
    capture: wrap('capture', (i) => inner.capture(i), { ok: false, reason: 'processor refused' }),
    refund: wrap('refund', (i) => inner.refund(i), { ok: false, reason: 'processor refused' }),
    void: wrap('void', (i) => inner.void(i), { ok: false, reason: 'processor refused' }),
    charge: wrap('charge', (i) => inner.charge(i), { outcome: 'declined', card: null }),
    store: wrap('store', (i) => inner.store!(i), { outcome: 'declined', card: null }),
    async lookup(input) {
      return lateDone.get(input.reference) ?? inner.lookup!(input);
    },
  };
  return gateway;
}

/** The sandbox gateways plus a controlled one. */
export function withControlled(): { gateways: Gateways; controlled: ControlledGateway } {
  const controlled = controlledGateway();
  return { gateways: createGateways([...sandboxGateways(), controlled]), controlled };
}
