import { type RawBuilder, sql } from 'kysely';
import type { StatementWord } from '../domain/transaction-search';

// Conditions both searches share (the transactions list's, store/transactions.ts, and the
// header's, store/global-search.ts): a statement line read against a card payment's
// columns, and a payment's reference against its sale's id.

type Bool = RawBuilder<boolean>;
export const or = (parts: Bool[]) => sql<boolean>`(${sql.join(parts, sql` or `)})`;
const and = (parts: Bool[]) => sql<boolean>`(${sql.join(parts, sql` and `)})`;

/** The columns a statement line is read against; a kind without an amount has none. */
export interface StatementColumns {
  last4: string;
  amount?: { units: string; currency: string };
  created: string;
}

/**
 * Every word matches the row one of the ways it can be read (its card's last four, its amount
 * in its own currency, the shop's day it was made); undefined when some word cannot match this kind.
 */
export function statementMatch(words: StatementWord[], c: StatementColumns): Bool | undefined {
  const all: Bool[] = [];
  for (const w of words) {
    const either: Bool[] = [];
    if (w.last4) either.push(sql<boolean>`${sql.ref(c.last4)} = ${w.last4}`);
    if (w.day) either.push(sql<boolean>`(${sql.ref(c.created)} >= ${w.day.from} and ${sql.ref(c.created)} < ${w.day.before})`);
    for (const { units, currencies } of c.amount ? w.amounts : []) {
      const [amount, currency] = [sql.ref(c.amount!.units), sql.ref(c.amount!.currency)];
      const codes = sql.join('in' in currencies ? currencies.in : currencies.notIn);
      either.push(sql<boolean>`(${amount} = ${units} and ${currency} ${'in' in currencies ? sql`in` : sql`not in`} (${codes}))`);
    }
    if (!either.length) return undefined;
    all.push(or(either));
  }
  return and(all);
}

/**
 * A sale whose reference is `key` (domain/payment-reference.ts: its id's last eight hex
 * digits); the expression of the index `sales_env_reference` (migration 102), so the
 * database goes straight to it.
 */
export const referenceMatch = (idColumn: string, key: string) => sql<boolean>`substr(${sql.ref(idColumn)}, 29, 8) = ${key}`;
