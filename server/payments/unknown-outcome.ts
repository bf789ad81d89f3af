import { type Db, inTransaction } from '../store/db';
import { type GatewayCall, markUnknown } from '../store/gateway-calls';
import { CALL_KINDS } from './call-kinds';

// A gateway call whose outcome is unknown (it threw, timed out, or its process died
// asking) stays `pending` until a lookup or a notification proves what the gateway did.
// Meanwhile what it would have made shows as pending: a charge as a sale in state
// `pending` (the one the result is recorded into, so its id never changes), a store as a
// `pending` authorization (its id chosen at reservation), a capture / refund / void as its
// sale's `pending` count, a checkout payment as its transaction "being checked" (it takes
// no other payment meanwhile): each kind's `showWhileUnknown` (call-kinds.ts). Nothing is
// released: unknown is never "nothing was charged".

/**
 * Marks a pending call's outcome unknown, once, claimed until `claimedUntil` (now: due for
 * reconciliation at once), with what it shows meanwhile; null when another process
 * settled or marked it first.
 */
export function markOutcomeUnknown(db: Db, call: GatewayCall, now: Date, claimedUntil = now): Promise<GatewayCall | null> {
  return inTransaction(db, async (trx) => {
    if (!(await markUnknown(trx, call.id, now, claimedUntil))) return null;
    const resultId = await CALL_KINDS[call.kind].showWhileUnknown(trx, call, now);
    return { ...call, unknown_since: now.toISOString(), claimed_until: claimedUntil.toISOString(), result_id: resultId };
  });
}
