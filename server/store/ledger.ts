import { forUpdate } from './locking';
import type { Db, Tx } from './db';
import { countAndPage, type Page } from './paging';
import type { LedgerEntryRow, WalletRow } from './schema';

// Wallets and their ledger entries as rows. What a movement posts (balanced, receivables
// repaid, shortfalls covered, events) is the use cases' (payments/ledger-posting.ts); here
// are the conditional UPDATEs that move a wallet's balance and receivable, each taking the
// row's write lock (PostgreSQL) or running alone (SQLite's one writer), so concurrent
// movements of one wallet queue on it and each sees the balance the one before left.

/** A wallet as the store hands it out: `enabled` decoded from 0/1. */
export type Wallet = Omit<WalletRow, 'enabled'> & { enabled: boolean };
const walletOf = (r: WalletRow): Wallet => ({ ...r, enabled: r.enabled === 1 });

export type WalletFilters = Partial<Pick<Wallet, 'wallet_id' | 'client_id' | 'currency' | 'enabled'>>;

export async function getWallet(db: Db, environmentId: string, id: string): Promise<Wallet | undefined> {
  const row = await db.selectFrom('wallets').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  return row && walletOf(row);
}

/** A wallet as the API shows it: with its client's compliance state, which it follows. */
export type ShownWallet = Wallet & { enabled_by_compliance: boolean };

export async function withCompliance(db: Db, rows: Wallet[]): Promise<ShownWallet[]> {
  const ids = [...new Set(rows.map((r) => r.client_id))];
  const clients = ids.length
    ? await db.selectFrom('clients').select(['id', 'enabled_by_compliance']).where('id', 'in', ids).execute()
    : [];
  const compliant = new Set(clients.filter((c) => c.enabled_by_compliance === 1).map((c) => c.id));
  return rows.map((r) => ({ ...r, enabled_by_compliance: compliant.has(r.client_id) }));
}

export async function listWallets(db: Db, environmentId: string, f: WalletFilters, page: Page) {
  let query = db.selectFrom('wallets').where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof WalletFilters, '=', typeof value === 'boolean' ? Number(value) : value);
  }
  const { count, rows } = await countAndPage<WalletRow>(query, page);
  return { count, rows: await withCompliance(db, rows.map(walletOf)) };
}

export async function insertWallet(db: Db, wallet: Wallet): Promise<void> {
  await db.insertInto('wallets').values({ ...wallet, enabled: wallet.enabled ? 1 : 0 }).execute();
}

export async function updateWallet(
  db: Db,
  environmentId: string,
  id: string,
  set: Partial<Pick<Wallet, 'wallet_id' | 'name' | 'notify_url' | 'enabled'>>,
  now: Date,
): Promise<Wallet | undefined> {
  const { enabled, ...rest } = set;
  await db
    .updateTable('wallets')
    .set({ ...rest, ...(enabled === undefined ? {} : { enabled: enabled ? 1 : 0 }), updated_at: now.toISOString() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .execute();
  return getWallet(db, environmentId, id);
}

/** What a wallet holds and owes after moveWallet, and its new entry's number. */
export interface WalletMoved {
  balance: number;
  entry_count: number;
  receivable: number;
}

/**
 * Moves a wallet's balance by `amount`, counting an entry, with one conditional UPDATE: same environment and currency, enabled unless `evenIfDisabled`, the
 * balance staying ≥ 0. Undefined when the condition fails.
 */
export function moveWallet(
  trx: Tx,
  w: { wallet: string; environmentId: string; currency: string; amount: number; evenIfDisabled?: boolean; at: string },
): Promise<WalletMoved | undefined> {
  let update = trx
    .updateTable('wallets')
    .set((eb) => ({
      balance: eb('balance', '+', w.amount),
      entry_count: eb('entry_count', '+', 1),
      updated_at: w.at,
    }))
    .where('id', '=', w.wallet)
    .where('environment_id', '=', w.environmentId)
    .where('currency', '=', w.currency)
    .where((eb) => eb(eb('balance', '+', w.amount), '>=', 0));
  if (!w.evenIfDisabled) update = update.where('enabled', '=', 1);
  return update.returning(['balance', 'entry_count', 'receivable']).executeTakeFirst();
}

/** Lowers a wallet's receivable by `amount` (raises it when negative); false if it would go below zero. */
export async function moveReceivable(trx: Tx, wallet: string, amount: number, at: string): Promise<boolean> {
  const owes = await trx
    .updateTable('wallets')
    .set((eb) => ({ receivable: eb('receivable', '-', amount), updated_at: at }))
    .where('id', '=', wallet)
    .where((eb) => eb(eb('receivable', '-', amount), '>=', 0))
    .executeTakeFirst();
  return Number(owes.numUpdatedRows) === 1;
}

/** The wallets' rows, locked for the rest of the transaction in id order (FOR UPDATE; SQLite has one writer). */
export async function lockWallets(trx: Tx, wallets: string[]): Promise<void> {
  for (const id of [...wallets].sort()) await forUpdate(trx, trx.selectFrom('wallets').select('id').where('id', '=', id)).execute();
}

/** A wallet's balance, its row locked for the rest of the transaction (PostgreSQL). */
export async function lockedBalance(trx: Tx, wallet: string): Promise<bigint> {
  const held = await forUpdate(trx, trx.selectFrom('wallets').select('balance').where('id', '=', wallet)).executeTakeFirstOrThrow();
  return BigInt(held.balance);
}

/** SQLite caps bound parameters per statement: 15 columns × 50 rows stays under it. */
export async function insertEntries(trx: Tx, entries: LedgerEntryRow[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 50) await trx.insertInto('ledger_entries').values(entries.slice(i, i + 50)).execute();
}

/** What the books hold for a movement: its entries, oldest first. */
export function movementEntries(trx: Tx, movementId: string): Promise<LedgerEntryRow[]> {
  return trx.selectFrom('ledger_entries').selectAll().where('movement_id', '=', movementId).orderBy('id').execute();
}

export function getEntry(db: Db, environmentId: string, wallet: string, id: string): Promise<LedgerEntryRow | undefined> {
  return db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('wallet', '=', wallet)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface EntryFilters {
  with_wallet?: string;
  with_sale?: string;
  transfer?: string;
}

/** A wallet's entries, newest first by their number in the wallet. */
export function listEntries(db: Db, environmentId: string, wallet: string, f: EntryFilters, page: Page) {
  let query = db.selectFrom('ledger_entries').where('environment_id', '=', environmentId).where('wallet', '=', wallet);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof EntryFilters, '=', value);
  }
  return countAndPage<LedgerEntryRow>(query, page, 'seq');
}
