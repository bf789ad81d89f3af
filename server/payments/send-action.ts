import { capabilitiesOf, type SaleCapability } from '../domain/gateway-capabilities';
import type { SaleAction } from '../domain/sales';
import type { Tx } from '../store/db';
import { markHoldExpired } from '../store/sale-aggregate';
import type { GatewayCall } from '../store/gateway-calls';
import { getSale, type StoredSale } from '../store/sales';
import { recordSaleAction, releaseSaleAction } from './sale-reservations';
import { getCall } from '../store/unknown-outcomes';
import type { PaymentDeps, Settled } from './ask';
import { CALL_KINDS } from './call-kinds';
import type { Gateway } from './gateway';
import { outcomeUnknown, recordSafely } from './outcome';
import { readProcessorSettlement } from './processor-settlement';

// The gateway's half of a capture, refund or void whose amounts are reserved: ask the
// gateway outside any database transaction, then record the operation or move the amount
// back. An unknown outcome keeps the amount reserved and the sale `pending` until
// reconciliation proves it. A sale's own action (sale-actions.ts) and a card's part of a
// refund of a source payment's sale (source-refunds.ts) both end here.

/** Minor units, or `all`: all the action can move of the sale when it is reserved. */
export type ActionAmount = number | 'all';

export type SaleActionOutcome =
  | { kind: 'done'; sale: StoredSale }
  /** The outcome is unknown: the amount stays reserved, the sale `pending`. */
  | { kind: 'pending'; sale: StoredSale }
  /** The amounts no longer allow it: nothing reserved, the gateway not asked. */
  | { kind: 'conflict' }
  /** The sale's gateway cannot make it (domain/gateway-capabilities.ts): nothing reserved, the gateway not asked. */
  | { kind: 'unsupported'; missing: SaleCapability }
  /** The gateway refused, or surely did nothing: nothing changed. */
  | { kind: 'gateway_failed'; reason: string }
  /** Another process is sending this key's action now. */
  | { kind: 'in_flight'; retryAfterMs: number }
  /** A card's charge that paid part of a transaction's `source`: refunded only through the transaction's sale. */
  | { kind: 'part_of'; sale: string; transaction: string }
  /**
   * A refund of a source payment's sale whose gateways refused some card parts (released:
   * refundable again) while its other parts were made (or are pending).
   */
  | { kind: 'partial'; sale: StoredSale; amount: number; refused: number; reason: string };

/**
 * Sends a reserved action's call (a new one, or one whose process died: same reference) and
 * records the answer; `gateway`: the call's, when the caller has it already.
 */
export async function sendSaleAction(deps: PaymentDeps, call: GatewayCall, gateway?: Gateway): Promise<SaleActionOutcome> {
  gateway ??= (await deps.gateways.of(call.environment_id)).find(call)!;
  const action = call.kind as SaleAction;
  const answer = await CALL_KINDS[action].send(deps, gateway, call, null);
  if (answer.kind === 'unknown') return actionState(deps, await outcomeUnknown(deps, call, answer.error));
  if (answer.kind === 'not_acted') {
    await CALL_KINDS[action].release(deps, call);
    return { kind: 'gateway_failed', reason: answer.reason };
  }
  const result = answer.value;
  const settled: Settled = result.ok ? { status: 'succeeded', reference: result.reference, card: null } : { status: 'failed', reason: 'refused', card: null };
  const recorded = await recordSafely(deps, call, settled, () => recordSaleActionResult(deps, call, settled, 'pending', gateway));
  if (recorded.kind === 'recorded' && recorded.value) return { kind: 'done', sale: recorded.value };
  if (!result.ok) return { kind: 'gateway_failed', reason: result.reason };
  return actionState(deps, call);
}

/** What an action's call has come to, as the API answers it: for a repeat of its key, or a call settled elsewhere. */
export async function actionState(deps: PaymentDeps, call: GatewayCall): Promise<SaleActionOutcome> {
  const db = deps.database.db;
  const fresh = (await getCall(db, call.id)) ?? call;
  const sale = (await getSale(db, null, fresh.subject_id))!;
  switch (fresh.state) {
    case 'succeeded':
      return { kind: 'done', sale };
    case 'pending':
    case 'attention':
      return { kind: 'pending', sale };
    default:
      return { kind: 'gateway_failed', reason: 'the gateway did not do it' };
  }
}

/** Records what the gateway did for an action call: from the live request, or from reconciliation. */
export async function recordSaleActionResult(
  deps: PaymentDeps,
  call: GatewayCall,
  s: Settled,
  from: 'pending' | 'abandoned' = 'pending',
  /** The call's gateway, when the caller has it already. */
  gateway?: Gateway,
): Promise<StoredSale | null> {
  const action = call.kind as SaleAction;
  const db = deps.database.db;
  if (s.status === 'succeeded') {
    const now = deps.now();
    // A void of an expired hold says so on the sale, and in an event of its own.
    const also =
      call.request.reason === 'hold_expired'
        ? async (trx: Tx) => {
            if (await markHoldExpired(trx, call.subject_id, now)) await deps.outbox.emit(trx, 'sale.hold_expired', call.subject_id, now);
          }
        : undefined;
    // A gateway that captures once released the rest of the hold with the capture: so do our books.
    const releaseRest = action === 'capture' && !capabilitiesOf(gateway ?? (await deps.gateways.of(call.environment_id)).find(call) ?? {}).repeatedCapture;
    const recorded = await recordSaleAction(db, { call, action, gatewayReference: s.reference, now, outbox: deps.outbox, from, releaseRest, also });
    if (!recorded || action !== 'capture') return recorded;
    // Captured: what the merchant's own processor settled for it, if it does, in the sale answered.
    return (await readProcessorSettlement(deps, recorded.row)) ? ((await getSale(db, null, recorded.row.id)) ?? recorded) : recorded;
  }
  if (from === 'pending') await releaseSaleAction(db, { call, action, state: 'failed', now: deps.now(), outbox: deps.outbox });
  return null;
}
