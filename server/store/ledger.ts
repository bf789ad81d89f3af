import { assertBalanced, balanced, LedgerError, type Posting, repayment, shortfall, type SystemAccount } from '../domain/ledger';
import { forUpdate } from './locking';
import { uuidv7 } from '../domain/ids';
import type { Db, Tx } from './db';
import type { Outbox } from './events';
import { countAndPage, type Page } from './paging';
import type { LedgerEntryRow, WalletRow } from './schema';

// Wallets and their ledger. A movement is one call of postMovement inside the caller's
// database transaction, refused (LedgerError, the transaction rolls back) unless its
// debits and credits balance, as given and as stored: each wallet posting is one conditional UPDATE of the wallet's row
// (enabled, same environment and currency, balance stays ≥ 0) that returns the new balance
// and entry number, then every entry is inserted. The UPDATE takes the row's write lock
// (PostgreSQL) or runs alone (SQLite's one writer), so concurrent movements of one wallet
// queue on it and each sees the balance the one before left.

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

/** Why a wallet posting was refused; the movement rolls back with it. */
export class PostingRefused extends Error {
  constructor(
    readonly wallet: string,
    readonly reason: 'missing' | 'currency' | 'disabled' | 'insufficient',
  ) {
    super(`wallet ${wallet}: ${reason}`);
  }
}

export interface Movement {
  environmentId: string;
  currency: string;
  /** The transfer, sale or operation the entries belong to. */
  movementId: string;
  transfer?: string;
  concept: string | null;
  postings: Posting[];
  now: Date;
  /**
   * Moves a wallet whatever its `enabled`: for movements agreed while it was enabled (a
   * sale's split and its refunds, a failed payout's return).
   */
  evenIfDisabled?: boolean;
  /**
   * A wallet that no longer holds what it owes gives what it holds and the platform covers
   * the rest, as the wallet's receivable (a refund's take-back: the customer is owed it).
   */
  coverShortfall?: boolean;
  /** A mirror image of an earlier movement: it moves exactly that, no repayment of receivables. */
  reversal?: boolean;
  /**
   * `movementId` was made for this movement, in this transaction: no other entry can carry
   * it, so what the books hold for it is what was just inserted and is not read back.
   */
  fresh?: boolean;
}

/**
 * Posts one balanced movement, with a wallet.credited or wallet.debited event for each
 * wallet entry; must run in a database transaction. Returns the wallet entries.
 *
 * Besides the postings given: a credit to a wallet with a receivable pays the platform back
 * first (a debit entry on the wallet, `platform` credited), and under `coverShortfall` a
 * wallet's debit beyond its balance is taken from `platform` and added to its receivable
 * (domain/ledger.ts: repayment, shortfall). Every `platform` entry naming a wallet moves
 * that wallet's `receivable` by its opposite, so a reversal undoes it too.
 */
export async function postMovement(trx: Tx, outbox: Outbox, m: Movement): Promise<LedgerEntryRow[]> {
  assertBalanced(m.postings.map((p) => ({ currency: m.currency, amount: p.amount })));
  const w = movementWriter(trx, m);
  const system: Posting[] = [];
  for (const p of m.postings) {
    if ('system' in p.account) system.push(p);
    else system.push(...(await postToWallet(trx, m, w, p, p.account.wallet)));
  }
  for (const p of system) await postToSystem(trx, w, p);
  await insertEntries(trx, w.entries);
  // What the books now hold for this movement must balance too (a second post under the
  // same id, a currency mix-up): checked before the caller's transaction can commit.
  const stored = m.fresh ? w.entries : await trx.selectFrom('ledger_entries').select(['currency', 'amount']).where('movement_id', '=', m.movementId).execute();
  assertBalanced(stored.map((e) => ({ currency: e.currency, amount: BigInt(e.amount) })));
  const wallets = w.entries.filter((e) => e.wallet !== null);
  for (const e of wallets) await outbox.emit(trx, e.amount > 0 ? 'wallet.credited' : 'wallet.debited', e.id, m.now);
  return wallets;
}

