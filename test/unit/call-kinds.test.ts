import { describe, expect, it } from 'vitest';
import { CALL_KINDS } from '../../server/payments/call-kinds';
import { newCall } from '../../server/store/gateway-calls';
import type { GatewayCallKind } from '../../server/store/schema';

// The per-kind table of server/payments/call-kinds.ts. That every kind has every behaviour
// is the compiler's job (a Record over GatewayCallKind); these pin the rules the table
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
