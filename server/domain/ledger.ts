// The ledger's rules, without storage: double entry in integer minor units.
//
// Every movement of money is a set of postings that add up to zero, so money is never
// created or destroyed. Wallets are accounts; so are the service's own accounts for the
// outside world, one per environment and currency:
//   card_payments  money coming in from cards (goes negative as sales come in)
//   payouts        money sent out to IBANs (grows as payouts leave)
//   merchant       the merchant's own balance: what a sale's destinations leave over
//   platform       the platform's own money: it covers the part of a refund a destination
//                  wallet has already spent, as a receivable on that wallet
//   fees           what the platform took from the merchant as its fees (domain/balance.ts)
// Only wallets have a floor: a wallet's balance never goes below zero. The outside-world
// accounts are the counterpart that lets the sum stay zero.
//
// A wallet's receivable is what the platform has covered for it and not been paid back:
// minus the sum of the platform's entries naming the wallet (`with_wallet`). Money coming
// into the wallet pays it back first, in the same movement.

export type SystemAccount = 'card_payments' | 'payouts' | 'merchant' | 'platform' | 'fees';

export type Account = { wallet: string } | { system: SystemAccount };

/** What an entry names as the other side of a posting, as the spec's entry shows it. */
export interface Counterpart {
  with_wallet?: string;
  with_sale?: string;
  with_external?: string;
}

export interface Posting {
  account: Account;
  /** Minor units; positive credits the account, negative debits it. */
  amount: bigint;
  counterpart: Counterpart;
}

export class LedgerError extends Error {}

/** The postings of one movement, checked: none zero, all adding up to zero, in lock order. */
export function balanced(postings: Posting[]): Posting[] {
  const kept = postings.filter((p) => p.amount !== 0n);
  if (kept.length === 0) throw new LedgerError('a movement needs at least one non-zero posting');
  const sum = kept.reduce((acc, p) => acc + p.amount, 0n);
  if (sum !== 0n) throw new LedgerError(`postings add up to ${sum}, not 0`);
  // Wallet rows are updated in one fixed order (by id), so two movements between the same
  // wallets never wait on each other in opposite orders (a deadlock on PostgreSQL).
  return kept.sort((a, b) => lockKey(a.account).localeCompare(lockKey(b.account)));
}

/** An entry as the rule below needs it: whatever was posted, in a currency. */
export interface CurrencyAmount {
  currency: string;
  amount: bigint;
}

/** The currencies whose entries do not add up to zero (debits ≠ credits), in first-seen order. */
export function unbalancedCurrencies(entries: CurrencyAmount[]): string[] {
  const sums = new Map<string, bigint>();
  for (const e of entries) sums.set(e.currency, (sums.get(e.currency) ?? 0n) + e.amount);
  return [...sums].filter(([, sum]) => sum !== 0n).map(([currency]) => currency);
}

/** Refuses a movement whose debits and credits differ in any currency. */
export function assertBalanced(entries: CurrencyAmount[]): void {
  const off = unbalancedCurrencies(entries);
  if (off.length) throw new LedgerError(`a movement's debits and credits differ in ${off.join(', ')}`);
}

/**
 * A wallet owes `owed` (> 0) and holds `balance`: it gives what it holds, up to `owed`,
 * and the platform covers the rest, which becomes the wallet's receivable.
 */
export function shortfall(owed: bigint, balance: bigint): { fromWallet: bigint; covered: bigint } {
  positive(owed, 'what a wallet owes');
  const fromWallet = balance <= 0n ? 0n : balance < owed ? balance : owed;
  return { fromWallet, covered: owed - fromWallet };
}

/** Of a credit (> 0) to a wallet owing `receivable`, what pays the platform back first. */
export function repayment(credit: bigint, receivable: bigint): bigint {
  if (credit <= 0n || receivable <= 0n) return 0n;
  return credit < receivable ? credit : receivable;
}

const lockKey = (a: Account) => ('wallet' in a ? `0${a.wallet}` : `1${a.system}`);

function positive(amount: bigint, what: string) {
  if (amount <= 0n) throw new LedgerError(`${what} must be positive`);
}

/** Wallet to wallet. */
export function transferPostings(from: string, to: string, amount: bigint): Posting[] {
  positive(amount, 'a transfer');
  if (from === to) throw new LedgerError('a transfer needs two different wallets');
  return balanced([
    { account: { wallet: from }, amount: -amount, counterpart: { with_wallet: to } },
    { account: { wallet: to }, amount, counterpart: { with_wallet: from } },
  ]);
}

