import { uuidv7 } from '../domain/ids';
import { presentAuthorization } from '../present/authorization';
import { presentDispute } from '../present/dispute';
import { presentClient, presentDocument, presentIban } from '../present/client';
import { presentSale } from '../present/sale';
import { presentSubscription } from '../present/subscription';
import { presentTransaction } from '../present/transaction';
import { presentEntry, presentTransfer } from '../present/wallet';
import { afterCommit, type Tx } from '../store/db';
import { getClient, getDocument, getIban } from '../store/clients';
import { type CatalogueItem, type CatalogueTable, getItem } from '../store/catalogue';
import { type CatalogueFamily, type EventFamily, familyOf } from '../domain/event-types';
import { insertEvent, type Known, type Outbox } from '../store/events';
import { getAuthorization, getSale } from '../store/sales';
import { getDispute } from '../store/disputes';
import { getSubscription } from '../store/subscriptions';
import { getTransaction } from '../store/transactions';
import { getTransfer } from '../store/transfers';
import { getMerchantPayout } from '../store/merchant-payouts';
import { presentMerchantPayout } from '../present/merchant-payout';
import { queueCustomerMail } from './mail-content';
import { queueTeamMailOf } from './mail-team';
import { getEndpoint } from '../store/webhook-endpoints';
import { presentEndpoint } from '../present/webhook-endpoint';

// Turns "this object changed" into an outbox row: the object as the API presents it, read
// inside the same database transaction, so the event shows exactly the committed state.
// Every change is an event, whether or not the object has a notify_url: the events API
// lists it, and the environment's webhook endpoints receive it. The changes a customer is
// told of by email (a payment, a refund, a sign-up) queue that email here too, and so do
// those the merchant's team is told of (a new dispute, a failed payout: mail-team.ts).

interface Snapshot {
  environmentId: string;
  notifyUrl: string | null;
  data: () => Promise<unknown>;
}

type Snapshotter = (trx: Tx, id: string, now: Date, known?: Known) => Promise<Snapshot | undefined>;

/** How the catalogue shows its objects; given by the API (their presenters live with their fields). */
export type CataloguePresenters = Record<CatalogueFamily, { table: CatalogueTable; present(row: CatalogueItem<CatalogueTable>): unknown }>;

/** An object that carries its own environment and notify_url, shown as the API presents it. */
function ownSnapshot<R extends { environment_id: string; notify_url: string | null }>(row: R | undefined, present: (row: R) => unknown): Snapshot | undefined {
  return row && { environmentId: row.environment_id, notifyUrl: row.notify_url, data: async () => present(row) };
}

function catalogueSnapshot(catalogue: CataloguePresenters, family: CatalogueFamily): Snapshotter {
  return async (trx, id) => {
    const { table, present } = catalogue[family];
    const row = await getItem(trx, table, null, id);
    return row && { environmentId: row.environment_id, notifyUrl: null, data: async () => present(row) };
  };
}

/** How each event family reads its object. One per family: a family without one is a compile error, never a dropped event. */
function snapshotters(baseUrl: () => string, catalogue: CataloguePresenters): Record<EventFamily, Snapshotter> {
  return {
    async transaction(trx, id, now, known) {
      if (known && 'transaction' in known) {
        const stored = known.transaction;
        return { environmentId: stored.row.environment_id, notifyUrl: stored.row.notify_url, data: async () => presentTransaction(stored, now, baseUrl()) };
      }
      const row = await trx.selectFrom('transactions').select(['environment_id', 'notify_url']).where('id', '=', id).executeTakeFirst();
      return (
        row && {
          environmentId: row.environment_id,
          notifyUrl: row.notify_url,
          data: async () => presentTransaction((await getTransaction(trx, row.environment_id, id))!, now, baseUrl()),
        }
      );
    },
    async sale(trx, id, _now, known) {
      const sale = known && 'sale' in known ? known.sale : await getSale(trx, null, id);
      return sale && { environmentId: sale.row.environment_id, notifyUrl: sale.row.notify_url, data: async () => presentSale(sale, baseUrl()) };
    },
    authorization: async (trx, id, _now, known) =>
      ownSnapshot(known && 'authorization' in known ? known.authorization : await getAuthorization(trx, null, id), presentAuthorization),
    client: async (trx, id) => ownSnapshot(await getClient(trx, null, id), presentClient),
    iban: async (trx, id) => ownSnapshot(await getIban(trx, null, null, id), presentIban),
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
      return ownSnapshot(row, presentEntry);
    },
    async subscription(trx, id) {
      const sub = await getSubscription(trx, null, id);
      return sub && { environmentId: sub.row.environment_id, notifyUrl: sub.row.notify_url, data: async () => presentSubscription(sub, baseUrl()) };
    },
    transfer: async (trx, id) => ownSnapshot(await getTransfer(trx, null, id), presentTransfer),
    async merchant_payout(trx, id) {
      const row = await getMerchantPayout(trx, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: null, data: async () => presentMerchantPayout(row) };
    },
    async webhook_endpoint(trx, id) {
      const row = await getEndpoint(trx, null, id);
      return row && { environmentId: row.environment_id, notifyUrl: null, data: async () => presentEndpoint(row) };
    },
    product: catalogueSnapshot(catalogue, 'product'),
    plan: catalogueSnapshot(catalogue, 'plan'),
    tax: catalogueSnapshot(catalogue, 'tax'),
    shipping: catalogueSnapshot(catalogue, 'shipping'),
    coupon: catalogueSnapshot(catalogue, 'coupon'),
    async dispute(trx, id) {
      // A dispute has no notify_url of its own: the environment's webhook endpoints are told.
      const dispute = await getDispute(trx, null, id);
      return dispute && { environmentId: dispute.row.environment_id, notifyUrl: null, data: async () => presentDispute(dispute) };
    },
  };
}

/**
 * `baseUrl` makes the absolute links in the data (a transaction's payment_url).
 * `deliveriesCommitted` is told when a change's webhook deliveries have committed: the
 * service wakes its delivery job, so they go out now, not at its next poll.
 */
export function createOutbox(baseUrl: () => string, catalogue: CataloguePresenters, deliveriesCommitted: () => void = () => {}): Outbox {
  const snapshots = snapshotters(baseUrl, catalogue);
  return {
    baseUrl,
    async emit(trx, type, objectId, now, known) {
      // One id for the change: its webhook event's and its email's (the Message-ID).
      const id = uuidv7(now.getTime());
      await queueCustomerMail(trx, type, objectId, id, now, known);
      await queueTeamMailOf(trx, type, objectId, baseUrl(), now);
      const found = await snapshots[familyOf(type)](trx, objectId, now, known);
      if (!found) return;
      const deliveries = await insertEvent(trx, {
        id,
        environmentId: found.environmentId,
        type,
        objectId,
        notifyUrl: found.notifyUrl,
        data: await found.data(),
        now,
      });
      if (deliveries > 0) afterCommit(trx, deliveriesCommitted);
    },
  };
}
