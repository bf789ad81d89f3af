import { describe, expect, it } from 'vitest';
import type { PaymentDeps } from '../../server/payments/ask';
import { CALL_KINDS } from '../../server/payments/call-kinds';
import type { StoringGateway } from '../../server/payments/gateway';
import { newCall } from '../../server/store/gateway-calls';
import type { GatewayCallKind } from '../../server/store/schema';

// The per-kind table of server/payments/call-kinds.ts. That every kind has every behaviour
// is the compiler's job (a mapped type over GatewayCallKind); these pin the rules the table
// states as values, which the API and fault tests reach only one kind at a time.

/** Every kind, the compiler checking the list is whole (a new kind fails here until named). */
const KINDS = Object.keys({ pay: 1, charge: 1, store: 1, capture: 1, refund: 1, void: 1, subscription: 1 } satisfies Record<GatewayCallKind, 1>) as GatewayCallKind[];

const call = (kind: GatewayCallKind, request: Record<string, unknown> = {}) =>
  newCall({ environmentId: 'env', gateway: { id: 'gw' }, kind, subjectId: 'subject', amount: 100, currency: 'EUR', request, now: new Date(0), claimMs: 1000 });

const byKind = <T>(f: (kind: GatewayCallKind) => T) => Object.fromEntries(KINDS.map((kind) => [kind, f(kind)]));

describe('CALL_KINDS', () => {
  it('undoes a payment, a charge or a renewal at the gateway, never what the merchant asked for', () => {
    expect(byKind((kind) => CALL_KINDS[kind].reversal(call(kind)))).toEqual({
      pay: 'refund',
      charge: 'refund',
      store: null,
      capture: null,
      refund: null,
      void: null,
      subscription: 'refund',
    });
    // A hold is released, not refunded.
    expect(CALL_KINDS.pay.reversal(call('pay', { hold: true }))).toBe('void');
  });

  it('lets a processor’s payment notification settle only a payment or a card’s save', () => {
    expect(byKind((kind) => CALL_KINDS[kind].processorNotification !== null)).toEqual({
      pay: true,
      charge: false,
      store: true,
      capture: false,
      refund: false,
      void: false,
      subscription: false,
    });
  });
});

describe('CALL_KINDS send', () => {
  /** A gateway that records which method each call reached and with what (the signal aside), and answers `answer`. */
  function recordingGateway(answer: unknown = { outcome: 'approved', reference: 'ref', card: null }) {
    const sent: { method: string; input: Record<string, unknown> }[] = [];
    const method = (name: string) => async ({ signal, ...input }: { signal: AbortSignal } & Record<string, unknown>) => {
      expect(signal).toBeInstanceOf(AbortSignal);
      sent.push({ method: name, input });
      return answer;
    };
    const gateway = Object.fromEntries(['pay', 'charge', 'store', 'capture', 'refund', 'void'].map((name) => [name, method(name)]));
    return { gateway: { code: 'recording', ...gateway } as unknown as StoringGateway, sent };
  }
  const deps = { config: { gatewayTimeoutMs: 5_000 }, log: { warn: () => undefined } } as unknown as PaymentDeps;

  it('sends a payment as the call records it (held or captured), with the card fields and the page it came from', async () => {
    const { gateway, sent } = recordingGateway();
    const page = { fields: { number: '4242424242424242' }, returnUrl: 'https://pay.example/return/r1', language: 'es' };
    const held = call('pay', { hold: true });
    await CALL_KINDS.pay.send(deps, gateway, held, page);
    await CALL_KINDS.pay.send(deps, gateway, call('pay', { hold: false }), { fields: {} });
    expect(sent).toEqual([
      { method: 'pay', input: { reference: held.reference, amount: 100, currency: 'EUR', capture: false, ...page } },
      { method: 'pay', input: { reference: expect.any(String), amount: 100, currency: 'EUR', capture: true, fields: {} } },
    ]);
  });

  it('charges a saved card for a charge and a renewal alike, as the merchant', async () => {
    const { gateway, sent } = recordingGateway();
    const charge = call('charge');
    const renewal = call('subscription');
    await CALL_KINDS.charge.send(deps, gateway, charge, { method: 'pm_1' });
    await CALL_KINDS.subscription.send(deps, gateway, renewal, { method: 'pm_2' });
    expect(sent).toEqual([
      { method: 'charge', input: { reference: charge.reference, method: 'pm_1', amount: 100, currency: 'EUR', initiator: 'merchant' } },
      { method: 'charge', input: { reference: renewal.reference, method: 'pm_2', amount: 100, currency: 'EUR', initiator: 'merchant' } },
    ]);
  });

  it('stores a card with what the save page gives, and sends each sale action on the payment its call records', async () => {
    const { gateway, sent } = recordingGateway({ outcome: 'not_acted', reason: 'closed' });
    const store = call('store');
    const answers: unknown[] = [await CALL_KINDS.store.send(deps, gateway, store, { fields: { number: '4000' }, authenticate: true, customer: 'cus_1' })];
    for (const kind of ['capture', 'refund', 'void'] as const) answers.push(await CALL_KINDS[kind].send(deps, gateway, call(kind, { payment: 'pi_1' }), null));
    expect(sent).toEqual([
      { method: 'store', input: { reference: store.reference, fields: { number: '4000' }, authenticate: true, customer: 'cus_1' } },
      ...['capture', 'refund', 'void'].map((method) => ({ method, input: { reference: expect.any(String), payment: 'pi_1', amount: 100 } })),
    ]);
    // Through askGateway: a gateway that did nothing says so.
    expect(answers).toEqual(Array(4).fill({ kind: 'not_acted', reason: 'closed' }));
  });
});