/** A wallet sends money out to an IBAN (`external` names it); reversed when the payout fails. */
export function payoutPostings(wallet: string, amount: bigint, external: string, reverse = false): Posting[] {
  positive(amount, 'a payout');
  const sign = reverse ? -1n : 1n;
  return balanced([
    { account: { wallet }, amount: -sign * amount, counterpart: { with_external: external } },
    { account: { system: 'payouts' }, amount: sign * amount, counterpart: { with_external: external } },
  ]);
}

export interface Share {
  wallet: string;
  amount: bigint;
}

/** A paid sale: the card money comes in, each destination gets its share, the merchant the rest. */
export function salePostings(sale: string, total: bigint, destinations: Share[]): Posting[] {
  positive(total, 'a sale');
  const rest = total - sumOf(destinations);
  if (rest < 0n) throw new LedgerError('destinations add up to more than the sale');
  return balanced([
    { account: { system: 'card_payments' }, amount: -total, counterpart: { with_sale: sale } },
    ...destinations.map((d) => ({ account: { wallet: d.wallet }, amount: d.amount, counterpart: { with_sale: sale } })),
    { account: { system: 'merchant' }, amount: rest, counterpart: { with_sale: sale } },
  ]);
}

/**
 * A transaction paid from its `source`: each source wallet pays its amount, the cards
 * their total (money in from outside), each destination gets its share and the merchant
 * the rest. `external` names the transaction on every entry, and `sale` (the
 * transaction's sale) too.
 */
export function sourcedPostings(external: string, wallets: Share[], cards: bigint, destinations: Share[], sale?: string): Posting[] {
  const total = sumOf(wallets) + cards;
  positive(total, 'a payment');
  const rest = total - sumOf(destinations);
  if (rest < 0n) throw new LedgerError('destinations add up to more than the payment');
  const counterpart = { with_external: external, ...(sale === undefined ? {} : { with_sale: sale }) };
  return balanced([
    ...wallets.map((w) => ({ account: { wallet: w.wallet }, amount: -w.amount, counterpart })),
    { account: { system: 'card_payments' as const }, amount: -cards, counterpart },
    ...destinations.map((d) => ({ account: { wallet: d.wallet }, amount: d.amount, counterpart })),
    { account: { system: 'merchant' as const }, amount: rest, counterpart },
  ]);
}

const sumOf = (shares: Share[]) => shares.reduce((acc, s) => acc + s.amount, 0n);

/**
 * What each destination has given back once refunds of a sale reach `refunded` in all:
 * floor(share × refunded / total). Computed on the running total rather than refund by
 * refund, so rounding never accumulates: a full refund takes back exactly each share, and
 * no destination ever gives back more than its proportional part.
 */
export function takenBack(total: bigint, destinations: Share[], refunded: bigint): Share[] {
  if (refunded < 0n || refunded > total) throw new LedgerError('refunds must lie between 0 and the sale');
  return destinations.map((d) => ({ wallet: d.wallet, amount: (d.amount * refunded) / total }));
}

/**
 * One refund of `amount` on a sale already refunded `before`: each destination gives back
 * the growth of its takenBack, the merchant the rest of `amount`. The merchant's part is
 * the remainder, so it can be a unit more or less than its exact proportion in one refund;
 * over all refunds it comes to exactly its share. The refunded money goes `to` the cards
 * (`card_payments`, by default), or back to a wallet that paid part of a transaction's
 * `source`.
 */
export function refundPostings(
  sale: string,
  total: bigint,
  destinations: Share[],
  before: bigint,
  amount: bigint,
  to: Account = { system: 'card_payments' },
): Posting[] {
  positive(amount, 'a refund');
  const then = takenBack(total, destinations, before);
  const now = takenBack(total, destinations, before + amount);
  const back = now.map((d, i) => ({ wallet: d.wallet, amount: d.amount - then[i]!.amount }));
  // The refunded money's posting first: a wallet refunded that is also a destination is
  // credited before it gives its share back (balanced() keeps this order for one wallet).
  return balanced([
    { account: to, amount, counterpart: { with_sale: sale } },
    ...back.map((d) => ({ account: { wallet: d.wallet }, amount: -d.amount, counterpart: { with_sale: sale } })),
    { account: { system: 'merchant' }, amount: -(amount - sumOf(back)), counterpart: { with_sale: sale } },
  ]);
}

