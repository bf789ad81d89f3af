import type { GatewayNotification } from './gateway';

// What a connected processor's event says once verified and read again from the processor
// (stripe/events.ts), in shapes of our own: the service compares them with its books
// (processor-events.ts, processor-refunds.ts). Nothing here is the processor's raw object.

/** A refund at the processor, as it is now. */
export interface SeenRefund {
  /** The processor's id (`re_…`). */
  id: string;
  /** The payment it refunds: the processor's id of it (a PaymentIntent's `pi_…`), as our sales record it. */
  payment: string | null;
  /** The charge it refunds (`ch_…`). */
  charge: string | null;
  /** Minor units. */
  amount: number;
  currency: string;
  /** `made`: done or accepted (pending); `failed`: it will not happen (failed, or cancelled), its money is back with the merchant. */
  state: 'made' | 'failed';
  /** Our reference when we made it (`metadata[reference]`), else null: made at the processor by someone else. */
  reference: string | null;
  /** Why it failed, as the processor says; null when made. */
  why: string | null;
  created: Date;
}

/** A charge at the processor, as it is now (the daily sweep's: processor-sweep.ts). */
export interface SeenCharge {
  /** The processor's id (`ch_…`). */
  id: string;
  /** Its payment: the processor's id of it (`pi_…`), as our sales record it. */
  payment: string | null;
  /** `succeeded`: authorized or captured; `pending`, `failed`: no money taken (yet). */
  status: 'succeeded' | 'pending' | 'failed';
  /** Minor units: what was authorized, and what of it is captured (0 for a hold). */
  amount: number;
  captured: number;
  currency: string;
  /** Our reference when its payment carries one (`metadata[reference]`), else null. */
  reference: string | null;
  created: Date;
}

/** The processor's recent charges and refunds, for the daily sweep; `complete`: listed to their end. */
export interface ProcessorRecent {
  charges: SeenCharge[];
  refunds: SeenRefund[];
  complete: boolean;
}

/** A dispute at the processor, as it is now. */
export interface SeenDispute {
  /** The processor's id (`dp_…`). */
  id: string;
  charge: string;
  /** The disputed payment: the processor's id of it (`pi_…`), as our sales record it; null when it has none. */
  payment: string | null;
  /** Minor units. */
  amount: number;
  currency: string;
  /** The processor's words, as it says them (domain/disputes.ts reads them). */
  reason: string;
  status: string;
  /** Until when evidence is taken; null when the bank allows no response. */
  dueBy: Date | null;
  created: Date;
}

/** What one event says, for the service to compare with its books. */
export type ProcessorEventSays =
  /** Nothing for our books (an event type we do not act on, or one whose object is undecided). */
  | { kind: 'nothing'; reference?: string | null }
  /** A payment of ours settled (a Checkout Session completed or expired). */
  | { kind: 'payment'; note: GatewayNotification }
  /** A payment of ours succeeded (read again by id): settles a pay call waiting for it (the Payment Element's), or records a charge that waited for its customer (payments/confirm-payment.ts); else nothing. */
  | { kind: 'succeeded'; reference: string; payment: string; result: GatewayNotification['result'] }
  /** Refunds, as the processor holds them now. */
  | { kind: 'refunds'; refunds: SeenRefund[] }
  /** A dispute, as the processor holds it now. */
  | { kind: 'dispute'; dispute: SeenDispute }
  /** What the processor holds does not match what we asked: never recorded. */
  | { kind: 'mismatch'; why: string; reference: string | null };

export type ProcessorEventRead =
  /** Not from the processor under this secret, unreadable, or of another API version: nothing changes. */
  | { verified: false; reason: string }
  /** From the processor: its event id and type, the id of the object it is about, and what it says. */
  | { verified: true; event: string; type: string; object: string; says: ProcessorEventSays };
