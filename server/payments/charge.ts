import { newCall, type GatewayCall } from '../store/gateway-calls';
import type { AuthorizationRow } from '../store/schema';
import { reserveCharge } from '../store/authorizations';
import { getSale, type StoredSale } from '../store/sales';
import { CALL_KINDS } from './call-kinds';
import { readProcessorSettlement } from './processor-settlement';
import { type ChargeOutcome, recordCharge } from './charge-record';
import { getCall } from '../store/unknown-outcomes';
import { chargeSettled, type PaymentDeps, type Settled } from './ask';
import { type Bound, outcomeUnknown, recordSafely, startStep } from './outcome';
import { reverseLatePayment } from './sale-actions';

// Charging a stored payment method (an authorization): what the API's charge does today,
// and what a subscription's periodic charge will do.

export type ChargeResult =
  | ChargeOutcome
  /** Removed: nothing reserved, the gateway not asked. */
  | { kind: 'not_active' }
  /** The gateway surely did nothing (it refused before acting): no sale. */
  | { kind: 'gateway_failed' }
  /** The outcome is unknown: the sale is `pending` until reconciliation proves it. */
  | { kind: 'pending'; sale: StoredSale }
  /** Another process is sending this key's charge now. */
  | { kind: 'in_flight'; retryAfterMs: number }
  /** The charge was made but its sale could not be recorded: reversed at the gateway, for a person to check. */
  | { kind: 'attention' };

export async function chargeAuthorization(
  deps: PaymentDeps,
  c: {
    authorization: AuthorizationRow;
    amount: number;
    currency: string;
    description: string | null;
    bound?: Bound;
    /** A charge for this transaction's `source`: its sale is linked to it when recorded. */
    sourceTransactionId?: string;
  },
): Promise<ChargeResult> {
  const auth = c.authorization;
  const gateway = (await deps.gateways.of(auth.environment_id)).find(auth)!;
  const step = await startStep<ChargeResult>(deps, c.bound, {
    current: (call) => currentState(deps, call),
    async reserve() {
      const call = newCall({
        environmentId: auth.environment_id,
        gateway,
        kind: 'charge',
        subjectId: auth.id,
        amount: c.amount,
        currency: c.currency,
        request: { description: c.description, ...(c.sourceTransactionId ? { source_transaction_id: c.sourceTransactionId } : {}) },
        now: deps.now(),
        claimMs: deps.config.paymentClaimMs,
        bound: c.bound,
      });
      return (await reserveCharge(deps.database.db, call)) ? { call } : { done: { kind: 'not_active' } };
    },
  });
  if ('done' in step) return step.done;
  const { call } = step;
  const answer = await CALL_KINDS.charge.send(deps, gateway, call, { method: auth.gateway_reference });
  if (answer.kind === 'not_acted') {
    await CALL_KINDS.charge.release(deps, call);
    return { kind: 'gateway_failed' };
  }
  if (answer.kind === 'unknown') return currentState(deps, await outcomeUnknown(deps, call, answer.error));
  const settled = chargeSettled(answer.value);
  const recorded = await recordSafely(deps, call, settled, () => recordChargeResult(deps, call, settled));
  if (recorded.kind === 'attention') return recorded;
  if (recorded.kind === 'kept_pending' || recorded.value === null) return currentState(deps, call);
  return recorded.value;
}

/** What a charge's call has come to, as the API answers it: for a repeat of its key, or a call settled elsewhere. */
async function currentState(deps: PaymentDeps, call: GatewayCall): Promise<ChargeResult> {
  const db = deps.database.db;
  const fresh = (await getCall(db, call.id)) ?? call;
  const sale = fresh.result_id ? await getSale(db, null, fresh.result_id) : undefined;
  if (!sale) return fresh.state === 'attention' ? { kind: 'attention' } : fresh.state === 'pending' ? { kind: 'in_flight', retryAfterMs: 1000 } : { kind: 'gateway_failed' };
  if (sale.row.pending > 0) return { kind: 'pending', sale };
  if (sale.row.failure === 'not_processed') return { kind: 'not_processed', sale };
  if (sale.row.failure !== null) return { kind: 'declined', sale, outcome: sale.row.failure };
  return { kind: 'approved', sale };
}

/**
 * Records what the gateway did for a charge call: from the live request, from
 * reconciliation, or from a notification. A success told after the settle window had
 * failed the charge (the merchant was told it failed, and may have charged again) is
 * recorded into its sale, with `sale.late_payment`, and refunded at once: never kept silently.
 * A decline the cardholder can lift (`confirm`) gets its confirm link, however it was learnt.
 */
export async function recordChargeResult(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<ChargeOutcome | null> {
  const result =
    s.status === 'succeeded'
      ? ({ outcome: 'approved', reference: s.reference } as const)
      : s.reason === 'refused'
        ? ({ outcome: 'not_processed' } as const)
        : s.confirm
          ? // Declined until the customer authenticates: recorded so, with the page to confirm it on.
            ({ outcome: 'authentication_required', processor: s.confirm } as const)
          : ({ outcome: s.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined' } as const);
  const recorded = await recordCharge(deps.database.db, { call, result, now: deps.now(), outbox: deps.outbox });
  if (recorded?.kind === 'approved' && call.state === 'failed') await reverseLatePayment(deps, recorded.sale.row);
  else if (recorded?.kind === 'approved') {
    // Captured: what the merchant's own processor settled for it, if it does, in the sale answered.
    if (await readProcessorSettlement(deps, recorded.sale.row)) return { ...recorded, sale: (await getSale(deps.database.db, null, recorded.sale.row.id)) ?? recorded.sale };
  }
  return recorded;
}
