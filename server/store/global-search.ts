import { type RawBuilder, sql } from 'kysely';
import { containsPattern, type SearchTerms, type StatementWord } from '../domain/transaction-search';
import type { Db } from './db';
import { or, referenceMatch, statementMatch } from './search-match';
import { matchesSearch } from './transactions';

// The dashboard's one search box across kinds of object (dashboard/search-routes.ts): each
// kind asked in one query of the environment's rows, newest first, at most `limit` rows.
// Exact keys (last four, amounts, ids, tokens) compare for equality; a part of a name or an
// email is a LIKE with the text escaped, so a typed % or _ is only ever text.

type Bool = RawBuilder<boolean>;
const contains = (column: string, text: string) => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${containsPattern(text.toLowerCase())} escape '\\'`;

export const searchTransactions = (db: Db, env: string, terms: SearchTerms, limit: number) =>
  db
    .selectFrom('transactions')
    .select(['id', 'order_id', 'status', 'expired_at', 'total_price', 'currency', 'created_at'])
    .where('environment_id', '=', env)
    .where((eb) => matchesSearch(eb, env, terms))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/** Card payments read as a statement line, or by their reference (the customer's "AA20-78BF"). */
export async function searchSales(db: Db, env: string, words: StatementWord[] | undefined, limit: number, reference?: string) {
  const either: Bool[] = [];
  const line = words && statementMatch(words, { last4: 'card_last4', amount: { units: 'amount', currency: 'currency' }, created: 'created_at' });
  if (line) either.push(line);
  if (reference) either.push(referenceMatch('id', reference));
  if (!either.length) return [];
  const match = or(either);
  return db
    .selectFrom('sales')
    .select(['id', 'transaction_id', 'source_transaction_id', 'amount', 'currency', 'card_brand', 'card_last4', 'failure', 'created_at'])
    .where('environment_id', '=', env)
    .where(match)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function searchRefunds(db: Db, env: string, words: StatementWord[], limit: number) {
  const match = statementMatch(words, { last4: 's.card_last4', amount: { units: 'o.amount', currency: 's.currency' }, created: 'o.created_at' });
  if (!match) return [];
  return db
    .selectFrom('sale_operations as o')
    .innerJoin('sales as s', 's.id', 'o.sale_id')
    .select(['o.id', 'o.sale_id', 'o.amount', 'o.created_at', 's.currency', 's.card_brand', 's.card_last4', 's.transaction_id', 's.source_transaction_id'])
    .where('s.environment_id', '=', env)
    .where('o.kind', '=', 'refund')
    .where(match)
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
}

export async function searchDisputes(db: Db, env: string, words: StatementWord[], limit: number) {
  const match = statementMatch(words, { last4: 's.card_last4', amount: { units: 'd.amount', currency: 'd.currency' }, created: 'd.created_at' });
  if (!match) return [];
  return db
    .selectFrom('disputes as d')
    .innerJoin('sales as s', 's.id', 'd.sale_id')
    .select(['d.id', 'd.sale_id', 'd.amount', 'd.currency', 'd.status', 'd.evidence_due_by', 'd.created_at', 's.card_brand', 's.card_last4', 's.transaction_id', 's.source_transaction_id'])
    .where('d.environment_id', '=', env)
    .where(match)
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** Stored cards: by last four (and the day they were stored), or the hosted page's `sav_` token. */
export async function searchAuthorizations(db: Db, env: string, text: string, words: StatementWord[] | undefined, limit: number) {
  const either: Bool[] = [sql<boolean>`${sql.ref('token')} = ${text}`];
  const match = words && statementMatch(words, { last4: 'card_last4', created: 'created_at' });
  if (match) either.push(match);
  return db
    .selectFrom('authorizations')
    .select(['id', 'card_brand', 'card_last4', 'card_exp_month', 'card_exp_year', 'status', 'created_at'])
    .where('environment_id', '=', env)
    .where(or(either))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** By the merchant's subscription id, the sign-up page's `sub_` token, or a part of the customer's email (given on the page, or the client's). */
export async function searchSubscriptions(db: Db, env: string, text: string, limit: number) {
  const either: Bool[] = [sql<boolean>`${sql.ref('subscription_id')} = ${text}`, sql<boolean>`${sql.ref('token')} = ${text}`];
  if (text.includes('@')) {
    either.push(contains('customer_email', text));
    const clients = db.selectFrom('clients').select('clients.id').where('clients.environment_id', '=', env).where(contains('clients.email', text));
    either.push(sql<boolean>`${sql.ref('client_ref')} in (${clients})`);
  }
  return db
    .selectFrom('subscriptions')
    .select(['id', 'subscription_id', 'plan_name', 'amount', 'currency', 'status', 'customer_email', 'created_at'])
    .where('environment_id', '=', env)
    .where(or(either))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** By a part of the name or email, or exactly the merchant's client id or the document number (stored as given). */
export const searchClientsEverywhere = (db: Db, env: string, text: string, limit: number) =>
  db
    .selectFrom('clients')
    .select(['id', 'name', 'email', 'client_id', 'id_number', 'created_at'])
    .where('environment_id', '=', env)
    .where(
      or([
        contains('name', text),
        contains('email', text),
        sql<boolean>`${sql.ref('client_id')} = ${text}`,
        sql<boolean>`upper(${sql.ref('id_number')}) = ${text.toUpperCase()}`,
      ]),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
