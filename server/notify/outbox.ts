import { presentAuthorization } from '../present/authorization';
import { presentClient, presentDocument, presentIban } from '../present/client';
import { presentSale } from '../present/sale';
import { presentTransaction } from '../present/transaction';
import type { Tx } from '../store/db';
import { type EventType, insertEvent, type Outbox } from '../store/events';
import { getClient, getDocument, getIban } from '../store/clients';
import { getAuthorization, getSale } from '../store/sales';
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
      case 'authorization': {
        const row = await getAuthorization(trx, null, id);
        return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentAuthorization(row) };
      }
      case 'client': {
        const row = await getClient(trx, null, id);
        return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentClient(row) };
      }
      case 'iban': {
        const row = await getIban(trx, null, null, id);
        return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentIban(row) };
      }
      case 'document': {
        // A document has no notify_url of its own: its client's is told.
        const row = await getDocument(trx, null, null, id);
        const client = row && (await getClient(trx, null, row.client_ref));
        return client && { environmentId: row.environment_id, notifyUrl: client.notify_url, data: async () => presentDocument(row) };
      }
      default:
        throw new Error(`no object family for event ${type}`);
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