/** SQLite caps bound parameters per statement: 15 columns × 50 rows stays under it. */
async function insertEntries(trx: Tx, entries: LedgerEntryRow[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 50) await trx.insertInto('ledger_entries').values(entries.slice(i, i + 50)).execute();
}

/** A fresh movement between system accounts only: no wallet to move, no receivable, no event. */
const systemOnly = (m: Movement) => m.fresh === true && m.postings.every((p) => 'system' in p.account && p.counterpart.with_wallet === undefined);

/**
 * Several movements in one database transaction (the balance job's round): those between
 * system accounts only have their entries inserted together, a statement per 50 entries
 * rather than one a movement; the others are posted one by one (postMovement).
 */
export async function postMovements(trx: Tx, outbox: Outbox, movements: Movement[]): Promise<void> {
  const entries: LedgerEntryRow[] = [];
  for (const m of movements) {
    if (!systemOnly(m)) {
      await postMovement(trx, outbox, m);
      continue;
    }
    assertBalanced(m.postings.map((p) => ({ currency: m.currency, amount: p.amount })));
    const w = movementWriter(trx, m);
    for (const p of m.postings) w.systemEntry(p, (p.account as { system: SystemAccount }).system);
    entries.push(...w.entries);
  }
  await insertEntries(trx, entries);
}

type MovementWriter = ReturnType<typeof movementWriter>;

/** The entries of one movement as they are made, and the conditional balance updates that make them. */
function movementWriter(trx: Tx, m: Movement) {
  const at = m.now.toISOString();
  const entries: LedgerEntryRow[] = [];
  const entry = (p: Posting, concept = m.concept) => ({
    id: uuidv7(m.now.getTime()),
    environment_id: m.environmentId,
    movement_id: m.movementId,
    currency: m.currency,
    amount: Number(p.amount),
    concept,
    with_wallet: p.counterpart.with_wallet ?? null,
    with_sale: p.counterpart.with_sale ?? null,
    with_external: p.counterpart.with_external ?? null,
    transfer: m.transfer ?? null,
    created_at: at,
  });
  return {
    at,
    entries,
    /** A wallet's entry, after its balance moved to `moved`. */
    walletEntry(p: Posting, wallet: string, moved: { entry_count: number; balance: number }, concept?: string) {
      entries.push({ ...entry(p, concept), account: 'wallet', wallet, seq: moved.entry_count, balance: moved.balance });
    },
    systemEntry(p: Posting, account: SystemAccount) {
      entries.push({ ...entry(p), account, wallet: null, seq: null, balance: null });
    },
    /** Moves a wallet's balance (and receivable) by a condition-checked UPDATE; undefined when the condition fails. */
    moveWallet(wallet: string, x: number, receivable = 0) {
      let update = trx
        .updateTable('wallets')
        .set((eb) => ({
          balance: eb('balance', '+', x),
          receivable: eb('receivable', '+', receivable),
          entry_count: eb('entry_count', '+', 1),
          updated_at: at,
        }))
        .where('id', '=', wallet)
        .where('environment_id', '=', m.environmentId)
        .where('currency', '=', m.currency)
        .where((eb) => eb(eb('balance', '+', x), '>=', 0));
      if (!m.evenIfDisabled) update = update.where('enabled', '=', 1);
      return update.returning(['balance', 'entry_count', 'receivable']).executeTakeFirst();
    },
  };
}

/** The platform's side of what it lends a wallet or is paid back by it. */
const platformPosting = (amount: bigint, wallet: string, like: Posting): Posting => ({
  account: { system: 'platform' },
  amount,
  counterpart: { ...like.counterpart, with_wallet: wallet },
});

/**
 * One wallet's posting: its entry (and a repayment of its receivable from a credit), or,
 * under `coverShortfall`, what it holds with the platform covering the rest. Resolves with
 * the platform postings this made.
 */
