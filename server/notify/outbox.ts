import { presentAuthorization } from '../present/authorization';
import { presentClient, presentDocument, presentIban } from '../present/client';
import { presentSale } from '../present/sale';
import { presentTransaction } from '../present/transaction';
import { presentEntry, presentTransfer } from '../present/wallet';
import type { Tx } from '../store/db';
import { getClient, getDocument, getIban } from '../store/clients';
import { type EventFamily, familyOf, insertEvent, type Outbox } from '../store/events';
import { getAuthorization, getSale } from '../store/sales';
import { getTransaction } from '../store/transactions';
import { getTransfer } from '../store/transfers';

// Turns "this object changed" into an outbox row: the object as the API presents it, read
// inside the same database transaction, so the event shows exactly the committed state.
// Objects without a notify_url have no one to tell, and get no event.

interface Snapshot {
  environmentId: string;
  notifyUrl: string | null;
  data: () => Promise<unknown>;
}

type Snapshotter = (trx: Tx, id: string, now: Date) => Promise<Snapshot | undefined>;

/** `baseUrl` makes the absolute links in the data (a transaction's payment_url). */
export function createOutbox(baseUrl: () => string): Outbox {
  // One per event family: a family without one is a compile error, never a dropped event.
  const snapshots: Record<EventFamily, Snapshotter> = {
    async transaction(trx, id, now) {
      const row = await trx.selectFrom('transactions').select(['environment_id', 'notify_url']).where('id', '=', id).executeTakeFirst();
      return (
        row && {
          environmentId: row.environment_id,
          notifyUrl: row.notify_url,
          data: async () => presentTransaction((await getTransaction(trx, row.environment_id, id))!, now, baseUrl()),
        }
      );
    },
    async sale(trx, id) {
      const sale = await getSale(trx, null, id);
      return sale && { environmentId: sale.row.environment_id, notifyUrl: sale.row.notify_url, data: async () => presentSale(sale) };
    },
    async authorization(trx, id) {
      const row = await getAuthorization(trx, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentAuthorization(row) };
    },
    async client(trx, id) {
      const row = await getClient(trx, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentClient(row) };
    },
    async iban(trx, id) {
      const row = await getIban(trx, null, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentIban(row) };
    },
    async document(trx, id) {
      // A document has no notify_url of its own: its client's is told.
      const row = await getDocument(trx, null, null, id);
      const client = row && (await getClient(trx, null, row.client_ref));
      return client && { environmentId: row.environment_id, notifyUrl: client.notify_url, data: async () => presentDocument(row) };
    },
    async wallet(trx, id) {
      // The object of a wallet event is the entry that moved its money.
      const row = await trx
        .selectFrom('ledger_entries')
        .innerJoin('wallets', 'wallets.id', 'ledger_entries.wallet')
        .selectAll('ledger_entries')
        .select('wallets.notify_url')
        .where('ledger_entries.id', '=', id)
        .executeTakeFirst();
      return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentEntry(row) };
    },
    async transfer(trx, id) {
      const row = await getTransfer(trx, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => presentTransfer(row) };
    },
  };

  return {
    async emit(trx, type, objectId, now) {
      const found = await snapshots[familyOf(type)](trx, objectId, now);
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
