import { sql } from 'kysely';
import type { Db } from './db';

// An exact id of any object of an environment, or a token (a transaction's, the sign-up
// page's `sub_…`, the save-card page's `sav_…`): each table asked by its primary key or its
// unique token, so a lookup costs one index probe per table. An API request is found by
// the request id its answer gave (the one a developer quotes).

export type FoundKind =
  | 'transaction'
  | 'sale'
  | 'refund'
  | 'dispute'
  | 'client'
  | 'subscription'
  | 'authorization'
  | 'wallet'
  | 'event'
  | 'product'
  | 'plan'
  | 'tax'
  | 'shipping'
  | 'coupon'
  | 'request';

export interface FoundObject {
  kind: FoundKind;
  id: string;
  /** The transaction whose page shows it (a sale, a refund, a dispute), when there is one. */
  transactionId?: string | null;
}

/** Tables whose rows carry `environment_id` and are found by `id` alone. */
const BY_ID: [FoundKind, 'transactions' | 'clients' | 'subscriptions' | 'authorizations' | 'wallets' | 'events' | 'products' | 'plans' | 'taxes' | 'shipping' | 'coupons'][] = [
  ['transaction', 'transactions'],
  ['client', 'clients'],
  ['subscription', 'subscriptions'],
  ['authorization', 'authorizations'],
  ['wallet', 'wallets'],
  ['event', 'events'],
  ['product', 'products'],
  ['plan', 'plans'],
  ['tax', 'taxes'],
  ['shipping', 'shipping'],
  ['coupon', 'coupons'],
];

const paidBy = sql<string | null>`coalesce(${sql.ref('s.transaction_id')}, ${sql.ref('s.source_transaction_id')})`;

async function byUuid(db: Db, env: string, id: string): Promise<FoundObject[]> {
  const plain = BY_ID.map(async ([kind, table]) => {
    const row = await db.selectFrom(table).select('id').where('environment_id', '=', env).where('id', '=', id).executeTakeFirst();
    return row ? [{ kind, id: row.id }] : [];
  });
  const sale = db.selectFrom('sales as s').select(['s.id', paidBy.as('transactionId')]).where('s.environment_id', '=', env).where('s.id', '=', id).execute();
  const refund = db
    .selectFrom('sale_operations as o')
    .innerJoin('sales as s', 's.id', 'o.sale_id')
    .select(['o.id', paidBy.as('transactionId')])
    .where('s.environment_id', '=', env)
    .where('o.id', '=', id)
    .where('o.kind', '=', 'refund')
    .execute();
  const dispute = db
    .selectFrom('disputes as d')
    .innerJoin('sales as s', 's.id', 'd.sale_id')
    .select(['d.id', paidBy.as('transactionId')])
    .where('d.environment_id', '=', env)
    .where('d.id', '=', id)
    .execute();
  const request = db.selectFrom('api_requests').select('request_id').where('environment_id', '=', env).where('request_id', '=', id).limit(1).execute();
  const joined = await Promise.all([sale, refund, dispute]);
  const kinds: FoundKind[] = ['sale', 'refund', 'dispute'];
  const requests = (await request).map((r) => ({ kind: 'request' as const, id: r.request_id }));
  return [...(await Promise.all(plain)).flat(), ...joined.flatMap((rows, i) => rows.map((r) => ({ kind: kinds[i]!, id: r.id, transactionId: r.transactionId }))), ...requests];
}

async function byToken(db: Db, env: string, token: string): Promise<FoundObject[]> {
  const [tx, sub, auth] = await Promise.all([
    db.selectFrom('transactions').select('id').where('environment_id', '=', env).where('token', '=', token).execute(),
    db.selectFrom('subscriptions').select('id').where('environment_id', '=', env).where('token', '=', token).execute(),
    db.selectFrom('authorizations').select('id').where('environment_id', '=', env).where('token', '=', token).execute(),
  ]);
  return [...tx.map((r) => ({ kind: 'transaction' as const, id: r.id })), ...sub.map((r) => ({ kind: 'subscription' as const, id: r.id })), ...auth.map((r) => ({ kind: 'authorization' as const, id: r.id }))];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** URL-safe base64 of at least 128 bits, with or without its page's prefix. */
const TOKEN = /^(?:sub_|sav_)?[A-Za-z0-9_-]{22,}$/;

/** The objects `key` names exactly: none for a text that is no id or token. */
export function findObjects(db: Db, env: string, key: string): Promise<FoundObject[]> {
  if (UUID.test(key)) return byUuid(db, env, key.toLowerCase());
  if (TOKEN.test(key)) return byToken(db, env, key);
  return Promise.resolve([]);
}
