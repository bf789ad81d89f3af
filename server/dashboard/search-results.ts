import { searchTerms, statementWords } from '../domain/transaction-search';
import type { Db } from '../store/db';
import {
  searchAuthorizations,
  searchClientsEverywhere,
  searchDisputes,
  searchRefunds,
  searchSales,
  searchSubscriptions,
  searchTransactions,
} from '../store/global-search';
import { type FoundObject, findObjects } from '../store/object-lookup';
import { type PaymentFactsOf, paymentFactsOf } from '../store/payment-list';

// What one text of the header's search box finds, kind by kind: the same readings as the
// transactions list's search (domain/transaction-search.ts), and a card payment read as a
// bank statement line (its last four, amount and day in any order).

/** Rows shown per kind; one more is asked to know whether there are more. */
export const ROWS_PER_KIND = 10;

export interface Found<Row> {
  rows: Row[];
  more: boolean;
}

const cut = <Row>(rows: Row[]): Found<Row> => ({ rows: rows.slice(0, ROWS_PER_KIND), more: rows.length > ROWS_PER_KIND });
type Rows<F extends (...a: never[]) => Promise<unknown[]>> = Awaited<ReturnType<F>>;

export interface SearchResults {
  byId: FoundObject[];
  transactions: Found<Rows<typeof searchTransactions>[number]>;
  sales: Found<Rows<typeof searchSales>[number]>;
  refunds: Found<Rows<typeof searchRefunds>[number]>;
  disputes: Found<Rows<typeof searchDisputes>[number]>;
  clients: Found<Rows<typeof searchClientsEverywhere>[number]>;
  subscriptions: Found<Rows<typeof searchSubscriptions>[number]>;
  authorizations: Found<Rows<typeof searchAuthorizations>[number]>;
  /** What the found transactions' statuses are read from, as on the payments list. */
  payments: PaymentFactsOf;
}

export type ResultKind = Exclude<keyof SearchResults, 'byId' | 'payments'>;
export const RESULT_KINDS: ResultKind[] = ['transactions', 'sales', 'refunds', 'disputes', 'clients', 'subscriptions', 'authorizations'];

/** `text` is trimmed, non-empty and checked (search-routes.ts); a date in it is a day of the shop's `timeZone`. */
export async function searchEverything(db: Db, env: string, text: string, timeZone: string, byId: FoundObject[]): Promise<SearchResults> {
  const terms = searchTerms(text, timeZone)!;
  const words = statementWords(text, timeZone);
  const n = ROWS_PER_KIND + 1;
  const none = Promise.resolve([]);
  const [transactions, sales, refunds, disputes, clients, subscriptions, authorizations] = await Promise.all([
    searchTransactions(db, env, terms, n),
    words || terms.reference ? searchSales(db, env, words, n, terms.reference) : none,
    words ? searchRefunds(db, env, words, n) : none,
    words ? searchDisputes(db, env, words, n) : none,
    searchClientsEverywhere(db, env, text, n),
    searchSubscriptions(db, env, text, n),
    searchAuthorizations(db, env, text, words, n),
  ]);
  const found = cut(transactions);
  return {
    byId,
    payments: await paymentFactsOf(db, env, found.rows.map((row) => row.id)),
    transactions: found,
    sales: cut(sales),
    refunds: cut(refunds),
    disputes: cut(disputes),
    clients: cut(clients),
    subscriptions: cut(subscriptions),
    authorizations: cut(authorizations),
  };
}

export { findObjects };

const CATALOGUE = new Set(['product', 'plan', 'tax', 'shipping', 'coupon']);

/** Where an object is shown, and whether that page is its own (a list of its kind is not). */
export function objectLink(o: FoundObject): { href: string; own: boolean } {
  if (o.kind === 'transaction') return { href: `/dashboard/transactions/${o.id}/`, own: true };
  if (o.kind === 'sale' || o.kind === 'refund' || o.kind === 'dispute') {
    // A sale is shown on the page of the transaction it paid, with its refunds and dispute.
    if (o.transactionId) return { href: `/dashboard/transactions/${o.transactionId}/`, own: true };
    return { href: o.kind === 'dispute' ? '/dashboard/disputes/' : '/dashboard/authorizations/', own: false };
  }
  if (o.kind === 'client') return { href: `/dashboard/clients/${o.id}/`, own: true };
  if (o.kind === 'wallet') return { href: `/dashboard/wallets/${o.id}/`, own: true };
  if (o.kind === 'event') return { href: `/dashboard/webhooks/${o.id}/`, own: true };
  if (o.kind === 'request') return { href: `/dashboard/requests/?request_id=${o.id}`, own: true };
  if (CATALOGUE.has(o.kind)) return { href: `/dashboard/catalogue/${o.kind}/${o.id}/`, own: true };
  return { href: `/dashboard/${o.kind === 'subscription' ? 'subscriptions' : 'authorizations'}/`, own: false };
}
