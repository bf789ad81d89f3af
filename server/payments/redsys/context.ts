import type { PaymentType } from './codes';
import type { ClaimOrder } from './order';
import type { RedsysSettings } from './settings';

// What every part of the connector works with: one terminal's settings, the memory of what
// this process sent, the order numbers in use, the operations in flight, the clock.

/** What this process sent for one of our references (kept in memory, like the Stripe connector's). */
export type Sent =
  | { kind: 'pay' | 'charge' | 'store'; order: string; amount: number; currencyCode: string; type: PaymentType; at: number }
  | {
      kind: 'capture' | 'refund' | 'void';
      order: string;
      amount: number;
      currencyCode: string;
      type: '2' | '3' | '9';
      /** How many approved operations of this type and amount the query service showed on the order before we sent it; null without the query service. */
      before: number | null;
      /** Its answer once one arrived; absent while the outcome is unknown. */
      answer?: { ok: true; reference: string } | { ok: false; reason: string } | { outcome: 'not_acted'; reason: string };
      at: number;
    };

/** A confirmation, refund or cancellation sent. */
export type OperationSent = Extract<Sent, { kind: 'capture' | 'refund' | 'void' }>;

/**
 * Where what was sent for an operation is kept before it is sent, for a process started
 * after a crash to settle an unknown outcome by the count taken before (actions.ts). The
 * service's is the database's (`redsys_operations`); kept without its answer.
 */
export interface OperationLog {
  keep(reference: string, sent: OperationSent): Promise<void>;
  recall(reference: string): Promise<OperationSent | undefined>;
}

export interface RedsysContext {
  settings: RedsysSettings;
  sent: {
    remember(reference: string, what: Sent): void;
    get(reference: string): Sent | undefined;
  };
  operations: OperationLog;
  /** Claims a payment's order number on the terminal (order.ts): the service's is the database's (`redsys_orders`). */
  claimOrder: ClaimOrder;
  /** The reference of the confirmation, refund or cancellation being sent on each order now. */
  inFlight: Map<string, string>;
  /**
   * The reference of one sent whose outcome is still unknown, per order: the order takes no
   * other operation until it is resolved, or the query's count could take another for it.
   */
  unresolved: Map<string, string>;
  now: () => Date;
}

const MEMORY = 50_000;

export function sentMemory(): RedsysContext['sent'] {
  const sent = new Map<string, Sent>();
  return {
    remember(reference, what) {
      sent.delete(reference);
      sent.set(reference, what);
      if (sent.size > MEMORY) sent.delete(sent.keys().next().value!);
    },
    get: (reference) => sent.get(reference),
  };
}

/** Operations kept in this process only: for a connector used without the service's database (a test may share one between two connectors). */
export function operationsInMemory(): OperationLog {
  const kept = new Map<string, OperationSent>();
  return {
    keep: async (reference, sent) => void kept.set(reference, sent),
    recall: async (reference) => kept.get(reference),
  };
}

/**
 * Order numbers claimed in this process only: for a connector used without the service's
 * database (its contract tests, the query-service probe when connecting, which pays nothing).
 */
export function orderClaimsInMemory(): ClaimOrder {
  const held = new Map<string, string>();
  return async (reference, order) => {
    if (!held.has(order)) held.set(order, reference);
    return held.get(order) === reference;
  };
}
