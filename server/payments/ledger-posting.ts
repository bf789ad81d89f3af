import { uuidv7 } from '../domain/ids';
import { assertBalanced, balanced, LedgerError, type Posting, repayment, shortfall, type SystemAccount } from '../domain/ledger';
import type { Tx } from '../store/db';
import type { Outbox } from '../store/events';
import { getWallet, insertEntries, lockedBalance, moveReceivable, movementEntries, moveWallet, type WalletMoved } from '../store/ledger';
import type { LedgerEntryRow } from '../store/schema';

// A movement of the ledger: one call of postMovement inside the caller's database
// transaction, refused (LedgerError, the transaction rolls back) unless its debits and
// credits balance, as given and as stored. Each wallet posting is one conditional UPDATE of
// the wallet's row (store/ledger.ts: moveWallet) that returns the new balance and entry
// number; then every entry is inserted, and each wallet entry is an event.

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
  const stored = m.fresh ? w.entries : await movementEntries(trx, m.movementId);
  assertBalanced(stored.map((e) => ({ currency: e.currency, amount: BigInt(e.amount) })));
  const wallets = w.entries.filter((e) => e.wallet !== null);
  for (const e of wallets) await outbox.emit(trx, e.amount > 0 ? 'wallet.credited' : 'wallet.debited', e.id, m.now);
  return wallets;
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

/** The entries of one movement as they are made, and the wallet moves that make them. */
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
    walletEntry(p: Posting, wallet: string, moved: WalletMoved, concept?: string) {
      entries.push({ ...entry(p, concept), account: 'wallet', wallet, seq: moved.entry_count, balance: moved.balance });
    },
    systemEntry(p: Posting, account: SystemAccount) {
      entries.push({ ...entry(p), account, wallet: null, seq: null, balance: null });
    },
    /** Moves a wallet's balance by `amount`; undefined when it may not (store/ledger.ts: moveWallet). */
    moveWallet: (wallet: string, amount: number) =>
      moveWallet(trx, { wallet, environmentId: m.environmentId, currency: m.currency, amount, evenIfDisabled: m.evenIfDisabled, at }),
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
  const { fromWallet, covered } = shortfall(-p.amount, await lockedBalance(trx, wallet));
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
  if (!(await moveReceivable(trx, owing, Number(p.amount), w.at))) throw new LedgerError(`wallet ${owing}: its receivable would go below zero`);
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
  const rows = await movementEntries(trx, r.movementId);
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

/** Why a wallet refused a posting, read once the conditional UPDATE has failed. */
async function refusal(trx: Tx, m: Movement, id: string): Promise<PostingRefused['reason']> {
  const row = await getWallet(trx, m.environmentId, id);
  if (!row) return 'missing';
  if (row.currency !== m.currency) return 'currency';
  if (!row.enabled && !m.evenIfDisabled) return 'disabled';
  return 'insufficient';
}
