import { presentAuthorization } from '../present/authorization';
import { presentSale } from '../present/sale';
import { presentTransaction } from '../present/transaction';
import { presentSubscription } from '../present/subscription';
import type { Tx } from '../store/db';
import { type EventType, insertEvent, type Outbox } from '../store/events';
import { getAuthorization, getSale } from '../store/sales';
import { getSubscription } from '../store/subscriptions';
import { getTransaction } from '../store/transactions';

// Turns "this object changed" into an outbox row: the object as the API presents it, read
// inside the same database transaction, so the event shows exactly the committed state.
// Objects without a notify_url have no one to tell, and get no event.

interface Snapshot {
  environmentId: string;
  notifyUrl: string | null;
  data: () => Promise<unknown>;
}

/** `baseUrl` makes the absolute links in the data (a transaction's payment_url). */
export function createOutbox(baseUrl: () => string): Outbox {
  async function snapshot(trx: Tx, type: EventType, id: string, now: Date): Promise<Snapshot | undefined> {
    switch (type.slice(0, type.indexOf('.'))) {
      case 'transaction': {
        const row = await trx.selectFrom('transactions').select(['environment_id', 'notify_url']).where('id', '=', id).executeTakeFirst();
        return (
          row && {
            environmentId: row.environment_id,
            notifyUrl: row.notify_url,
            data: async () => presentTransaction((await getTransaction(trx, row.environment_id, id))!, now, baseUrl()),
          }
        );
      }
      case 'sale': {
        const sale = await getSale(trx, null, id);
        return sale && { environmentId: sale.row.environment_id, notifyUrl: sale.row.notify_url, data: async () => presentSale(sale) };
      }
      case 'subscription': {
        const sub = await getSubscription(trx, null, id);
        return sub && { environmentId: sub.row.environment_id, notifyUrl: sub.row.notify_url, data: async () => presentSubscription(sub, baseUrl()) };
      }
      default: {
        const row = await getAuthorization(trx, null, id);
        return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentAuthorization(row) };
      }
    }
  }

  return {
    async emit(trx, type, objectId, now) {
      const found = await snapshot(trx, type, objectId, now);
      if (!found?.notifyUrl) return;
      await insertEvent(trx, {
        environmentId: found.environmentId,
        type,
        objectId,
        notifyUrl: found.notifyUrl,
        data: await found.data(),
        now,
      });
    },
  };
}
