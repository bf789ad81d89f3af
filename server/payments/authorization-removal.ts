import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import { markAuthorizationRemoved } from '../store/authorizations';
import { lockAuthorization } from '../store/sales';

/**
 * An authorization active → removed, once, with its event: for the API's remove and the
 * dashboard's. The row is locked before the clock is read: a charge reserved first
 * (reserveCharge takes the same row) is then dated no later than the removal, so `updated`
 * of a removed authorization bounds every sale it will ever have. false: not active.
 */
export function removeAuthorization(db: Db, environmentId: string, id: string, clock: () => Date, outbox: Outbox): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const current = await lockAuthorization(trx, environmentId, id);
    if (current?.status !== 'active') return false;
    const now = clock();
    await markAuthorizationRemoved(trx, id, now);
    await outbox.emit(trx, 'authorization.removed', id, now);
    return true;
  });
}