async function postToWallet(trx: Tx, m: Movement, w: MovementWriter, p: Posting, wallet: string): Promise<Posting[]> {
  const moved = await w.moveWallet(wallet, Number(p.amount));
  if (moved) {
    w.walletEntry(p, wallet, moved);
    const repay = m.reversal ? 0n : repayment(p.amount, BigInt(moved.receivable));
    if (repay <= 0n) return [];
    // The receivable itself moves with the platform's entry.
    const repaid = (await w.moveWallet(wallet, -Number(repay)))!;
    w.walletEntry({ account: p.account, amount: -repay, counterpart: p.counterpart }, wallet, repaid, 'repays the receivable');
    return [platformPosting(repay, wallet, p)];
  }
  const reason = await refusal(trx, m, wallet);
  if (!(m.coverShortfall && reason === 'insufficient' && p.amount < 0n)) throw new PostingRefused(wallet, reason);
  const held = await forUpdate(trx, trx.selectFrom('wallets').select('balance').where('id', '=', wallet)).executeTakeFirstOrThrow();
  const { fromWallet, covered } = shortfall(-p.amount, BigInt(held.balance));
  if (fromWallet > 0n) w.walletEntry({ ...p, amount: -fromWallet }, wallet, (await w.moveWallet(wallet, -Number(fromWallet)))!);
  return [platformPosting(-covered, wallet, p)];
}

/** A system account's entry; the platform's, naming a wallet, moves that wallet's receivable by its opposite. */
async function postToSystem(trx: Tx, w: MovementWriter, p: Posting): Promise<void> {
  const account = (p.account as { system: SystemAccount }).system;
  w.systemEntry(p, account);
  const owing = p.counterpart.with_wallet;
  if (account !== 'platform' || owing === undefined) return;
  // What the platform covered for a wallet (a debit of platform) is owed by it; a credit pays it back.
  const owes = await trx
    .updateTable('wallets')
    .set((eb) => ({ receivable: eb('receivable', '-', Number(p.amount)), updated_at: w.at }))
    .where('id', '=', owing)
    .where((eb) => eb(eb('receivable', '-', Number(p.amount)), '>=', 0))
    .executeTakeFirst();
  if (Number(owes.numUpdatedRows) !== 1) throw new LedgerError(`wallet ${owing}: its receivable would go below zero`);
}

/**
 * Undoes a movement with its mirror image (entries are never changed): `movementId`'s
 * postings, negated, as the new movement `reversalId`. Into wallets whatever their
 * `enabled`, since the money was theirs. Nothing to undo: nothing posted.
 */
export async function reverseMovement(
  trx: Tx,
  outbox: Outbox,
  r: { movementId: string; reversalId: string; concept: string; now: Date },
): Promise<void> {
  const rows = await trx.selectFrom('ledger_entries').selectAll().where('movement_id', '=', r.movementId).orderBy('id').execute();
  if (!rows.length) return;
  await postMovement(trx, outbox, {
    environmentId: rows[0]!.environment_id,
    currency: rows[0]!.currency,
    movementId: r.reversalId,
    transfer: rows[0]!.transfer ?? undefined,
    concept: r.concept,
    postings: balanced(
      rows.map((e) => ({
        account: e.wallet ? { wallet: e.wallet } : { system: e.account as SystemAccount },
        amount: -BigInt(e.amount),
        counterpart: {
          with_wallet: e.with_wallet ?? undefined,
          with_sale: e.with_sale ?? undefined,
          with_external: e.with_external ?? undefined,
        },
      })),
    ),
    now: r.now,
    evenIfDisabled: true,
    reversal: true,
  });
}

async function refusal(trx: Tx, m: Movement, id: string): Promise<PostingRefused['reason']> {
  const row = await getWallet(trx, m.environmentId, id);
  if (!row) return 'missing';
  if (row.currency !== m.currency) return 'currency';
  if (!row.enabled && !m.evenIfDisabled) return 'disabled';
  return 'insufficient';
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
